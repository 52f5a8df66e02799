#!/usr/bin/env node
// Tiny shim: enable Node's compile cache where it exists (Node >= 22.1), then load the CLI.
// Nothing heavy is imported here; each command loads its own modules when it runs. The CLI is the
// esbuild bundle that `npm run build` writes after tsc (scripts/bundle-cli.mjs): a few files split
// per command instead of some 200 small modules, which is most of a short replay's start-up.
import module from 'node:module';

module.enableCompileCache?.();
const { main } = await import('../dist/cli-bundle/main.js');
await main(process.argv);
