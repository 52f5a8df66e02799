// The CLI bundle as CommonJS files, for a shorter start-up. esbuild splits a bundle into chunks only
// in ES module output, but Node starts a CommonJS program faster: it never sets up its ES module
// loader (milliseconds of every command), and a chunk that is required costs less than one that is
// resolved, loaded and linked as an ES module. So bundle-cli.mjs builds the split ESM bundle in memory and this module
// turns each of its files into a CommonJS file, one by one, with esbuild's own ESM → CommonJS
// transform:
//   - a static import of another chunk becomes a require();
//   - a dynamic import of a chunk becomes a require() in a promise (`__agentctlChunk`), so a command
//     still loads only when it runs;
//   - `import.meta.url` becomes the file's own URL;
//   - the packages of the bundle of packages (bundle-cli.mjs: the terminal UI's, one ES module —
//     ink is ES modules only) are imported with import() by esm-packages.js before a chunk that needs
//     them (itself or through the chunks it requires) is required, and handed to it from there;
//   - every file keeps strict mode, which it had as an ES module, and the `// <path>` comments that
//     say where each bundled file starts.
// The files go in a directory whose package.json says `commonjs`, with bin/agentctl.js (bin/ has
// one too) requiring main.js.
import { transform } from 'esbuild';
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { basename, dirname, extname, join, relative } from 'node:path';

/** The helper file that imports the bundle of packages for the chunks that use them. */
const ESM_PACKAGES_FILE = 'esm-packages.js';

/** The bundle of packages (an ES module), beside the chunks. */
export const PACKAGE_BUNDLE_FILE = 'packages.mjs';

const ESM_PACKAGES_SOURCE = `"use strict";
// Packages the CLI's chunks use from the bundle of packages, ${PACKAGE_BUNDLE_FILE} (scripts/commonjs-chunks.mjs):
// imported here before a chunk that needs them is required, and handed to it by name.
const loaded = new Map();
let bundle;
exports.load = async (names) => {
  for (const name of names) {
    if (loaded.has(name)) continue;
    bundle ??= await import("./${PACKAGE_BUNDLE_FILE}");
    loaded.set(name, bundle.packages[name]);
  }
};
// What a chunk's require() of the package gets: the module's exports marked as an ES module's, so
// that esbuild's interop reads a default import as the module's own default export.
const asRequired = new Map();
exports.get = (name) => {
  const namespace = loaded.get(name);
  if (namespace === undefined) throw new Error(\`\${name} is used before it was imported (a bundling error)\`);
  if (!asRequired.has(name)) asRequired.set(name, Object.freeze({ __esModule: true, ...namespace }));
  return asRequired.get(name);
};
`;

/** Whether the package `specifier` resolves, for require(), to an ES module (or not at all). */
function onlyImportable(root, specifier) {
  let file;
  try {
    file = createRequire(join(root, 'package.json')).resolve(specifier);
  } catch (error) {
    // Exports without a `require` or `default` condition: import only.
    if (error.code === 'ERR_PACKAGE_PATH_NOT_EXPORTED') return true;
    throw error;
  }
  if (extname(file) === '.mjs') return true;
  if (extname(file) === '.cjs') return false;
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) return JSON.parse(readFileSync(manifest, 'utf8')).type === 'module';
    if (dirname(dir) === dir) return false;
  }
}

const isBuiltin = (specifier) => specifier.startsWith('node:') || builtinModules.includes(specifier);
const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * The CommonJS text of every JS file of an ESM build (`outputFiles` and `metafile` of esbuild's
 * result, built with `write: false`), plus esm-packages.js and the directory's package.json:
 * a Map from absolute path to text. `bundled(specifier)`: the external package is in the bundle of
 * packages (handed over by esm-packages.js); every package that can only be imported must be.
 */
export async function commonJsChunks(result, root, outdir, bundled) {
  const outputs = result.metafile.outputs;
  const files = new Map();
  // The external packages the chunks import, and whether each comes from the bundle of packages.
  const fromBundle = new Map();
  for (const output of Object.values(outputs)) {
    for (const entry of output.imports) {
      if (!entry.external || isBuiltin(entry.path) || fromBundle.has(entry.path)) continue;
      if (!bundled(entry.path) && onlyImportable(root, entry.path)) throw new Error(`${entry.path} can only be imported: it must be in the bundle of packages`);
      fromBundle.set(entry.path, bundled(entry.path));
    }
  }
  const ownNeeds = (output) =>
    outputs[output].imports.filter((entry) => entry.external && entry.kind === 'import-statement' && fromBundle.get(entry.path)).map((entry) => entry.path);
  // The bundled packages a chunk needs, itself or through the chunks it imports statically.
  const needsOf = (output) => {
    const all = new Set();
    const seen = new Set();
    const visit = (chunk) => {
      if (outputs[chunk] === undefined) throw new Error(`import("${chunk}") names no file of the bundle (in a string?)`);
      if (seen.has(chunk)) return;
      seen.add(chunk);
      for (const name of ownNeeds(chunk)) all.add(name);
      for (const entry of outputs[chunk].imports) if (!entry.external && entry.kind === 'import-statement') visit(entry.path);
    };
    visit(output);
    return all;
  };
  const outputOf = (file) => relative(root, file).split('\\').join('/');

  for (const file of result.outputFiles) {
    if (!file.path.endsWith('.js')) throw new Error(`unexpected bundle output ${file.path}`);
    // esbuild marks where each bundled file starts with a `// <path>` comment; the transform keeps
    // only legal comments (`//!`), so the marks go through it as those.
    const marked = file.text.replace(/^\/\/ (\S+)$/gm, '//! $1');
    const { code, warnings } = await transform(marked, {
      format: 'cjs',
      platform: 'node',
      target: 'node20',
      loader: 'js',
      define: { 'import.meta.url': '__agentctlFileUrl' },
      legalComments: 'inline',
      logLevel: 'silent',
    });
    if (warnings.length > 0) throw new Error(`${basename(file.path)}: ${warnings[0].text}`);
    // A CommonJS module's own __dirname and __filename cannot be declared again at its top level.
    const clash = /^(?:const|let|class|function) (__dirname|__filename)\b/m.exec(code);
    if (clash !== null) throw new Error(`${basename(file.path)}: declares ${clash[1]} at its top level, which a CommonJS module already has`);
    let text = code.replace(/^\/\/! (\S+)$/gm, '// $1').replace(/\bimport\("\.\/([^"]+)"\)/g, (_, chunk) => {
      const names = [...needsOf(`${outputOf(outdir)}/${chunk}`)];
      return `__agentctlChunk("./${chunk}", ${JSON.stringify(names)})`;
    });
    for (const [specifier, handed] of fromBundle) {
      if (handed) text = text.replace(new RegExp(`\\brequire\\("${escapeRegExp(specifier)}"\\)`, 'g'), `require("./${ESM_PACKAGES_FILE}").get(${JSON.stringify(specifier)})`);
    }
    if (/\bimport\(["']\.\//.test(text)) throw new Error(`${basename(file.path)}: a chunk import was left as import()`);
    const head = ['"use strict";'];
    if (text.includes('__agentctlFileUrl')) head.push('const __agentctlFileUrl = require("node:url").pathToFileURL(__filename).href;');
    if (text.includes('__agentctlChunk(')) {
      head.push(
        `const __agentctlChunk = (file, packages) => (packages.length === 0 ? Promise.resolve() : require("./${ESM_PACKAGES_FILE}").load(packages)).then(() => require(file));`,
      );
    }
    files.set(file.path, `${head.join('\n')}\n${text}`);
  }
  for (const file of files.keys()) {
    const output = outputOf(file);
    if (output.endsWith('/main.js') && needsOf(output).size > 0) {
      throw new Error(`main.js requires bundled packages at start-up: ${[...needsOf(output)].join(', ')}`);
    }
  }
  files.set(join(outdir, ESM_PACKAGES_FILE), ESM_PACKAGES_SOURCE);
  files.set(join(outdir, 'package.json'), '{ "type": "commonjs" }\n');
  return files;
}
