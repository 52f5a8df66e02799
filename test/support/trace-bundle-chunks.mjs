// Preloaded with `node --import`: reports on stderr every file of the CLI bundle (dist/cli-bundle)
// the program loads (one `CHUNK-LOADED <file name>` line each). zod and our own modules are
// bundled, so trace-package-imports.mjs cannot see them; a chunk esbuild split off at a dynamic
// import is named for its module (`schema-<hash>.js` for src/tape/schema.ts). The bundle is
// CommonJS (scripts/commonjs-chunks.mjs), so its files are seen as they are required. At exit it
// reports the Node built-in modules the program loaded (`BUILTIN-LOADED <name>`, internal ones aside).
import Module from 'node:module';
import { writeSync } from 'node:fs';

process.on('exit', () => {
  for (const entry of process.moduleLoadList) {
    const name = /^NativeModule (?!internal\/)(\S+)$/.exec(entry)?.[1];
    if (name !== undefined) writeSync(2, `BUILTIN-LOADED ${name}\n`);
  }
});

const seen = new Set();
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (...args) {
  const file = resolveFilename.apply(this, args);
  const hit = /[\\/]dist[\\/]cli-bundle[\\/]([^\\/]+)$/.exec(file);
  if (hit && !seen.has(hit[1])) {
    seen.add(hit[1]);
    writeSync(2, `CHUNK-LOADED ${hit[1]}\n`);
  }
  return file;
};
