/**
 * `agentctl run -- <command>` end to end: the real binary runs real programs — a Node agent on the
 * real `openai` package, and a plain `node:http` client standing for "any language" — against the
 * scripted model server on 127.0.0.1; records them onto a tape file or a run, replays them with the
 * server stopped, and exits with the command's code, or 7 when the command departs from the tape
 * (the summary naming the field), or 8 when it asks for more than the tape has. SIGINT reaches the
 * command and leaves no process behind.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli, type CliResult } from './support/cli.js';
import { startMockLlm } from './support/mock-llm.js';
import { startUpstream } from './support/upstream.js';

const OPENAI_KEY = 'sk-run-test-marker-5b8e1f0c2d7a9e3b';
const ANTHROPIC_KEY = 'sk-ant-run-test-marker-9c4d2e7f1a3b';
const BASE_ENV = {
  OPENAI_BASE_URL: undefined, OPENAI_API_KEY: undefined, ANTHROPIC_BASE_URL: undefined, ANTHROPIC_API_KEY: undefined,
  AGENTCTL_MODE: undefined, AGENTCTL_STORE: undefined,
};

let dir: string;
let store: string;
let agent: string;
let plain: string;
let tape: string;

/** A Node agent on the real openai SDK: a plain call with the question in argv[2], then (unless AGENT_ONE) a streamed one (a third with AGENT_EXTRA). */
const AGENT = (openai: string): string => `
import OpenAI from ${JSON.stringify(openai)};
const client = new OpenAI({ maxRetries: 0 });
const ask = async (content, stream) => {
  if (!stream) return (await client.chat.completions.create({ model: 'mock-model', messages: [{ role: 'user', content }] })).choices[0].message.content;
  let text = '';
  for await (const chunk of await client.chat.completions.create({ model: 'mock-model', stream: true, messages: [{ role: 'user', content }] })) text += chunk.choices[0]?.delta.content ?? '';
  return text;
};
try {
  console.log('answer: ' + await ask(process.argv[2] ?? 'what is 2+2?', false));
  if (process.env.AGENT_ONE) process.exit(0);
  console.log('streamed: ' + await ask('count to three', true));
  if (process.env.AGENT_EXTRA) console.log('extra: ' + await ask('one more', false));
} catch (error) {
  console.error('agent failed: ' + error.message);
  process.exit(1);
}
process.exit(Number(process.env.AGENT_EXIT ?? 0));
`;

/** Any program that speaks HTTP: node:http only, base URLs from the environment, an OpenAI call and an Anthropic one. */
const PLAIN = `
import { request } from 'node:http';
const post = (url, headers, body) => new Promise((resolve, reject) => {
  const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
    let text = '';
    res.setEncoding('utf8').on('data', (d) => (text += d)).on('end', () => resolve(res.statusCode + ' ' + text));
  });
  req.on('error', reject);
  req.end(JSON.stringify(body));
});
console.log('openai: ' + await post(process.env.OPENAI_BASE_URL + '/chat/completions', { authorization: 'Bearer ' + process.env.OPENAI_API_KEY },
  { model: 'mock-model', messages: [{ role: 'user', content: 'plain hello' }] }));
console.log('anthropic: ' + await post(process.env.ANTHROPIC_BASE_URL + '/v1/models-check', {}, { probe: true }).then(() => post(process.env.ANTHROPIC_BASE_URL + '/v1/messages/count_tokens',
  { 'x-api-key': process.env.ANTHROPIC_API_KEY, 'anthropic-version': '2023-06-01' }, { model: 'claude-test', messages: [{ role: 'user', content: 'count me' }] })));
`;

const run = (args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> =>
  runCli(['--store', store, 'run', ...args], { env: { ...BASE_ENV, ...env }, timeoutMs: 30_000 });

const lastLine = (text: string): string => text.trim().split('\n').at(-1) as string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-run-'));
  store = join(dir, 'store');
  tape = join(dir, 'tapes', 'agent.tape.jsonl');
  agent = join(dir, 'agent.mjs');
  plain = join(dir, 'plain.mjs');
  const openai = pathToFileURL(createRequire(import.meta.url).resolve('openai')).href;
  await writeFile(agent, AGENT(openai));
  await writeFile(plain, PLAIN);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('agentctl run', () => {
  it('records a Node agent on the openai SDK onto a tape file, its output and key its own, the key kept off the tape', async () => {
    const llm = await startMockLlm([{ content: 'It is 4.' }, { content: 'one two three' }]);
    try {
      const result = await run(['--record', tape, '--', process.execPath, agent], { OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: OPENAI_KEY });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe('answer: It is 4.\nstreamed: one two three\n');
      expect(lastLine(result.stderr)).toBe(`agentctl run: recorded 2 model calls onto ${tape}; the command exited 0`);
      llm.assertConsumed();
      for (const request of llm.requests) expect(request.headers['authorization']).toBe(`Bearer ${OPENAI_KEY}`);
    } finally {
      await llm.close();
    }
    const text = await readFile(tape, 'utf8');
    expect(text).toContain('It is 4.');
    expect(text).not.toContain(OPENAI_KEY);
    expect(text).not.toContain(OPENAI_KEY.slice(6));
  });

  it('replays it with the model server gone: the same output, every call served, exit 0', async () => {
    const result = await run(['--replay', tape, '--', process.execPath, agent]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('answer: It is 4.\nstreamed: one two three\n');
    expect(lastLine(result.stderr)).toBe(`agentctl run: served 2 of 2 recorded calls from ${tape}, 0 divergences; the command exited 0`);
  });

  it('exits with the command\'s own code', async () => {
    const result = await run(['--replay', tape, '--', process.execPath, agent], { AGENT_EXIT: '3' });
    expect(result.code, result.stderr).toBe(3);
    expect(lastLine(result.stderr)).toContain('0 divergences; the command exited 3');
  });

  it('exits 7 when the command sends a changed request, the summary naming the field', async () => {
    const result = await run(['--replay', tape, '--', process.execPath, agent, 'what is 3+3?']);
    expect(result.code, result.stderr).toBe(7);
    expect(result.stderr).toContain('agent failed: 400');
    const summary = lastLine(result.stderr);
    expect(summary).toContain(`served 0 of 2 recorded calls from ${tape}, 1 divergence (first: request 0 differs from recorded call 0 at messages[0].content: recorded "what is 2+2?", replayed "what is 3+3?")`);
    expect(summary).toContain('1 request refused, 2 recorded calls never asked for; the command exited 1');
  });

  it('exits 8 when the command asks for more than the tape has', async () => {
    const result = await run(['--replay', tape, '--', process.execPath, agent], { AGENT_EXTRA: '1' });
    expect(result.code, result.stderr).toBe(8);
    expect(lastLine(result.stderr)).toContain('1 request refused, 1 past the end of the tape; the command exited 1');
  });

  it('exits 7 when the command leaves recorded calls unasked, though every call it made was served', async () => {
    const result = await run(['--replay', tape, '--', process.execPath, agent], { AGENT_ONE: '1' });
    expect(result.code, result.stderr).toBe(7);
    expect(lastLine(result.stderr)).toBe(`agentctl run: served 1 of 2 recorded calls from ${tape}, 0 divergences, 1 recorded call never asked for; the command exited 0`);
  });

  it('exits 7 when --no-strict serves a changed request by position', async () => {
    const result = await run(['--replay', tape, '--no-strict', '--', process.execPath, agent, 'what is 3+3?']);
    expect(result.code, result.stderr).toBe(7);
    expect(result.stdout).toBe('answer: It is 4.\nstreamed: one two three\n');
    expect(lastLine(result.stderr)).toContain('1 divergence (first: request 0 differs from recorded call 0 at messages[0].content');
  });

  it('exits 7 when the command makes a request the tape has no recording of, though every model call matched', async () => {
    const probe = join(dir, 'probe.mjs');
    await writeFile(probe, "const res = await fetch(process.env.OPENAI_BASE_URL + '/models'); console.log('probe: ' + res.status);\n");
    const result = await run(['--replay', tape, '--', 'sh', '-c', `"${process.execPath}" "${agent}" && "${process.execPath}" "${probe}"`]);
    expect(result.code, result.stderr).toBe(7);
    expect(result.stdout).toBe('answer: It is 4.\nstreamed: one two three\nprobe: 404\n');
    expect(lastLine(result.stderr)).toContain('served 2 of 2 recorded calls');
  });

  it('a replayed command killed by a signal keeps its 128 + n: cut short, not diverged', async () => {
    const result = await run(['--replay', tape, '--', process.execPath, '-e', "process.kill(process.pid, 'SIGTERM')"]);
    expect(result.code, result.stderr).toBe(143);
  });

  it('a replayed command is given a placeholder key when its own is set but empty (as CI sets a missing secret)', async () => {
    const result = await run(['--replay', tape, '--', process.execPath, agent], { OPENAI_API_KEY: '' });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('answer: It is 4.\nstreamed: one two three\n');
  });

  it('new-episodes exits with the command\'s code: a request the tape has no match for goes upstream, no divergence to fail on', async () => {
    const copy = join(dir, 'tapes', 'episodes.tape.jsonl');
    await writeFile(copy, await readFile(tape));
    const llm = await startMockLlm([{ content: 'It is 6.' }]);
    try {
      const result = await run(['--tape', copy, '--mode', 'new-episodes', '--', process.execPath, agent, 'what is 3+3?'], { OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: OPENAI_KEY });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe('answer: It is 6.\nstreamed: one two three\n');
      llm.assertConsumed();
    } finally {
      await llm.close();
    }
  });

  it('--json: the summary as one JSON line on standard error, standard output the command\'s alone', async () => {
    const result = await run(['--json', '--replay', tape, '--', process.execPath, agent]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('answer: It is 4.\nstreamed: one two three\n');
    expect(JSON.parse(lastLine(result.stderr))).toMatchObject({
      mode: 'replay', tape, served: 2, divergences: 0, firstDivergence: null, refused: 0, unused: 0, commandExit: 0, exitCode: 0,
    });
  });

  it('--tape: records a plain HTTP client (OpenAI and Anthropic paths, each to its own upstream with its own key) when the run does not exist, replays it offline when it does', async () => {
    const llm = await startMockLlm([{ content: 'plain answer' }]);
    const anthropic = await startUpstream((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ input_tokens: 7, path: req.url }));
    });
    const env = { OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: OPENAI_KEY, ANTHROPIC_BASE_URL: anthropic.url.replace(/\/v1$/, ''), ANTHROPIC_API_KEY: ANTHROPIC_KEY };
    let recorded: CliResult;
    try {
      recorded = await run(['--tape', 'plain', '--', process.execPath, plain], env);
      expect(recorded.code, recorded.stderr).toBe(0);
      expect(recorded.stdout).toContain('openai: 200 {');
      expect(recorded.stdout).toContain('plain answer');
      expect(recorded.stdout).toContain('anthropic: 200 {"input_tokens":7,"path":"/v1/messages/count_tokens"}');
      expect(lastLine(recorded.stderr)).toMatch(/^agentctl run: recorded 1 model call onto run \w+ \(plain\); the command exited 0$/);
      // Only the Messages API goes to Anthropic; any other path is the OpenAI upstream's.
      expect(anthropic.requests.map((r) => r.path)).toEqual(['/v1/messages/count_tokens']);
      expect(llm.requests.map((r) => r.path)).toEqual(['/v1/chat/completions', '/v1/models-check']);
      expect(anthropic.requests[0]?.headers['x-api-key']).toBe(ANTHROPIC_KEY);
      expect(anthropic.requests[0]?.headers['authorization']).toBeUndefined();
      expect(llm.requests[0]?.headers['authorization']).toBe(`Bearer ${OPENAI_KEY}`);
      expect(llm.requests[0]?.headers['x-api-key']).toBeUndefined();
    } finally {
      await llm.close();
      await anthropic.close();
    }
    const replayed = await run(['--tape', 'plain', '--', process.execPath, plain], env);
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(replayed.stdout).toBe(recorded.stdout);
    expect(lastLine(replayed.stderr)).toBe('agentctl run: served 1 of 1 recorded call from plain, 0 divergences; the command exited 0');
  });

  it('AGENTCTL_MODE overrides the mode of --tape: replay, and a tape there is not is an error', async () => {
    const result = await run(['--tape', 'never-recorded', '--', process.execPath, agent], { AGENTCTL_MODE: 'replay' });
    expect(result.code, result.stderr).toBe(10);
    expect(result.stderr).toMatch(/^agentctl: .*never-recorded/m);
  });

  it('passes SIGINT on to the command and waits for it: its exit code, no process left behind', async () => {
    const script = join(dir, 'waits.mjs');
    await writeFile(script, `
process.on('SIGINT', () => { console.log('child got SIGINT'); process.exit(42); });
console.log('pid ' + process.pid);
setInterval(() => {}, 1000);
`);
    const child = spawn(process.execPath, [BIN, '--store', store, 'run', '--record', 'interrupted', '--', process.execPath, script], {
      env: { ...process.env, ...Object.fromEntries(Object.keys(BASE_ENV).map((k) => [k, ''])), OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const pid = await new Promise<number>((resolve) => {
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        stdout += d;
        const match = /pid (\d+)/.exec(stdout);
        if (match !== null) resolve(Number(match[1]));
      });
    });
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    child.kill('SIGINT');
    expect(await exited, stderr).toBe(42);
    expect(stdout).toContain('child got SIGINT');
    expect(lastLine(stderr)).toContain('recorded 0 model calls onto run');
    expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
  });

  describe('bad input', () => {
    it.each([
      [['--record', 'x'], 2, /^agentctl: no command to run: give it after --$/m],
      [['--record', 'x', '--'], 2, /no command to run/],
      [['--', 'node'], 2, /say what to do with the tape/],
      [['--record', 'x', '--replay', 'y', '--', 'node'], 2, /--record and --replay do not go together/],
      [['--replay', 'y', '--mode', 'record', '--', 'node'], 2, /--mode goes with --tape, not --replay/],
      [['--tape', 'y', '--mode', 'sometimes', '--', 'node'], 2, /sometimes/],
      [['--record', 'x', '--no-strict', '--', 'node'], 2, /--strict\/--no-strict apply to a replay, not record mode/],
      [['--replay', 'y', '--upstream', 'http://127.0.0.1:9/v1', '--', 'node'], 2, /a replay sends nothing upstream/],
      [['--record', 'x', '--', 'agentctl-no-such-command-here', '--flag'], 127, /^agentctl: agentctl-no-such-command-here: command not found$/m],
    ])('%j exits %i', async (args, code, message) => {
      const result = await run(args);
      expect(result.code, result.stderr).toBe(code);
      expect(result.stderr).toMatch(message);
    });

    it('AGENTCTL_MODE that is not a mode is refused, naming it', async () => {
      const result = await run(['--tape', 'y', '--', 'node'], { AGENTCTL_MODE: 'sometimes' });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^agentctl: AGENTCTL_MODE: "sometimes" is not a mode$/m);
    });
  });
});
