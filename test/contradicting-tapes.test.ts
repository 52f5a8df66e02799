/**
 * A tape that contradicts itself is refused by every reader of the real binary — import, view,
 * replay, ci — with exit 9 and the file and line at fault: a header whose task, model, seed or
 * config is not its run_start's, a header that cannot be true on its own (a date that is not one, a
 * `recording` file, a replay of nothing, a recording of something, a base URL holding a key), steps
 * that go back where a replay no longer looks, and keys that are JavaScript's object machinery.
 * Each tape is the golden demo tape with one thing changed.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';

const DEMO = fileURLToPath(new URL('../tapes/demo-loop.tape.jsonl', import.meta.url));
const env = { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, AGENTCTL_STORE: undefined };
const KEY = 'sk-proj-AbCdEfGhIjKlMnOpQrStUv0123456789';

type Json = Record<string, unknown>;
interface Tape {
  header: { run: Json } & Json;
  events: Json[];
}

let dir: string;
let demo: Tape;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-contradicting-'));
  const [header = '', ...events] = (await readFile(DEMO, 'utf8')).trim().split('\n');
  demo = { header: JSON.parse(header) as Tape['header'], events: events.map((line) => JSON.parse(line) as Json) };
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The event of the demo tape with this seq (its line is seq + 2). */
const at = (tape: Tape, seq: number): Json => tape.events[seq] as Json;
const firstOf = (tape: Tape, type: string): number => tape.events.findIndex((event) => event.type === type);
/** An own key, as JSON.parse makes one (an assignment to `__proto__` would set the prototype). */
const own = (object: Json, key: string, value: unknown): void =>
  void Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });

interface Case {
  name: string;
  change: (tape: Tape) => void;
  /** The line at fault, from the changed tape. */
  line: (tape: Tape) => number;
  message: RegExp;
}

const CASES: Case[] = [
  { name: 'a header task that is not run_start\'s', change: (t) => void (t.header.run.task = 'something else'), line: () => 2, message: /run_start's task .* is not the header's/ },
  { name: 'a header model that is not run_start\'s', change: (t) => void (t.header.run.model = 'other-model'), line: () => 2, message: /run_start's model/ },
  { name: 'a header seed that is not run_start\'s', change: (t) => void (t.header.run.seed = 7), line: () => 2, message: /run_start's seed \(42\) is not the header's \(7\)/ },
  {
    name: 'a header config that is not run_start\'s',
    change: (t) => void ((t.header.run.config as { guardrails: Json }).guardrails.identicalCallBlock = 9),
    line: () => 2,
    message: /run_start's config is not the header's/,
  },
  { name: 'a createdAt that is not a date', change: (t) => void (t.header.run.createdAt = 'not a date'), line: () => 1, message: /createdAt "not a date" is not a date and time/ },
  { name: 'a finished tape whose header says recording', change: (t) => void (t.header.run.status = 'recording'), line: () => 1, message: /status 'recording'/ },
  { name: 'a replay without a parentId', change: (t) => void (t.header.run.kind = 'replay'), line: () => 1, message: /a replay without a parentId/ },
  { name: 'a recording with a parentId', change: (t) => void (t.header.run.parentId = '01M829WHD5AHQNF10KG7NN9BR8'), line: () => 1, message: /a record with a parentId/ },
  { name: 'a baseUrl with credentials', change: (t) => void (t.header.run.baseUrl = `http://user:${KEY}@evil.example/v1`), line: () => 1, message: /baseUrl holds credentials/ },
  {
    name: 'steps that go back after an event ahead of its step (where a replay no longer looks)',
    // A checkpoint of step 0 said to be of step 5: step 1's first event then goes back.
    change: (t) => void (at(t, firstOf(t, 'checkpoint')).step = 5),
    line: (t) => firstOf(t, 'checkpoint') + 3,
    message: /goes back from step 5 to 1/,
  },
  {
    name: 'a __proto__ key in the recorded config',
    change: (t) => {
      own(at(t, 0).config as Json, '__proto__', { polluted: true });
      own(t.header.run.config as Json, '__proto__', { polluted: true });
    },
    line: () => 1,
    message: /a key named "__proto__" \(at run\.config\.__proto__\)/,
  },
  {
    name: 'a __proto__ key in a checkpoint',
    change: (t) => own(at(t, firstOf(t, 'checkpoint')).guardrails as Json, '__proto__', { x: 1 }),
    line: (t) => firstOf(t, 'checkpoint') + 2,
    message: /a key named "__proto__" \(at guardrails\.__proto__\)/,
  },
  {
    name: 'a constructor key in a decision\'s counters',
    change: (t) => void (((at(t, firstOf(t, 'guardrail')).counters as Json).after as Json)['constructor'] = 1),
    line: (t) => firstOf(t, 'guardrail') + 2,
    message: /a key named "constructor" \(at counters\.after\.constructor\)/,
  },
];

/** The demo tape with `change` made, written under `name`: its path. */
async function changed(name: string, change: (tape: Tape) => void): Promise<{ path: string; tape: Tape }> {
  const tape = structuredClone(demo);
  change(tape);
  const path = join(dir, `${name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60)}.tape.jsonl`);
  // JSON.stringify writes an own __proto__ key as a key.
  await writeFile(path, [tape.header, ...tape.events].map((value) => JSON.stringify(value)).join('\n') + '\n');
  return { path, tape };
}

describe('a tape that contradicts itself', () => {
  it('the demo tape itself passes every reader (the base of each case)', async () => {
    const { path } = await changed('unchanged', () => undefined);
    expect((await runCli(['import', path, '--store', join(dir, 'store-unchanged')], { env })).code).toBe(0);
    expect((await runCli(['replay', path, '--no-save', '--quiet'], { env })).code).toBe(0);
    expect((await runCli(['ci', path], { env })).code).toBe(0);
  });

  for (const { name, change, line, message } of CASES) {
    it(`${name}: exit 9 from import, view, replay and ci, naming file and line`, async () => {
      const { path, tape } = await changed(name, change);
      const where = `${path.slice(path.lastIndexOf('/') + 1)}:${line(tape)}`;
      const store = join(dir, `store-${where.replace(/[^a-z0-9]+/gi, '-')}`);
      for (const args of [['import', path, '--store', store], ['view', path], ['replay', path, '--no-save', '--quiet']]) {
        const result = await runCli(args, { env });
        expect(result.stderr, args[0]).toMatch(new RegExp(`^agentctl: \\S*${escape(where)}: `));
        expect(result.stderr, args[0]).toMatch(message);
        expect(result.stderr, args[0]).not.toContain(KEY);
        expect(result.code, args[0]).toBe(9);
      }
      const ci = await runCli(['ci', path], { env });
      expect(ci.stdout).toMatch(new RegExp(`INVALID +\\S*${escape(where)}\\b`));
      expect(ci.stdout).toMatch(message);
      expect(ci.stdout).not.toContain(KEY);
      expect(ci.code).toBe(9);
      // Nothing reached the store for ls or show to print.
      expect((await runCli(['ls', '--json', '--store', store], { env })).stdout.trim()).toMatch(/^\[\]$|^$/);
    });
  }
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
