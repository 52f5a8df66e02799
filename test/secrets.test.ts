/**
 * No secret reaches a tape, a log or a printed line. A real recording through the binary, against
 * the scripted model server, with secrets of every kind the built-in rules know in the task, in the
 * model's answers (whole, and streamed with the key cut across chunks), in tool arguments (every
 * rule's samples, each at the start of a line of a file's content: in the arguments' JSON text,
 * right after an escaped newline), in tool output and in the files the tools read — then every
 * byte of the store directory, every value the store holds, an exported tape and the printed
 * NDJSON are searched for each secret. The recorded tape then replays offline and reproduces:
 * hashes and call keys are taken over the redacted form.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RULE_SAMPLES, SAMPLE_SECRETS } from '../src/core/test-support/secrets.js';
import { TapeStore } from '../src/tape/tape-store.js';
import { runCli } from './support/cli.js';
import { startMockLlm } from './support/mock-llm.js';
import type { ScenarioStep } from './support/scenario.js';

const PEM = ['-----BEGIN OPENSSH PRIVATE KEY-----', 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW', '-----END OPENSSH PRIVATE KEY-----'].join('\n');
const ENV_SECRET = 'env-held-secret-value-0123456789';
const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const S = SAMPLE_SECRETS;
/** Every rule's samples, each on lines of its own. */
const SAMPLES = RULE_SAMPLES.map((sample, i) => `# sample ${i}\n${sample.text}\n`).join('\n');
/** Every secret of the run and the part of it that must never be found (the key without its prefix word). */
const ALL: Record<string, string> = {
  ...Object.fromEntries(RULE_SAMPLES.flatMap((sample, i) => [sample.secret ?? sample.text, ...(sample.also ?? [])].map((secret, j) => [`${sample.rule} #${i}.${j}`, secret]))),
  pem: PEM, 'env secret': ENV_SECRET, 'aws secret': AWS_SECRET,
};
/** A secret's longest line (a key block's body), without a scheme word before it. */
const needle = (secret: string): string =>
  secret.split('\n').reduce((a, b) => (b.length > a.length ? b : a)).replace(/^(bearer|basic) /i, '');

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
    await writeFile(join(workspace, 'creds.txt'), `jwt=${S.jwt}\n${PEM}\ngoogle ${S['google api key']}\n${SAMPLES}`);
    const streamed = `Found the slack token ${S['slack bot token']} and ${S['stripe secret key']} in the logs.`;
    const cut = (text: string, size: number): string[] => text.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g')) ?? [];
    const steps: ScenarioStep[] = [
      { content: `Reading with ${S['bearer token in lower case']}`, tool_calls: [{ name: 'read_file', arguments: { path: 'creds.txt' } }] },
      // Secrets in tool arguments: written into the workspace (the file gets the real value).
      {
        content: `Saving ${S['github classic token']}`,
        tool_calls: [{ name: 'write_file', arguments: { path: 'out.env', content: `AWS=AKIAIOSFODNN7EXAMPLE:${AWS_SECRET}\nOPENAI=${S['openai key']}\n${SAMPLES}` } }],
      },
      // Streamed, each key cut across chunks of 7 characters.
      { content: streamed, chunks: cut(streamed, 7) },
    ];
    const llm = await startMockLlm(steps);
    const store = join(dir, 'store');
    try {
      const task = `Check the credentials. My token is ${S['github fine-grained token']} and ${S['basic auth']}; also ${S['aws access key id']}.`;
      const result = await runCli(
        ['record', '--task', task, '--base-url', llm.baseURL, '--workspace', workspace, '--store', store, '--name', 'secrets', '--json', '--set', 'stream=true'],
        { env: { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, MY_SERVICE_TOKEN: ENV_SECRET } },
      );
      expect(result.code, result.stderr).toBe(0);
      // The tool got the real value: redaction is for what is kept and shown, not for what the agent does.
      expect(await readFile(join(workspace, 'out.env'), 'utf8')).toContain(AWS_SECRET);

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
      const files = await bytesUnder(store);
      for (const [kind, secret] of Object.entries(ALL)) {
        const part = needle(secret);
        expect(result.stdout, `${kind} printed`).not.toContain(part);
        expect(tape, `${kind} in the exported tape`).not.toContain(part);
        expect(values.join('\n'), `${kind} in the store's values`).not.toContain(part);
        for (const bytes of files) expect(bytes.includes(part), `${kind} in a store file`).toBe(false);
      }
      // The chunks of the streamed answer hold no fragment of a key either (the 8 characters before each key's end).
      const chunks = tape.split('\n').filter((l) => l.includes('"type":"llm_chunk"')).join('\n');
      for (const secret of [S['slack bot token'], S['stripe secret key']]) expect(chunks).not.toContain((secret as string).slice(-8));
      expect(tape).toContain('[REDACTED]');

      const replay = await runCli(['replay', exported, '--no-save', '--json'], { env: { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined } });
      expect(replay.code, replay.stderr).toBe(0);
      const summary = JSON.parse(replay.stdout.trim().split('\n').at(-1) as string) as { verdict: string; firstDivergence: unknown };
      expect(summary.firstDivergence).toBeNull();
      expect(summary.verdict).toBe('reproduced');
    } finally {
      await llm.close();
    }
  });

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
