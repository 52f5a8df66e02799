#!/usr/bin/env node
// Tiny shim: enable Node's compile cache where it exists (Node >= 22.1), then load the CLI.
// Nothing heavy is imported here; each command loads its own modules when it runs.
import module from 'node:module';

module.enableCompileCache?.();
const { main } = await import('../dist/cli/main.js');
await main(process.argv);
