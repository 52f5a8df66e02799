// Preloaded with `node --import`: reports on stderr every package the program resolves from
// node_modules through `import` (one `PACKAGE-LOADED <name>` line each), so a test can prove which
// commands never load a heavy dependency such as LevelDB.
import { register } from 'node:module';

register(
  'data:text/javascript,' +
    encodeURIComponent(`
      import { writeSync } from 'node:fs';
      const seen = new Set();
      export async function resolve(specifier, context, next) {
        const result = await next(specifier, context);
        const hit = /\\/node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(result.url);
        if (hit && !seen.has(hit[1])) {
          seen.add(hit[1]);
          writeSync(2, 'PACKAGE-LOADED ' + hit[1] + '\\n');
        }
        return result;
      }
    `),
);
