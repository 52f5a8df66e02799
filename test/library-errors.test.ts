/**
 * What the library throws for a bad option: its own InvalidOptionError, with its code, naming the
 * option the caller passed — never the CLI's UsageError, never a command-line flag.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TapeMode } from '../src/core/tape-modes.js';
import { openTapeSource, prepareRun, replayRun } from '../src/entry/agent.js';
import { openStore } from '../src/entry/tape.js';
import { InvalidOptionError, replay, UsageError } from '../src/index.js';

const DEMO = fileURLToPath(new URL('../tapes/demo-loop.tape.jsonl', import.meta.url));
const noStore = (): never => {
  throw new Error('a tape file needs no store');
};
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-library-errors-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** What `call` rejects with. */
async function rejection(what: string, call: () => Promise<unknown>): Promise<unknown> {
  return call().then(
    () => {
      throw new Error(`${what}: expected a rejection`);
    },
    (error: unknown) => error,
  );
}

describe('a bad option to the library', () => {
  it('is an InvalidOptionError with code AGENTCTL_INVALID_OPTION that names the option, not a flag', async () => {
    const file = join(dir, 'a-file');
    await writeFile(file, 'x');
    const cases: [string, () => Promise<unknown>, RegExp][] = [
      ['patches', () => replay({ tape: DEMO, patches: { [-1]: 'x' } }), /^patch key '-1' is not a call number/],
      ['redact', () => replay({ tape: DEMO, redact: ['('] }), /^bad redact pattern '\('/],
      ['mode', () => replay({ tape: DEMO, mode: 'sometimes' as TapeMode }), /^mode: "sometimes" is not a mode$/],
      ['speed', async () => replayRun({ source: await openTapeSource(DEMO, noStore), speed: 0 }).next(), /^speed must be a number above 0, got 0$/],
      ['workspace', () => prepareRun({ task: 'x', workspace: file }), new RegExp(`^the workspace ${file} is not a directory$`)],
      ['store', () => openStore(file), new RegExp(`^the store ${file} is not a directory$`)],
    ];
    for (const [option, call, message] of cases) {
      const error = await rejection(option, call);
      expect(error, option).toBeInstanceOf(InvalidOptionError);
      expect(error, option).not.toBeInstanceOf(UsageError);
      expect(error, option).toMatchObject({ name: 'InvalidOptionError', code: 'AGENTCTL_INVALID_OPTION', exitCode: 2 });
      expect((error as Error).message, option).toMatch(message);
      expect((error as Error).message, option).not.toMatch(/--[a-z]/);
    }
  });
});
