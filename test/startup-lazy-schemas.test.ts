/**
 * Start-up cost: zod's schemas are loaded when a value needs them, not when a module that
 * may need them is. The tools' argument schemas (src/tools/arg-schemas.ts), a custom tools module's
 * schema (custom-tool-schema.ts) and the patch schema (src/replay/patches.ts) are chunks of their own
 * in the CLI bundle, and a recorded config that passes the quick check is read without the config
 * schema; so a --no-save replay of a valid tape loads no zod at all, and neither do `--help`, `ls`
 * and `show`. The trace is shown to see a schema chunk when a value does need it (a bad file
 * patch, which the schema refuses).
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli, type CliResult } from './support/cli.js';
import { traced as runTraced } from './support/traced.js';

const DEMO = fileURLToPath(new URL('../tapes/demo-loop.tape.jsonl', import.meta.url));
const CANCELLED = fileURLToPath(new URL('../tapes/cancelled.tape.jsonl', import.meta.url));
const TRACE = fileURLToPath(new URL('./support/trace-bundle-chunks.mjs', import.meta.url));
const TRACE_PACKAGES = fileURLToPath(new URL('./support/trace-package-imports.mjs', import.meta.url));
const BUNDLE = fileURLToPath(new URL('../dist/cli-bundle/', import.meta.url));
const UNBUNDLED = new URL('../dist/cli/main.js', import.meta.url).href;
const LAZY_SCHEMAS = /^CHUNK-LOADED (arg-schemas|custom-tool-schema|patches)-[^ ]*\.js$/m;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-lazy-schemas-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('start-up: zod schemas are loaded only when a value needs them', () => {
  it('a --no-save replay of a valid tape loads no tool argument, custom tool or patch schema', async () => {
    for (const tape of [DEMO, CANCELLED]) {
      const result = await traced(['replay', tape, '--no-save', '--quiet', '--patch', '0=text needs no schema', '--store', join(dir, 'no-store')]);
      expect(result.code, `${tape}: ${result.stderr}`).toBe(0);
      expect(result.stderr).toMatch(/^CHUNK-LOADED main\.js$/m);
      expect(result.stderr, tape).not.toMatch(LAZY_SCHEMAS);
      expect(zodChunks(result.stderr), tape).toEqual([]);
    }
  });

  it('on that replay, no module imports zod (tsc output, which shows who imports it)', async () => {
    const result = await traced(['replay', DEMO, '--no-save', '--quiet', '--store', join(dir, 'no-store')], { unbundled: true });
    expect(result.code, result.stderr).toBe(0);
    expect([...result.stderr.matchAll(/^PACKAGE-IMPORTER zod (\S+)$/gm)].map((m) => m[1])).toEqual([]);
  });

  it('--help, ls and show load no zod at all', async () => {
    const store = join(dir, 'store');
    expect((await runCli(['import', DEMO, '--store', store])).code).toBe(0);
    for (const args of [['--help'], ['ls'], ['show', 'demo']]) {
      const result = await traced([...args, '--store', store]);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      expect(zodChunks(result.stderr), args.join(' ')).toEqual([]);
    }
  });

  it('a file patch loads the patch schema (and zod), which refuses a bad one as before', async () => {
    const patch = join(dir, 'bad-patch.json');
    await writeFile(patch, JSON.stringify({ content: 'hi', extra: 1 }));
    const result = await traced(['replay', DEMO, '--no-save', '--quiet', '--patch', `0=@${patch}`, '--store', join(dir, 'no-store')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^CHUNK-LOADED patches-[^ ]*\.js$/m);
    expect(zodChunks(result.stderr)).not.toEqual([]);
    expect(result.stderr).toContain(`agentctl: --patch 0=@${patch}: (root): Unrecognized key: "extra"`);
  });
});

/** The loaded chunks that hold zod's code (esbuild marks each bundled file with a `// path` comment). */
function zodChunks(stderr: string): string[] {
  const loaded = [...stderr.matchAll(/^CHUNK-LOADED (\S+)$/gm)].map((m) => m[1]!);
  return loaded.filter((name) => /^\/\/ \S*node_modules\/zod\//m.test(readFileSync(join(BUNDLE, name), 'utf8')));
}

/**
 * `agentctl …args` with the chunk trace; `unbundled` runs tsc's output (dist/cli/main.js) instead of
 * the bundle, with the package trace, which names the module that imports each package.
 */
function traced(args: string[], options: { unbundled?: boolean } = {}): Promise<CliResult> {
  return options.unbundled
    ? runTraced(TRACE_PACKAGES, ['--input-type=module', '-e', `const { main } = await import(${JSON.stringify(UNBUNDLED)}); await main(['node', 'agentctl', ...process.argv.slice(1)]);`, ...args])
    : runTraced(TRACE, [BIN, ...args]);
}
