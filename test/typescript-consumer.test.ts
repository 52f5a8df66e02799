/**
 * agentctl as a TypeScript consumer sees it: fixtures/ts-consumer/ is a small program that imports
 * from 'agentctl' and its subpaths (the built package, through its package.json `exports`) and its own `openai`,
 * under strict settings with module NodeNext and no skipLibCheck. It must type-check with no output:
 * what recordOpenAI/replayOpenAI return is an `OpenAI` wherever one is expected, and a recording
 * or replaying `fetch` is what `new OpenAI({ fetch })` takes.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FIXTURE = join(ROOT, 'fixtures', 'ts-consumer');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

let dir: string;

/** Run the repository's tsc on a project in the consumer directory. */
function tsc(...args: string[]): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, [TSC, ...args], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}`.trim() };
}

beforeAll(() => {
  // vitest's globalSetup builds dist/ when it is stale; the consumer reads only dist/.
  expect(existsSync(join(ROOT, 'dist', 'index.d.ts'))).toBe(true);
  dir = mkdtempSync(join(tmpdir(), 'agentctl-ts-consumer-'));
  cpSync(FIXTURE, dir, { recursive: true });
  // The consumer's node_modules: agentctl (this repository, as installed from a link), and the
  // consumer's own openai and Node types (the same copies, so `OpenAI` is one type).
  mkdirSync(join(dir, 'node_modules', '@types'), { recursive: true });
  symlinkSync(ROOT, join(dir, 'node_modules', 'agentctl'), 'dir');
  symlinkSync(join(ROOT, 'node_modules', 'openai'), join(dir, 'node_modules', 'openai'), 'dir');
  symlinkSync(join(ROOT, 'node_modules', '@types', 'node'), join(dir, 'node_modules', '@types', 'node'), 'dir');
});

afterAll(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('a TypeScript program importing agentctl', () => {
  it('resolves agentctl to the built package (dist), not the sources', () => {
    const { status, output } = tsc('-p', dir, '--listFilesOnly');
    expect(status, output).toBe(0);
    const files = output.split('\n');
    expect(files).toContain(join(ROOT, 'dist', 'index.d.ts'));
    for (const entry of ['agent', 'guardrails', 'tape']) expect(files).toContain(join(ROOT, 'dist', 'entry', `${entry}.d.ts`));
    expect(files.filter((f) => f.startsWith(join(ROOT, 'src')))).toEqual([]);
  });

  it('type-checks strictly with no output: recorded and replayed clients are OpenAI clients', () => {
    const { status, output } = tsc('-p', dir, '--noEmit');
    expect(output).toBe('');
    expect(status).toBe(0);
  }, 60_000);

  it('is a real check: a misuse in the same setup is an error', () => {
    // If 'agentctl' resolved to `any`, this would pass: it must not.
    writeFileSync(join(dir, 'misuse.mts'), [
      "import OpenAI from 'openai';",
      "import { recordOpenAI, replay } from 'agentctl';",
      'function needsClient(client: OpenAI): void { void client; }',
      'needsClient(recordOpenAI);',
      'export const rep = replay({ tape: 7 });',
      '',
    ].join('\n'));
    writeFileSync(join(dir, 'tsconfig.misuse.json'), JSON.stringify({
      extends: './tsconfig.json',
      compilerOptions: { skipLibCheck: true },
      files: ['misuse.mts'],
    }));
    const { status, output } = tsc('-p', join(dir, 'tsconfig.misuse.json'), '--noEmit');
    expect(status).not.toBe(0);
    expect(output).toMatch(/misuse\.mts\(4,\d+\): error TS2345: .*not assignable to parameter of type 'OpenAI'/);
    expect(output).toMatch(/misuse\.mts\(5,\d+\): error TS2322: Type 'number' is not assignable/);
  }, 60_000);
});
