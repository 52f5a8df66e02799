#!/usr/bin/env node
// Tiny shim: enable Node's compile cache where it exists (Node >= 22.1), then load the CLI.
// Nothing heavy is loaded here; each command loads its own modules when it runs. The CLI is the
// esbuild bundle that `npm run build` writes after tsc (scripts/bundle-cli.mjs): a few files split
// per command instead of some 200 small modules, which is most of a short replay's start-up. This
// file and the bundle are CommonJS (bin/package.json, dist/cli-bundle/package.json): Node starts
// them without setting up its ES module loader.
'use strict';

require('node:module').enableCompileCache?.();
require('../dist/cli-bundle/main.js').main(process.argv);
