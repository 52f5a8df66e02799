// Preloaded with `node --import`: reports on stderr every package the program loads from
// node_modules (one `PACKAGE-LOADED <name>` line each), so a test can prove which commands never
// load a heavy dependency such as LevelDB. For a program run from tsc's output (dist/, not the
// bundle) it also names each of our modules that imports a package (`PACKAGE-IMPORTER <name>
// <dist/… module>`), so a test can say which module brought it. Both ways in are watched: `import` (a loader hook) and
// `require` (the CLI bundle keeps classic-level's native binding loader a real `require` from
// node_modules, while the rest of the LevelDB stack is bundled; see scripts/bundle-cli.mjs).
import Module, { register } from 'node:module';
import { writeSync } from 'node:fs';

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
        const importer = /\\/(dist\\/(?!cli-bundle\\/).*)$/.exec(context.parentURL ?? '');
        if (hit && importer && !seen.has(hit[1] + ' ' + importer[1])) {
          seen.add(hit[1] + ' ' + importer[1]);
          writeSync(2, 'PACKAGE-IMPORTER ' + hit[1] + ' ' + importer[1] + '\\n');
        }
        return result;
      }
    `),
);

// The hook above runs on the loader thread; require() resolves here, on the main thread. A package
// seen both ways is reported twice, which a test matching one line does not mind.
const required = new Set();
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (...args) {
  const file = resolveFilename.apply(this, args);
  const hit = /[\\/]node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/.exec(file);
  if (hit && !required.has(hit[1])) {
    required.add(hit[1]);
    writeSync(2, 'PACKAGE-LOADED ' + hit[1].replace('\\', '/') + '\n');
  }
  return file;
};
