/**
 * `agentctl run -- <command>` end to end: the real binary runs real programs — a Node agent on the
 * real `openai` package, and a plain `node:http` client standing for "any language" — against the
 * scripted model server on 127.0.0.1; records them onto a tape file or a run, replays them with the
 * server stopped, and exits with the command's code, or 7 when the command departs from the tape
 * (the summary naming the field), or 8 when it asks for more than the tape has. SIGINT reaches the
 * command and leaves no process behind.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
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
let calls: string;
let tape: string;

/** A Node agent on the real openai SDK: a plain call with the question in argv[2], then a streamed one (not with AGENT_ONE; a third with AGENT_EXTRA). */
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
  if (!process.env.AGENT_ONE) console.log('streamed: ' + await ask('count to three', true));
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

/** CALLS (default 1) chat calls over node:http, each status printed; with WAIT, then its pid, and it waits to be killed. */
const CALLS = `
import { request } from 'node:http';
const post = (content) => new Promise((resolve, reject) => {
  const req = request(process.env.OPENAI_BASE_URL + '/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
    res.resume().on('end', () => resolve(res.statusCode));
  });
  req.on('error', reject);
  req.end(JSON.stringify({ model: 'mock-model', messages: [{ role: 'user', content }] }));
});
for (let i = 0; i < Number(process.env.CALLS ?? 1); i++) console.log('status ' + await post('call ' + i));
if (process.env.WAIT) {
  console.log('pid ' + process.pid);
  setInterval(() => {}, 1000);
}
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
  calls = join(dir, 'calls.mjs');
  await writeFile(calls, CALLS);
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
    // Recorded beside the file (docs/run.md), the hidden directory removed once the tape is written; nothing in --store.
    expect(existsSync(join(dir, 'tapes', '.agent.tape.jsonl.recording'))).toBe(false);
    expect(existsSync(store)).toBe(false);
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
    expect(lastLine(result.stderr)).toBe(
      `agentctl run: diverged: request 0 differs from recorded call 0 at messages[0].content: recorded "what is 2+2?", replayed "what is 3+3?" (served 0 of 2 from ${tape}); ` +
        '1 divergence, 1 request refused, 2 recorded calls never asked for; the command exited 1',
    );
  });

  it('exits 7 when the command makes fewer calls than the tape has, the summary saying it diverged and why', async () => {
    const result = await run(['--replay', tape, '--', process.execPath, agent], { AGENT_ONE: '1' });
    expect(result.code, result.stderr).toBe(7);
    expect(result.stdout).toBe('answer: It is 4.\n');
    expect(lastLine(result.stderr)).toBe(`agentctl run: diverged: 1 recorded call never asked for (served 1 of 2 from ${tape}); the command exited 0`);
  });

  it('exits 8 when the command asks for more than the tape has', async () => {
    const result = await run(['--replay', tape, '--', process.execPath, agent], { AGENT_EXTRA: '1' });
    expect(result.code, result.stderr).toBe(8);
    expect(lastLine(result.stderr)).toContain('1 request refused, 1 past the end of the tape; the command exited 1');
  });

  it('exits 7 when the command leaves recorded calls unasked, though every call it made was served', async () => {
    const result = await run(['--replay', tape, '--', process.execPath, agent], { AGENT_ONE: '1' });
    expect(result.code, result.stderr).toBe(7);
    expect(lastLine(result.stderr)).toBe(`agentctl run: diverged: 1 recorded call never asked for (served 1 of 2 from ${tape}); the command exited 0`);
  });

  it('exits 7 when --no-strict serves a changed request by position', async () => {
    const result = await run(['--replay', tape, '--no-strict', '--', process.execPath, agent, 'what is 3+3?']);
    expect(result.code, result.stderr).toBe(7);
    expect(result.stdout).toBe('answer: It is 4.\nstreamed: one two three\n');
    expect(lastLine(result.stderr)).toContain('diverged: request 0 differs from recorded call 0 at messages[0].content');
  });

  it('exits 7 when the command makes a request the tape has no recording of, though every model call matched', async () => {
    const probe = join(dir, 'probe.mjs');
    await writeFile(probe, "const res = await fetch(process.env.OPENAI_BASE_URL + '/models'); console.log('probe: ' + res.status);\n");
    const result = await run(['--replay', tape, '--', 'sh', '-c', `"${process.execPath}" "${agent}" && "${process.execPath}" "${probe}"`]);
    expect(result.code, result.stderr).toBe(7);
    expect(result.stdout).toBe('answer: It is 4.\nstreamed: one two three\nprobe: 404\n');
    expect(lastLine(result.stderr)).toContain(`diverged: 1 request refused (served 2 of 2 from ${tape})`);
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

  it('an upstream that does not answer: the command gets a 502, the summary names the upstream, the exit code is the command\'s', async () => {
    const file = join(dir, 'tapes', 'down.tape.jsonl');
    const result = await run(['--record', file, '--', process.execPath, calls], { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('status 502\n');
    expect(lastLine(result.stderr)).toBe(`agentctl run: recorded 1 model call onto ${file}, 1 with no reply from upstream (http://127.0.0.1:9/v1 unreachable); the command exited 0`);
    const json = await run(['--json', '--record', file, '--', process.execPath, calls], { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' });
    expect(JSON.parse(lastLine(json.stderr))).toMatchObject({ upstreamFailures: 1, commandExit: 0, exitCode: 0 });
  });

  it('SIGKILL while recording a tape file: the calls so far stay in .<file>.recording beside it, the tape not written, and the next recording warns', async () => {
    const file = join(dir, 'tapes', 'killed.tape.jsonl');
    const hidden = join(dir, 'tapes', '.killed.tape.jsonl.recording');
    const llm = await startMockLlm([{ content: 'before the kill' }, { content: 'again' }]);
    try {
      const child = spawn(process.execPath, [BIN, '--store', store, 'run', '--record', file, '--', process.execPath, calls], {
        env: { ...process.env, ...Object.fromEntries(Object.keys(BASE_ENV).map((k) => [k, ''])), OPENAI_BASE_URL: llm.baseURL, WAIT: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      const pid = await new Promise<number>((resolve) => {
        child.stdout.setEncoding('utf8').on('data', (d: string) => {
          stdout += d;
          const match = /pid (\d+)/.exec(stdout);
          if (match !== null) resolve(Number(match[1]));
        });
      });
      // 'exit', not 'close': the command, left running, still holds the pipes.
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGKILL');
      await exited;
      process.kill(pid, 'SIGKILL');
      expect(stdout).toContain('status 200');
      expect(existsSync(file)).toBe(false);
      expect(existsSync(hidden)).toBe(true);
      const ls = await runCli(['--store', hidden, 'ls', '--json'], { env: BASE_ENV });
      expect(ls.stdout).toContain('"status":"incomplete"');

      const again = await run(['--record', file, '--', process.execPath, calls], { OPENAI_BASE_URL: llm.baseURL });
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toContain(hidden);
      expect(again.stderr).toContain('never written to it');
      expect(existsSync(file)).toBe(true);
      expect(existsSync(hidden)).toBe(true);
    } finally {
      await llm.close();
    }
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

    it('a command that is there but not executable: permission denied, exit 126, as a shell says', async () => {
      const script = join(dir, 'not-executable.sh');
      await writeFile(script, 'echo never\n', { mode: 0o644 });
      const result = await run(['--record', 'x', '--', script]);
      expect(result.code, result.stderr).toBe(126);
      expect(result.stderr).toBe(`agentctl: ${script}: permission denied\n`);
      const onPath = await run(['--record', 'x', '--', 'not-executable.sh'], { PATH: `${dir}:${process.env['PATH'] ?? ''}` });
      expect(onPath.code, onPath.stderr).toBe(126);
      expect(onPath.stderr).toBe('agentctl: not-executable.sh: permission denied\n');
    });

    it('--json: an error before the command runs is the one agentctl: line of every command, no JSON', async () => {
      const missing = await run(['--json', '--record', 'x', '--', 'agentctl-no-such-command-here']);
      expect(missing.code).toBe(127);
      expect(missing.stdout).toBe('');
      expect(missing.stderr).toBe('agentctl: agentctl-no-such-command-here: command not found\n');
      const usage = await run(['--json', '--record', 'x']);
      expect(usage.code).toBe(2);
      expect(usage.stdout).toBe('');
      expect(usage.stderr).toMatch(/^agentctl: no command to run: give it after --\nhint: /);
    });

    it('$AGENTCTL_MODE is read only with --tape and no --mode: --replay says the mode itself', async () => {
      const result = await run(['--replay', 'never-recorded', '--', process.execPath, agent], { AGENTCTL_MODE: 'sometimes' });
      expect(result.code, result.stderr).toBe(10);
    });

    it('AGENTCTL_MODE that is not a mode is refused, naming it', async () => {
      const result = await run(['--tape', 'y', '--', 'node'], { AGENTCTL_MODE: 'sometimes' });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^agentctl: AGENTCTL_MODE: "sometimes" is not a mode$/m);
    });
  });
});
