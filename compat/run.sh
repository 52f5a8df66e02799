#!/usr/bin/env bash
# The compatibility suite: agentctl as a consumer project installs it — from its packed tarball,
# next to today's SDK majors pinned by compat/package-lock.json — tested on Node 24.
#
# Node 24 comes from the npm registry (the `node` package, which fetches the platform's binary
# package from the registry too) into .cache/node24, reused when present. The main suite keeps
# running on the machine's Node; only this script puts Node 24 first on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
NODE_VERSION=24.21.0
NODE_HOME=$ROOT/.cache/node24
NODE_BIN=$NODE_HOME/node_modules/node/bin

if [ "$("$NODE_BIN/node" --version 2>/dev/null || true)" != "v$NODE_VERSION" ]; then
  echo "compat: installing Node $NODE_VERSION from the npm registry into .cache/node24" >&2
  rm -rf "$NODE_HOME"
  mkdir -p "$NODE_HOME"
  # A folder of its own (no package.json above it is touched); the package's preinstall links the binary.
  echo '{"private":true,"allowScripts":{"node":true}}' >"$NODE_HOME/package.json"
  npm install --prefix "$NODE_HOME" --no-save --no-audit --no-fund --loglevel=error "node@$NODE_VERSION"
fi
export PATH=$NODE_BIN:$PATH
[ "$(node --version)" = "v$NODE_VERSION" ] || { echo "compat: node on PATH is $(node --version), not v$NODE_VERSION" >&2; exit 1; }

# The package as the registry would ship it: built, then packed (dist is built, so no scripts run).
npm run build --silent
PACKED=$(mktemp -d)
trap 'rm -rf "$PACKED"' EXIT
npm pack --ignore-scripts --silent --pack-destination "$PACKED" >/dev/null
TARBALL=$(ls "$PACKED"/agentctl-*.tgz)

cd compat
cp package-lock.json "$PACKED/package-lock.before.json"
npm ci --prefer-offline --no-audit --no-fund --loglevel=error
# The tarball on top, as `npm install ./agentctl-x.y.z.tgz` does, without writing it into the lock file.
npm install --prefer-offline --no-save --no-audit --no-fund --loglevel=error "$TARBALL"
cmp -s package-lock.json "$PACKED/package-lock.before.json" || { echo "compat: installing the tarball changed compat/package-lock.json" >&2; exit 1; }
# One copy of openai: agentctl's peer is the project's own openai, never a second one.
copies=$(npm ls openai --all --parseable | sort -u | wc -l)
[ "$copies" = 1 ] || { echo "compat: $copies copies of openai installed:" >&2; npm ls openai --all >&2; exit 1; }

echo "compat: Node $(node --version)" >&2
npm ls --depth=0 agentctl openai @openai/agents ai @ai-sdk/openai langchain @langchain/openai @langchain/core @anthropic-ai/sdk typescript >&2
npm test
