/**
 * No secret reaches a tape, a log or a printed line. One real recording through the binary, against
 * the scripted model server, carries every sample of every built-in rule and every common shape of
 * secret (made at test time: test-support/secrets.ts) in every place a run writes text: the task
 * (inside a line), a model error's body, the model's streamed answer (each secret cut across chunks),
 * a tool call's JSON arguments (each at the start of a line of a file's content, after an escaped
 * line break), a tool's output (a file read back, a key block's lines as a search prints them), and a
 * secret-named environment value holding a quote and a backslash. Then every byte of the store
 * directory, every value the store holds, an exported tape, the printed NDJSON and the printed text
 * of a replay are searched for each secret, as written and as JSON writes it. The recorded tape then
 * replays offline and reproduces: hashes and call keys are taken over the redacted form.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMON_SECRETS, RULE_SAMPLES } from '../src/core/test-support/secrets.js';
import type { Sample } from '../src/core/test-support/sample-template.js';
import { TapeStore } from '../src/tape/tape-store.js';
import { runCli } from './support/cli.js';
import { startMockLlm } from './support/mock-llm.js';
import type { ScenarioStep } from './support/scenario.js';

/** A secret-named environment value that JSON text writes escaped. */
const ENV_SECRET = 'env"held\\secret-Value-0123456789';
const SAMPLES: { name: string; sample: Sample }[] = [
  ...RULE_SAMPLES.map((sample, i) => ({ name: `${sample.rule} #${i}`, sample })),
  ...Object.entries(COMMON_SECRETS).map(([name, sample]) => ({ name, sample })),
];
/** Shapes that take lines of their own, and a key block cut before its END (redacted to the end of its text). */
const lineBound = ({ name, sample }: { name: string; sample: Sample }): boolean =>
  /^(private-key-body|kubernetes-secret|private key body line)/.test(name) || sample.text.includes('\n');
/** Every sample on lines of its own, each at the start of a line. */
const LINES = SAMPLES.filter((s) => !(s.name.startsWith('private-key #') && !s.sample.text.includes('-----END')))
  .map((s, i) => `# sample ${i}\n${s.sample.text}\n`).join('\n');
/** The samples that can stand inside a line, each between words. */
const INLINE = SAMPLES.filter((s) => !lineBound(s)).map((s) => `then ${s.sample.text} and`).join(' ');

/** A secret's longest line (a key block's body). */
const longestLine = (secret: string): string => secret.split('\n').reduce((a, b) => (b.length > a.length ? b : a), '');
/** What must never be found: each secret's longest line, as written and as JSON writes it. */
const SECRETS: [string, string][] = [...SAMPLES.map(({ name, sample }): [string, string] => [name, sample.secret]), ['env secret', ENV_SECRET]];
const NEEDLES: [string, string][] = SECRETS
  .flatMap(([name, secret]): [string, string][] => [[name, longestLine(secret)], [`${name} (JSON)`, JSON.stringify(longestLine(secret)).slice(1, -1)]]);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-secrets-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function bytesUnder(root: string): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for (const entry of await readdir(root, { withFileTypes: true })) {
    const path = join(root, entry.name);
    if (entry.isDirectory()) out.push(...(await bytesUnder(path)));
    else if ((await stat(path)).isFile()) out.push(await readFile(path));
  }
  return out;
}

describe('secrets', () => {
  it('never reach the store, an exported tape or the printed events, and the run still replays', async () => {
    const workspace = join(dir, 'ws');
    await mkdir(workspace, { recursive: true });
    await writeFile(join(workspace, 'creds.txt'), LINES);
    const pem = COMMON_SECRETS['private key block'] as Sample;
    await writeFile(join(workspace, 'id_rsa'), `${pem.text}\n`);
    const streamed = `Found these in the logs: ${INLINE}.`;
    const cut = (text: string, size: number): string[] => text.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g')) ?? [];
    const steps: ScenarioStep[] = [
      // A model error whose body quotes every secret; the call is retried.
      { status: 500, body: { error: { message: `bad request: ${LINES}`, type: 'server_error' } } },
      {
        content: 'Reading the credentials, and the key as a search prints it.',
        tool_calls: [{ name: 'read_file', arguments: { path: 'creds.txt' } }, { name: 'grep_files', arguments: { pattern: '[A-Za-z0-9]', path: 'id_rsa' } }],
      },
      // Secrets in tool arguments: written into the workspace (the file gets the real value).
      { content: 'Saving them.', tool_calls: [{ name: 'write_file', arguments: { path: 'out.env', content: `PW=${ENV_SECRET}\n${LINES}` } }] },
      // Streamed, cut every 23 characters: every secret is split across chunks.
      { content: streamed, chunks: cut(streamed, 23) },
    ];
    const llm = await startMockLlm(steps);
    const store = join(dir, 'store');
    try {
      const task = `Check the credentials: ${INLINE}; and ${ENV_SECRET}.`;
      const result = await runCli(
        ['record', '--task', task, '--base-url', llm.baseURL, '--workspace', workspace, '--store', store, '--name', 'secrets', '--json', '--set', 'stream=true'],
        { env: { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, MY_SERVICE_TOKEN: ENV_SECRET }, timeoutMs: 60_000 },
      );
      expect(result.code, result.stderr).toBe(0);
      // The tool got the real value: redaction is for what is kept and shown, not for what the agent does.
      expect(await readFile(join(workspace, 'out.env'), 'utf8')).toContain(ENV_SECRET);

      const exported = join(dir, 'secrets.tape.jsonl');
      expect((await runCli(['export', 'secrets', '--store', store, '-o', exported])).code).toBe(0);
      const tape = await readFile(exported, 'utf8');
      const values: string[] = [];
      const db = await TapeStore.open(store);
      try {
        const meta = await db.resolveRun('secrets');
        values.push(JSON.stringify(meta));
        for await (const event of db.readEvents(meta.id)) values.push(JSON.stringify(event));
      } finally {
        await db.close();
      }
      const stored = values.join('\n');
      // The run did what it says: the error, the tool calls and the stream are all on the tape.
      for (const type of ['"type":"llm_error"', '"name":"grep_files"', '"name":"write_file"', '"type":"llm_chunk"']) expect(stored).toContain(type);

      const replay = await runCli(['replay', exported, '--no-save'], { env: { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined }, timeoutMs: 60_000 });
      expect(replay.code, replay.stderr).toBe(0);

      const files = await bytesUnder(store);
      const printed = { 'the printed NDJSON': result.stdout, 'the printed errors': result.stderr, 'the exported tape': tape, 'the store\'s values': stored, 'the replay\'s text': replay.stdout };
      const leaks: string[] = [];
      for (const [name, needle] of NEEDLES) {
        for (const [where, text] of Object.entries(printed)) if (text.includes(needle)) leaks.push(`${name} in ${where}`);
        if (files.some((bytes) => bytes.includes(needle))) leaks.push(`${name} in a store file`);
      }
      expect(leaks).toEqual([]);

      // No chunk of the streamed answer holds a fragment of a secret: neither its first nor its last 8 characters.
      const chunks = tape.split('\n').filter((l) => l.includes('"type":"llm_chunk"')).join('\n');
      const fragments = SAMPLES.filter((s) => !lineBound(s) && s.sample.secret.length >= 16)
        .flatMap(({ name, sample }) => [[name, sample.secret.slice(0, 8)], [name, sample.secret.slice(-8)]])
        .filter(([name, fragment]) => chunks.includes(fragment as string) && name !== undefined);
      expect(fragments).toEqual([]);
      expect(tape).toContain('[REDACTED]');

      const json = await runCli(['replay', exported, '--no-save', '--json'], { env: { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined }, timeoutMs: 60_000 });
      const summary = JSON.parse(json.stdout.trim().split('\n').at(-1) as string) as { verdict: string; firstDivergence: unknown };
      expect(summary.firstDivergence, JSON.stringify(summary.firstDivergence).slice(0, 3000)).toBeNull();
      expect(summary.verdict).toBe('reproduced');
    } finally {
      await llm.close();
    }
  }, 120_000);

  it('a --redact pattern is not written to the tape, and a bad one is a usage error everywhere', async () => {
    const llm = await startMockLlm([{ content: 'the code word is swordfish-42' }]);
    const store = join(dir, 'store-pattern');
    try {
      const result = await runCli(
        ['record', '--task', 'say the code word', '--base-url', llm.baseURL, '--store', store, '--workspace', join(dir, 'ws-pattern'), '--name', 'p', '--redact', 'swordfish-\\d+', '--json'],
        { env: { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined } },
      );
      expect(result.code, result.stderr).toBe(0);
      const exported = join(dir, 'p.tape.jsonl');
      expect((await runCli(['export', 'p', '--store', store, '-o', exported])).code).toBe(0);
      const tape = await readFile(exported, 'utf8');
      expect(tape).not.toContain('swordfish');
      expect(tape).toContain('"redact":[]');
      const replay = await runCli(['replay', exported, '--no-save', '--json']);
      expect(JSON.parse(replay.stdout.trim().split('\n').at(-1) as string)).toMatchObject({ verdict: 'reproduced' });
    } finally {
      await llm.close();
    }
    for (const args of [['record', '--task', 'x', '--base-url', 'http://127.0.0.1:9/v1', '--redact', '('], ['replay', join(dir, 'p.tape.jsonl'), '--no-save', '--redact', '('], ['replay', join(dir, 'p.tape.jsonl'), '--no-save', '--set', 'redact=["("]']]) {
      const bad = await runCli(args);
      expect(bad.code, args.join(' ')).toBe(2);
      expect(bad.stderr).not.toMatch(/\n\s+at /);
    }
  });
});
