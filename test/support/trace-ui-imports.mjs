// Preloaded with `node --import`: reports on stderr every module resolved from the ink or react
// packages, or the CLI bundle's bundle of them (dist/cli-bundle/packages.mjs), so a test can prove
// which commands never load the terminal UI.
import { register } from 'node:module';

register(
  'data:text/javascript,' +
    encodeURIComponent(`
      import { writeSync } from 'node:fs';
      export async function resolve(specifier, context, next) {
        const result = await next(specifier, context);
        const hit = /\\/node_modules\\/(ink|react|react-reconciler)\\/|\\/cli-bundle\\/(packages)\\.mjs$/.exec(result.url);
        if (hit) writeSync(2, 'UI-MODULE-LOADED ' + (hit[1] ?? hit[2]) + '\\n');
        return result;
      }
    `),
);
