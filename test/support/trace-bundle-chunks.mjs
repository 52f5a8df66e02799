// Preloaded with `node --import`: reports on stderr every file of the CLI bundle (dist/cli-bundle)
// the program imports (one `CHUNK-LOADED <file name>` line each). zod and our own modules are
// bundled, so trace-package-imports.mjs cannot see them; a chunk esbuild split off at a dynamic
// import is named for its module (`schema-<hash>.js` for src/tape/schema.ts). At exit it reports
// the Node built-in modules the program loaded (`BUILTIN-LOADED <name>`, internal ones aside).
import { writeSync } from 'node:fs';
import { register } from 'node:module';

process.on('exit', () => {
  for (const entry of process.moduleLoadList) {
    const name = /^NativeModule (?!internal\/)(\S+)$/.exec(entry)?.[1];
    if (name !== undefined) writeSync(2, `BUILTIN-LOADED ${name}\n`);
  }
});

register(
  'data:text/javascript,' +
    encodeURIComponent(`
      import { writeSync } from 'node:fs';
      const seen = new Set();
      export async function resolve(specifier, context, next) {
        const result = await next(specifier, context);
        const hit = /\\/dist\\/cli-bundle\\/([^/]+)$/.exec(result.url);
        if (hit && !seen.has(hit[1])) {
          seen.add(hit[1]);
          writeSync(2, 'CHUNK-LOADED ' + hit[1] + '\\n');
        }
        return result;
      }
    `),
);
