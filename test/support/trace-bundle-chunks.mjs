// Preloaded with `node --import`: reports on stderr every file of the CLI bundle (dist/cli-bundle)
// the program imports (one `CHUNK-LOADED <file name>` line each). zod and our own modules are
// bundled, so trace-package-imports.mjs cannot see them; a chunk esbuild split off at a dynamic
// import is named for its module (`schema-<hash>.js` for src/tape/schema.ts).
import { register } from 'node:module';

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
