// Preloaded with `node --import`: reports on stderr every module resolved from the ink or react
// packages, so a test can prove which commands never load the terminal UI.
import { register } from 'node:module';

register(
  'data:text/javascript,' +
    encodeURIComponent(`
      import { writeSync } from 'node:fs';
      export async function resolve(specifier, context, next) {
        const result = await next(specifier, context);
        const hit = /\\/node_modules\\/(ink|react|react-reconciler)\\//.exec(result.url);
        if (hit) writeSync(2, 'UI-MODULE-LOADED ' + hit[1] + '\\n');
        return result;
      }
    `),
);
