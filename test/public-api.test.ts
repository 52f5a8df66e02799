/**
 * The package's public API is what docs/library.md's "Reference" lists, entry by entry, no more and
 * no less: the names each entry of package.json `exports` (`agentctl`, `agentctl/agent`, …) exports
 * at run time from the built dist/, and the type-only ones its .d.ts adds, read with the TypeScript
 * compiler through the package's own `exports` the way a consumer's compiler resolves them. And the
 * package as packed holds every file those entries name; its openai peer says what dist/ needs.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filesUnder } from './support/files.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DOC = readFileSync(join(ROOT, 'docs', 'library.md'), 'utf8');

interface ExportTarget {
  types: string;
  import: string;
  default?: string;
}
interface PackageJson {
  exports: Record<string, ExportTarget | string>;
  files: string[];
  devDependencies: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as PackageJson;

/** The package's entries: `agentctl`, `agentctl/agent`, … with the files they name. */
const ENTRIES: { specifier: string; target: ExportTarget }[] = Object.entries(PACKAGE.exports)
  .filter((entry): entry is [string, ExportTarget] => typeof entry[1] !== 'string')
  .map(([key, target]) => ({ specifier: `agentctl${key.slice(1)}`, target }));

interface Documented {
  name: string;
  type: boolean;
  line: string;
}

/** The "Reference" section of docs/library.md: per `### \`entry\`` heading, its `- \`name\` — …` items (`type Name` for a type). */
function referenceOf(doc: string): Map<string, Documented[]> {
  const start = doc.indexOf('\n## Reference\n');
  if (start < 0) throw new Error('docs/library.md has no "## Reference" section');
  const section = doc.slice(start + 1).split(/\n## /)[0] as string;
  const entries = new Map<string, Documented[]>();
  let current: Documented[] | undefined;
  for (const line of section.split('\n')) {
    const heading = /^### `([^`]+)`/.exec(line);
    if (heading !== null) {
      current = [];
      entries.set(heading[1] as string, current);
      continue;
    }
    if (!line.startsWith('- ')) continue;
    const item = /^- `(type )?([A-Za-z_$][\w$]*)` — \S/.exec(line);
    if (item === null || current === undefined) throw new Error(`docs/library.md, Reference: not an entry's item: ${line}`);
    current.push({ name: item[2] as string, type: item[1] !== undefined, line });
  }
  return entries;
}

/** What each entry exports at run time, imported by its package name in a Node process of its own. */
function runtimeExports(dir: string): Record<string, string[]> {
  const script = `const out = {};
for (const s of ${JSON.stringify(ENTRIES.map((e) => e.specifier))}) out[s] = Object.keys(await import(s)).sort();
console.log(JSON.stringify(out));`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout) as Record<string, string[]>;
}

/**
 * The types a public function's or constructor's parameters name — and, for an options object, its
 * properties' — that no entry exports: a parameter for agentctl's own use (a cache, a test's
 * limits) that a user could neither name nor mean to pass.
 */
function unexportedParameterTypes(checker: ts.TypeChecker, symbols: Map<string, ts.Symbol[]>): string[] {
  // By what the names stand for: an export under another name (`ReplayOptions as ReplayRunOptions`) counts.
  const resolve = (symbol: ts.Symbol): ts.Symbol => ((symbol.flags & ts.SymbolFlags.Alias) !== 0 ? checker.getAliasedSymbol(symbol) : symbol);
  const exported = new Set([...symbols.values()].flat().map(resolve));
  const ours = (symbol: ts.Symbol): boolean => (symbol.declarations ?? []).some((d) => d.getSourceFile().fileName.startsWith(join(ROOT, 'dist')));
  const found: string[] = [];
  const visit = (type: ts.Type, where: string, depth: number): void => {
    for (const part of type.isUnion() ? type.types : [type]) {
      // A type parameter (`<C extends OpenAIClientLike>`) is the caller's own type, not one to export; its constraint is.
      if ((part.flags & ts.TypeFlags.TypeParameter) !== 0) {
        const constraint = part.getConstraint();
        if (constraint !== undefined) visit(constraint, where, depth);
        continue;
      }
      const named = part.aliasSymbol ?? part.getSymbol();
      // A method's type is named by the method itself (`withOptions`): no type to export.
      const method = named !== undefined && (named.flags & (ts.SymbolFlags.Method | ts.SymbolFlags.Function)) !== 0 && part.aliasSymbol === undefined;
      if (named !== undefined && !method && ours(named) && !named.name.startsWith('__') && !exported.has(named)) found.push(`${where}: ${named.name}`);
      if (depth === 0 && (part.flags & ts.TypeFlags.Object) !== 0 && part.getCallSignatures().length === 0) {
        for (const property of checker.getPropertiesOfType(part)) visit(checker.getTypeOfSymbol(property), `${where}.${property.name}`, 1);
      }
    }
  };
  for (const [specifier, list] of symbols) {
    for (const symbol of list) {
      const target = resolve(symbol);
      if ((target.flags & (ts.SymbolFlags.Function | ts.SymbolFlags.Class)) === 0) continue;
      const type = checker.getTypeOfSymbol(target);
      for (const signature of [...type.getCallSignatures(), ...type.getConstructSignatures()]) {
        for (const parameter of signature.getParameters()) visit(checker.getTypeOfSymbol(parameter), `${specifier} ${symbol.name}(${parameter.name})`, 0);
      }
    }
  }
  return [...new Set(found)].sort();
}

/** Every name (value or type) each entry's declarations export, as a consumer's compiler resolves the entry. */
function declaredExports(dir: string): Record<string, string[]> {
  const file = join(dir, 'consumer.mts');
  writeFileSync(file, ENTRIES.map((e, i) => `import * as entry${i} from '${e.specifier}';\nvoid entry${i};\n`).join(''));
  const program = ts.createProgram([file], {
    module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022,
    types: ['node'], skipLibCheck: true, noEmit: true, strict: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file) as ts.SourceFile;
  const out: Record<string, string[]> = {};
  const symbols = new Map<string, ts.Symbol[]>();
  ENTRIES.forEach((entry, i) => {
    const declaration = source.statements[2 * i] as ts.ImportDeclaration;
    const symbol = checker.getSymbolAtLocation(declaration.moduleSpecifier);
    if (symbol === undefined) throw new Error(`${entry.specifier}: the compiler does not resolve it`);
    const resolved = symbol.declarations?.[0]?.getSourceFile().fileName ?? '';
    // Resolved through package.json `exports` to the built declarations, not the sources.
    expect(resolved, entry.specifier).toBe(join(ROOT, entry.target.types));
    symbols.set(entry.specifier, checker.getExportsOfModule(symbol));
    out[entry.specifier] = (symbols.get(entry.specifier) ?? []).map((s) => s.name).sort();
  });
  parameterLeaks = unexportedParameterTypes(checker, symbols);
  return out;
}

let dir: string;
let runtime: Record<string, string[]>;
let declared: Record<string, string[]>;
let parameterLeaks: string[];

beforeAll(() => {
  // A consumer's node_modules: agentctl (this repository, built by vitest's global setup) and the
  // peer its declarations name.
  dir = mkdtempSync(join(tmpdir(), 'agentctl-public-api-'));
  mkdirSync(join(dir, 'node_modules', '@types'), { recursive: true });
  symlinkSync(ROOT, join(dir, 'node_modules', 'agentctl'), 'dir');
  symlinkSync(join(ROOT, 'node_modules', 'openai'), join(dir, 'node_modules', 'openai'), 'dir');
  symlinkSync(join(ROOT, 'node_modules', '@types', 'node'), join(dir, 'node_modules', '@types', 'node'), 'dir');
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  runtime = runtimeExports(dir);
  declared = declaredExports(dir);
}, 120_000);

afterAll(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('docs/library.md, "Reference"', () => {
  it('has a section for each entry of package.json `exports`, and no other', () => {
    expect([...referenceOf(DOC).keys()].sort()).toEqual(ENTRIES.map((e) => e.specifier).sort());
    expect(ENTRIES.map((e) => e.specifier)).toEqual(expect.arrayContaining(['agentctl', 'agentctl/agent', 'agentctl/guardrails', 'agentctl/tape']));
  });

  it('lists exactly the values each entry exports at run time', () => {
    for (const { specifier } of ENTRIES) {
      const documented = (referenceOf(DOC).get(specifier) ?? []).filter((d) => !d.type).map((d) => d.name).sort();
      expect(documented, `${specifier}: documented values vs dist`).toEqual(runtime[specifier]);
    }
  });

  it('lists exactly the types each entry exports besides its values, each once', () => {
    for (const { specifier } of ENTRIES) {
      const items = referenceOf(DOC).get(specifier) ?? [];
      const values = new Set(runtime[specifier]);
      const typesOnly = (declared[specifier] ?? []).filter((name) => !values.has(name));
      expect(items.filter((d) => d.type).map((d) => d.name).sort(), `${specifier}: documented types vs .d.ts`).toEqual(typesOnly);
      // Every value has its declaration (a class is both: listed once, as a value).
      expect(declared[specifier], specifier).toEqual(expect.arrayContaining([...values]));
      const names = items.map((d) => d.name);
      expect(names.filter((name, i) => names.indexOf(name) !== i), specifier).toEqual([]);
    }
  });

  it('no public function or constructor takes a parameter of a type the package does not export', () => {
    expect(parameterLeaks).toEqual([]);
  });

  it('reads a section the way it is meant: values, types, and a line that is not an item fails', () => {
    const doc = ['# x', '## Reference', '### `agentctl`', 'Prose.', '- `record` — starts a recording', '- `type RunMeta` — a run', '## Next', '- `outside` — ignored'].join('\n');
    expect(referenceOf(doc)).toEqual(new Map([['agentctl', [
      { name: 'record', type: false, line: '- `record` — starts a recording' },
      { name: 'RunMeta', type: true, line: '- `type RunMeta` — a run' },
    ]]]));
    expect(() => referenceOf('# x\n## Reference\n### `agentctl`\n- `record`\n')).toThrow(/not an entry's item/);
  });
});

describe('the package', () => {
  it('packs every file package.json `exports` names, and the binary', () => {
    // --ignore-scripts: the listing, without `prepare` building dist/ again.
    const result = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
    expect(result.status, result.stderr).toBe(0);
    const [packed] = JSON.parse(result.stdout) as [{ files: { path: string }[] }];
    const paths = packed.files.map((f) => f.path);
    const named = ENTRIES.flatMap(({ target }) => [target.types, target.import]).map((p) => p.replace(/^\.\//, ''));
    expect(named).toEqual(expect.arrayContaining(['dist/entry/agent.js', 'dist/entry/guardrails.d.ts', 'dist/entry/tape.js']));
    expect(paths).toEqual(expect.arrayContaining([...named, 'bin/agentctl.js', 'package.json']));
    expect(paths.filter((p) => /^(src|test)\//.test(p))).toEqual([]);
  }, 120_000);

  it('can be required from CommonJS (Node 20.19+ and 22.12+ require() an ES module): every entry, the values import gives', () => {
    for (const { specifier, target } of ENTRIES) expect(target.default, `${specifier}: a "default" condition beside "import"`).toBe(target.import);
    const script = `const out = {};
for (const s of ${JSON.stringify(ENTRIES.map((e) => e.specifier))}) out[s] = Object.keys(require(s)).sort();
console.log(JSON.stringify(out));`;
    writeFileSync(join(dir, 'required.cjs'), script);
    // A top-level await anywhere in an entry's graph would make require() throw ERR_REQUIRE_ASYNC_MODULE.
    const result = spawnSync(process.execPath, [join(dir, 'required.cjs')], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(runtime);
  });

  it('takes openai 6 and 7 as its peer; optional only when nothing in dist/ imports openai at run time', async () => {
    expect(PACKAGE.peerDependencies?.['openai']).toBe('^6.0.0 || ^7.0.0');
    const files = (await filesUnder(join(ROOT, 'dist'))).filter((f) => /\.[cm]?js$/.test(f));
    const importers = files.filter((f) => /(\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)["']openai(\/[^"']*)?["']/.test(readFileSync(f, 'utf8')));
    expect(PACKAGE.peerDependenciesMeta?.['openai']?.optional === true, `dist/ files importing openai: ${importers.join(', ')}`).toBe(importers.length === 0);
  });
});
