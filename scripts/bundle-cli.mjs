// Bundles the CLI that bin/agentctl.js runs, for a shorter start-up: esbuild takes tsc's output in
// dist/cli/main.js and writes dist/cli-bundle/, split at each command's dynamic import, so a command
// reads a few files instead of ~200 small modules (zod alone is 99). esbuild splits ES modules only;
// the files are then written as CommonJS, which Node starts faster (commonjs-chunks.mjs). Run by
// `npm run build` after tsc; the library (dist/index.js, its .d.ts) stays tsc's plain output.
//
// Bundled: our code and the pure-JS dependencies (commander, zod, ulid, chalk, the LevelDB stack
// `level` → `classic-level` → `abstract-level` …). The terminal UI's packages (ink, react and all
// they use) are bundled apart, into one ES module loaded only when the UI opens (packages.mjs, see
// UI_PACKAGES). Left as plain imports: classic-level's native addon (found by
// src/tape/level-binding.ts, see levelNativeBinding below) and the OpenAI SDK (a peer dependency,
// loaded only for live calls). Every output file sits in the one directory, so `new
// URL('../../package.json', import.meta.url)` in the CLI finds package.json from any of them, as it
// does from dist/cli/.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { commonJsChunks, PACKAGE_BUNDLE_FILE } from './commonjs-chunks.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * zod's `z.locales` namespace holds its error messages in some 40 languages (half of zod's size:
 * ~370 KB that every replay would parse). agentctl never switches zod's language and words its own
 * errors, so the bundle keeps English — the locale zod itself sets by default — and no other.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer) ? { path: join(dirname(args.importer), args.path), namespace: 'zod-locales' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(join(dirname(args.path), 'en.js'))};`,
      resolveDir: dirname(args.path),
    }));
  },
};

/**
 * The LevelDB stack is some 40 small CommonJS files; bundled, opening the store reads one chunk
 * instead, which shortens `agentctl show`. Only classic-level's native addon is still found in
 * node_modules, relative to classic-level's own package directory (which a bundled copy would not
 * have), the way Node would find it unbundled — from the `level` package, whose dependency
 * classic-level is — so it is found wherever npm put it (hoisted, or nested under
 * level/node_modules). src/tape/level-binding.ts says how.
 */
const levelNativeBinding = {
  name: 'level-native-binding',
  setup(b) {
    b.onResolve({ filter: /^\.\/binding(\.js)?$/ }, (args) =>
      /[\\/]node_modules[\\/]classic-level[\\/]/.test(args.importer) ? { path: 'classic-level/binding.js', namespace: 'level-native-binding' } : undefined,
    );
    // dist/tape/level-binding.js (src/tape/level-binding.ts) loads it: the addon classic-level ships
    // for this platform directly when nothing could make node-gyp-build pick another, else through it.
    b.onLoad({ filter: /.*/, namespace: 'level-native-binding' }, () => ({
      contents: "module.exports = require('./level-binding.js').loadLevelBinding();\n",
      loader: 'js',
      resolveDir: join(root, 'dist', 'tape'),
    }));
  },
};
/**
 * Built-in modules that a bundled package loads when it loads, for a path agentctl seldom or never
 * takes: the package gets a stand-in that loads the real module when a member of it is first read
 * (a call, as these packages use them), so every path still works and the common ones start sooner.
 *   - commander loads `node:child_process` for its executable subcommands (`git`-style
 *     `program-sub` files), which agentctl has none of; it brings `net`, `dgram` and the stream
 *     machinery with it, milliseconds of every command.
 *   - classic-level loads `node:fs/promises` to create a store's directory when it is missing, which
 *     `ls` and `show` (a store that exists) never need: a millisecond or two of theirs.
 */
const LAZY_BUILTINS = [
  { importer: 'commander', module: 'child_process' },
  { importer: 'classic-level', module: 'fs/promises' },
];
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(b) {
    for (const { importer, module } of LAZY_BUILTINS) {
      const specifier = new RegExp(`^(node:)?${module.replace('/', '\\/')}$`);
      const from = new RegExp(`[\\\\/]node_modules[\\\\/]${importer}[\\\\/]`);
      b.onResolve({ filter: specifier }, (args) => (from.test(args.importer) ? { path: module, namespace: 'lazy-builtin' } : undefined));
    }
    b.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, (args) => ({
      contents: `module.exports = new Proxy({}, { get: (_, name) => require('node:${args.path}')[name] });\n`,
      loader: 'js',
    }));
  },
};
const outdir = join(root, 'dist', 'cli-bundle');

/**
 * The terminal UI's packages: Ink and React (one React for Ink and the components). Node would load
 * them as some 580 files of ES modules and CommonJS, resolving each and scanning every CommonJS file
 * for its exports (react-reconciler alone is 0.5 MB): 0.45–0.7 s before the UI's first frame on a
 * 2-core machine. Bundled into one ES module (ES modules: yoga's WebAssembly is loaded with a
 * top-level await), they load in 0.1–0.15 s. Which React build runs is still chosen when they load,
 * from NODE_ENV (src/tui/index.ts sets it first), as each package's own entry does.
 */
const UI_PACKAGES = /^(ink|react)(\/|$)/;

/**
 * Ink imports react-devtools-core (not installed: an optional tool) only when DEV=true; unbundled,
 * that import fails and Ink says how to install it. The bundle fails it the same way.
 */
const devtoolsAbsent = {
  name: 'devtools-absent',
  setup(b) {
    b.onResolve({ filter: /^react-devtools-core$/ }, () => ({ path: 'react-devtools-core', namespace: 'devtools-absent' }));
    b.onLoad({ filter: /.*/, namespace: 'devtools-absent' }, () => ({
      contents: "throw Object.assign(new Error(\"Cannot find package 'react-devtools-core'\"), { code: 'ERR_MODULE_NOT_FOUND' });\n",
      loader: 'js',
    }));
  },
};

/**
 * With DEV=true Ink reads its own package.json, beside its files (`new URL('../package.json',
 * import.meta.url)`), which the bundle is not: the bundle carries the text instead.
 */
const inkPackageJson = {
  name: 'ink-package-json',
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/]ink[\\/]build[\\/]reconciler\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const read = "fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')";
      if (!source.includes(read)) throw new Error(`${args.path} no longer reads its package.json as the bundle expects: see inkPackageJson`);
      const text = await readFile(join(dirname(args.path), '..', 'package.json'), 'utf8');
      return { contents: source.replace(read, JSON.stringify(text)), loader: 'js' };
    });
  },
};

/** The bundle of packages: one ES module exporting each of `specifiers` (their namespaces) by name. */
async function packageBundle(specifiers) {
  const entry = [
    ...specifiers.map((specifier, i) => `import * as p${i} from ${JSON.stringify(specifier)};`),
    `export const packages = { ${specifiers.map((specifier, i) => `${JSON.stringify(specifier)}: p${i}`).join(', ')} };`,
  ].join('\n');
  const built = await build({
    absWorkingDir: root,
    stdin: { contents: entry, resolveDir: root, sourcefile: PACKAGE_BUNDLE_FILE, loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // The CommonJS files among them require Node's built-ins.
    banner: { js: "import { createRequire as __agentctlCreateRequire } from 'node:module';\nconst require = __agentctlCreateRequire(import.meta.url);" },
    plugins: [devtoolsAbsent, inkPackageJson],
    write: false,
    logLevel: 'warning',
  });
  return built.outputFiles[0].text;
}

/**
 * The build's identity: a digest of the compiled code the bundle is made of (dist/, the bundle
 * aside) and the package's version. The cache of tape files already checked (src/cli/tape-cache.ts)
 * keys its entries by it, so a build whose checks may differ — another version, or the same version
 * changed — never trusts another build's entries.
 */
async function buildId() {
  const hash = createHash('sha256');
  const files = (await readdir(join(root, 'dist'), { recursive: true }))
    .filter((file) => file.endsWith('.js') && !file.startsWith('cli-bundle'))
    .sort();
  for (const file of files) hash.update(`${file}\0`).update(await readFile(join(root, 'dist', file))).update('\0');
  hash.update(JSON.parse(await readFile(join(root, 'package.json'), 'utf8')).version);
  return hash.digest('hex');
}

const result = await build({
  absWorkingDir: root,
  entryPoints: ['dist/cli/main.js'],
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['ink', 'ink/*', 'react', 'react/*', 'openai', 'openai/*', 'agentctl'],
  plugins: [zodEnglishOnly, levelNativeBinding, lazyBuiltins],
  define: { AGENTCTL_BUILD_ID: JSON.stringify(await buildId()) },
  metafile: true,
  // Written as CommonJS below (commonjs-chunks.mjs), not as esbuild splits it (ES modules).
  write: false,
  logLevel: 'warning',
});
const files = await commonJsChunks(result, root, outdir, (specifier) => UI_PACKAGES.test(specifier));
const uiSpecifiers = [...new Set(Object.values(result.metafile.outputs).flatMap((output) => output.imports))]
  .filter((entry) => entry.external && UI_PACKAGES.test(entry.path))
  .map((entry) => entry.path);
files.set(join(outdir, PACKAGE_BUNDLE_FILE), await packageBundle([...new Set(uiSpecifiers)].sort()));
await mkdir(outdir, { recursive: true });
for (const [file, text] of files) await writeFile(file, text);

// Chunk names carry a content hash. Files of earlier builds are left for a while rather than
// deleted at once, so that an agentctl already running (a proxy, a test run) can still load the
// chunks it has not loaded yet when the package is rebuilt under it; after an hour they go.
const written = new Set(files.keys());
const hourAgo = Date.now() - 60 * 60 * 1000;
for (const name of await readdir(outdir)) {
  const file = join(outdir, name);
  if (!written.has(file) && (await stat(file)).mtimeMs < hourAgo) await rm(file, { force: true });
}
