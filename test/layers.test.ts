/**
 * The layers of src/, read top-down: code in a folder imports its own folder and the folders on the
 * layers below, never a folder above it or beside it on its layer — counting type-only imports,
 * re-exports and `import()` — and no files of src/ import one another in a circle. Every import is
 * read with the TypeScript parser from the sources themselves. Tests and their support files may
 * import across the layers (a test runs its unit with real collaborators), but not in a circle.
 * Which packages a folder may import (`openai`, `level`, `ink`, `react`) is eslint's fence.
 */
import { statSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/** The layers of src/, top first: an entry is a folder of src/, or a file at its top. */
const LAYERS: readonly (readonly string[])[] = [
  ['cli', 'index.ts', 'entry'], // the entries: the binary's commands, the package's API and its subpaths
  ['tui', 'proxy', 'adapters'], // the terminal UI; `agentctl proxy`, built on the library; the guardrails' framework adapters
  ['library'], // record()/replay(), recordOpenAI/replayOpenAI, recordTool, runAgent
  ['replay'], // replay of the loop (its tape LLM) and the one replay engine
  ['llm'], // the OpenAI adapter and the model APIs on the wire
  ['tape'], // the store and tape files, and the checks of what they hold
  ['agent'], // the loop, its config and its provider runner
  ['mcp'], // the Model Context Protocol: a client of MCP servers (the loop's tools), and the record/replay of any agent's MCP traffic
  ['tools', 'guardrails'],
  ['core'],
];

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/** A file's entry of LAYERS: its folder under src/, or its own name at the top. */
const partOf = (file: string): string => file.split('/')[0] as string;
const layerOf = (part: string): number => LAYERS.findIndex((layer) => layer.includes(part));
const isTest = (file: string): boolean => /\.test\.tsx?$/.test(file) || file.split('/').includes('test-support');

/** The modules a source imports: by import and export declarations (type-only ones too), `import()`, `import('…')` types. */
function specifiersOf(fileName: string, text: string): string[] {
  const kind = fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, kind);
  const found: string[] = [];
  const named = (specifier: ts.Node | undefined): void => {
    if (specifier !== undefined && ts.isStringLiteralLike(specifier)) found.push(specifier.text);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) named(node.moduleSpecifier);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) named(node.moduleReference.expression);
    // An import() of an expression is a user's module (a custom tool's), not a file of src/: passed over.
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) named(node.arguments[0]);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) named(node.argument.literal);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The src/ file a relative specifier names (`./x.js` is ./x.ts or ./x.tsx), or undefined when it names one outside src/. */
function resolveIn(root: string, from: string, specifier: string): string | undefined {
  // Every form the sources use; an import this cannot find fails the test rather than go unread.
  const target = resolve(root, dirname(from), specifier);
  const stem = target.replace(/\.js$/, '');
  const file = [`${stem}.ts`, `${stem}.tsx`, join(target, 'index.ts'), target].find((candidate) => statSync(candidate, { throwIfNoEntry: false })?.isFile());
  if (file === undefined) throw new Error(`${from}: cannot find '${specifier}'`);
  const path = relative(root, file).split(sep).join('/');
  return path.startsWith('../') ? undefined : path;
}

type Edge = readonly [from: string, to: string];

/** Every import of one src/ file by another, as src-relative paths. */
async function readImportsInSrc(): Promise<Edge[]> {
  const files = (await readdir(SRC, { recursive: true })).map((f) => f.split(sep).join('/')).filter((f) => /\.tsx?$/.test(f) && !f.endsWith('.d.ts'));
  const edges: Edge[] = [];
  for (const file of files) {
    for (const specifier of specifiersOf(file, await readFile(join(SRC, file), 'utf8'))) {
      if (!specifier.startsWith('.')) continue; // a package: eslint's fences
      const to = resolveIn(SRC, file, specifier);
      if (to !== undefined) edges.push([file, to]);
    }
  }
  return edges;
}

let edgesInSrc: Promise<Edge[]> | undefined;
const importsInSrc = (): Promise<Edge[]> => (edgesInSrc ??= readImportsInSrc());

/** The imports that do not go down (or stay in their folder), each as a sentence. */
function againstTheLayers(edges: readonly Edge[]): string[] {
  const wrong: string[] = [];
  for (const [from, to] of edges) {
    if (isTest(from) || partOf(from) === partOf(to)) continue;
    const [above, below] = [layerOf(partOf(from)), layerOf(partOf(to))];
    if (above === -1 || below === -1) wrong.push(`${from} -> ${to}: ${above === -1 ? partOf(from) : partOf(to)} is on no layer of LAYERS`);
    else if (below <= above) wrong.push(`${from} -> ${to}: ${partOf(from)} may not import ${partOf(to)}, ${below < above ? 'a layer above it' : 'beside it'}`);
  }
  return wrong;
}

/** The circles of files (strongly connected, more than one file, or a file importing itself), each sorted. */
function circlesOf(edges: readonly Edge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const [from, to] of edges) {
    next.set(from, [...(next.get(from) ?? []), to]);
    if (!next.has(to)) next.set(to, []);
  }
  // Tarjan's algorithm.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file) as number);
    stack.push(file);
    onStack.add(file);
    for (const to of next.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file) as number, low.get(to) as number));
      } else if (onStack.has(to)) {
        low.set(file, Math.min(low.get(file) as number, index.get(to) as number));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const circle: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      circle.push(member);
    } while (member !== file);
    if (circle.length > 1 || (next.get(file) ?? []).includes(file)) circles.push(circle.sort());
  };
  for (const file of next.keys()) if (!index.has(file)) visit(file);
  return circles;
}

describe('the layers of src/', () => {
  it('every folder of src/ (and file at its top) stands on one layer', async () => {
    const parts = (await readdir(SRC, { withFileTypes: true })).map((entry) => entry.name).sort();
    expect(LAYERS.flat().sort()).toEqual(parts);
  });

  it('no code imports a folder above its own, or beside it on its layer', async () => {
    const edges = await importsInSrc();
    expect(edges.length).toBeGreaterThan(500);
    expect(againstTheLayers(edges)).toEqual([]);
  });

  it('no files of src/ import one another in a circle', async () => {
    expect(circlesOf(await importsInSrc())).toEqual([]);
  });
});

describe('the reading of imports', () => {
  it('counts type-only imports, re-exports, import() and import types', () => {
    const text = [
      "import type { A } from './a.js';",
      "import { type B } from './b.js';",
      "export { C } from './c.js';",
      "export type * from './d.js';",
      "const e = await import('./e.js');",
      "type F = typeof import('./f.js');",
      "import './g.js';",
      'const h = await import(name);',
    ].join('\n');
    expect(specifiersOf('x.ts', text)).toEqual(['./a.js', './b.js', './c.js', './d.js', './e.js', './f.js', './g.js']);
  });

  it('finds an import that goes up or sideways, and lets one go down or stay in its folder', () => {
    expect(againstTheLayers([
      ['llm/openai-llm.ts', 'replay/tape-llm.ts'],
      ['tools/tool.ts', 'guardrails/index.ts'],
      ['core/clock.ts', 'newfolder/x.ts'],
      ['replay/replay-run.ts', 'llm/openai-llm.ts'],
      ['llm/transport/wire.ts', 'llm/openai-llm.ts'],
      ['core/same-json.test.ts', 'guardrails/canonical-json.ts'],
    ])).toEqual([
      'llm/openai-llm.ts -> replay/tape-llm.ts: llm may not import replay, a layer above it',
      'tools/tool.ts -> guardrails/index.ts: tools may not import guardrails, beside it',
      'core/clock.ts -> newfolder/x.ts: newfolder is on no layer of LAYERS',
    ]);
  });

  it('finds circles of files, however long', () => {
    expect(circlesOf([['a.ts', 'b.ts'], ['b.ts', 'c.ts'], ['c.ts', 'a.ts'], ['c.ts', 'd.ts'], ['e.ts', 'e.ts'], ['f.ts', 'd.ts']])).toEqual([['a.ts', 'b.ts', 'c.ts'], ['e.ts']]);
  });
});
