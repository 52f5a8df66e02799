/**
 * End-to-end: the built-in agent (the real binary, `agentctl record`) with MCP servers from npm as
 * its tools — @modelcontextprotocol/server-filesystem on the run's workspace and
 * @modelcontextprotocol/server-memory — against the scripted model server on 127.0.0.1; then the
 * same run replayed with the servers' scripts gone (a replay never starts the tape's servers), and
 * with the user's own config and live tools (its servers started, and stopped at the end). Also:
 * a server that does not start, a server killed in the middle of a call, secrets in `env`.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../src/core/events.js';
import { runAgent } from '../src/library/run-agent.js';
import { startEverythingHttp } from '../src/mcp/test-support/everything-http.js';
import { behaviour } from './support/behaviour.js';
import { BIN, runCli, type CliResult } from './support/cli.js';
import { startMockLlm } from './support/mock-llm.js';
import type { ScenarioStep } from './support/scenario.js';

const require = createRequire(import.meta.url);
const FILESYSTEM = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
const MEMORY = require.resolve('@modelcontextprotocol/server-memory/dist/index.js');
const FAKE = fileURLToPath(new URL('./support/mcp-fake-server.mjs', import.meta.url));
const SECRET = 'mcp-loop-secret-value-4242';
const LITERAL_SECRET = 'literal-in-config-7373';
/** A stdio MCP server with one tool, `whoami`, that says back its arguments and two of its environment's values. */
const ECHO_SERVER = `
import { createInterface } from 'node:readline';
const answer = (id, result) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id, result }) + '\\n');
createInterface({ input: process.stdin }).on('line', (line) => {
  const m = JSON.parse(line);
  if (m.method === 'initialize') answer(m.id, { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'echo', version: '1' } });
  else if (m.method === 'tools/list') answer(m.id, { tools: [{ name: 'whoami', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } }] });
  else if (m.method === 'tools/call') answer(m.id, { content: [{ type: 'text', text: 'args ' + process.argv.slice(2).join(' ') + ' env ' + process.env.PLAIN + ' ' + process.env.OTHER }] });
  else if (m.id !== undefined) process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'no' } }) + '\\n');
});
`;
const noModel = { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined };

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-mcp-loop-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A script in `where` that starts the real server `script` (so deleting `where` takes the server away). */
async function launcher(where: string, name: string, script: string): Promise<string> {
  await mkdir(where, { recursive: true });
  const file = join(where, `${name}.mjs`);
  await writeFile(file, `await import(${JSON.stringify(pathToFileURL(script).href)});\n`);
  return file;
}

function eventsOf(result: CliResult): RunEvent[] {
  return result.stdout.trim().split('\n').slice(0, -1).map((line) => JSON.parse(line) as RunEvent);
}
function summaryOf(result: CliResult): Record<string, unknown> {
  return JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
}

const call = (id: string, name: string, args: unknown) => ({ id, name, arguments: args });

/** The scripted model: write, remember, read, read again (skipped), then answer. */
const SCRIPT: ScenarioStep[] = [
  { tool_calls: [call('c1', 'files__write_file', { path: 'notes.txt', content: 'hello from mcp' })] },
  { tool_calls: [call('c2', 'memory__create_entities', { entities: [{ name: 'Ada', entityType: 'person', observations: ['likes tapes'] }] })] },
  { tool_calls: [call('c3', 'files__read_file', { path: 'notes.txt' })] },
  { tool_calls: [call('c4', 'files__read_file', { path: 'notes.txt' })] },
  { content: 'Done: the note says hello from mcp.' },
];

async function record(args: string[], steps: ScenarioStep[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  const llm = await startMockLlm(steps);
  try {
    return await runCli(['record', '--task', 'take a note', '--base-url', llm.baseURL, '--json', ...args], { env: { ...noModel, ...env }, timeoutMs: 25_000 });
  } finally {
    await llm.close();
  }
}

describe('the built-in agent with MCP servers', () => {
  it('records MCP tools with their specs and servers, and replays the run bit for bit with the servers gone', async () => {
    const servers = join(dir, 'servers');
    const config = join(dir, 'agentctl.config.json');
    await writeFile(config, JSON.stringify({
      tools: ['read_file'],
      mcpServers: {
        files: { command: process.execPath, args: [await launcher(servers, 'files', FILESYSTEM), '${AGENTCTL_WORKSPACE}'] },
        memory: {
          command: process.execPath,
          args: [await launcher(servers, 'memory', MEMORY)],
          env: { MEMORY_FILE_PATH: '${AGENTCTL_WORKSPACE}/memory.jsonl', API_TOKEN: '${MCP_LOOP_SECRET}', OTHER: LITERAL_SECRET },
          tools: { create_entities: { idempotent: true } },
        },
      },
    }));
    const workspace = join(dir, 'ws');
    await mkdir(workspace);
    const store = join(dir, 'store');
    const result = await record(['--config', config, '--workspace', workspace, '--store', store, '--name', 'mcp'], SCRIPT, { MCP_LOOP_SECRET: SECRET });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const events = eventsOf(result);

    // The tools ran on the real servers.
    expect(await readFile(join(workspace, 'notes.txt'), 'utf8')).toBe('hello from mcp');
    expect(await readFile(join(workspace, 'memory.jsonl'), 'utf8')).toContain('"Ada"');
    const results = events.filter((e) => e.type === 'tool_result');
    expect(results.map((e) => [e.tool, e.server, e.status])).toEqual([
      ['files__write_file', 'files', 'ok'],
      ['memory__create_entities', 'memory', 'ok'],
      ['files__read_file', 'files', 'ok'],
      ['files__read_file', 'files', 'denied'],
    ]);
    expect(results[0]?.output).toContain('Successfully wrote to notes.txt');
    expect(results[2]?.output).toBe('hello from mcp');
    expect(events.filter((e) => e.type === 'tool_call').map((e) => [e.tool, e.server])).toEqual([
      ['files__write_file', 'files'],
      ['memory__create_entities', 'memory'],
      ['files__read_file', 'files'],
      ['files__read_file', 'files'],
    ]);
    // The guardrails read the annotations: read_file is read-only, so its repeat is skipped.
    const skip = events.find((e) => e.type === 'guardrail' && e.callId === 'c4' && e.gate === 'replay_control');
    expect(skip).toMatchObject({ verdict: 'skip', rule: 'duplicate_success', tool: 'files__read_file' });

    // run_start records the MCP tools' specs: flags from annotations, the config's entry winning.
    const start = events.find((e) => e.type === 'run_start');
    const specs = new Map((start?.type === 'run_start' ? start.customTools ?? [] : []).map((spec) => [spec.name, spec]));
    expect(specs.get('files__read_file')).toMatchObject({ idempotent: true, mutating: false, timeoutMs: 60_000, mcp: { server: 'files', tool: 'read_file' } });
    expect(specs.get('files__write_file')).toMatchObject({ idempotent: true, mutating: true, mcp: { server: 'files', tool: 'write_file' } });
    expect(specs.get('files__move_file')).toMatchObject({ idempotent: false, mutating: true });
    expect(specs.get('memory__create_entities')).toMatchObject({ idempotent: true, mutating: true, mcp: { server: 'memory', tool: 'create_entities' } });
    expect(specs.get('files__write_file')?.parameters).toMatchObject({ type: 'object', properties: { path: { type: 'string' } } });
    expect(start?.type === 'run_start' && start.config['mcpServers']).toMatchObject({
      memory: { env: { MEMORY_FILE_PATH: '[REDACTED]', API_TOKEN: '[REDACTED]', OTHER: '[REDACTED]' } },
    });

    // No secret of the config on the tape.
    const tape = join(dir, 'mcp.tape.jsonl');
    expect((await runCli(['export', 'mcp', '-o', tape, '--store', store])).code).toBe(0);
    const text = await readFile(tape, 'utf8');
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(LITERAL_SECRET);

    // The servers' scripts are gone: a replay needs none of them.
    await rm(servers, { recursive: true });
    const replay = await runCli(['replay', tape, '--json', '--no-save'], { env: noModel });
    expect(replay.stderr).toBe('');
    expect(summaryOf(replay)).toMatchObject({ verdict: 'reproduced', firstDivergence: null, exitCode: 0 });
    expect(behaviour(eventsOf(replay))).toEqual(behaviour(events));
    // And its tools run live only from the user's own config: the tape's servers stay unstarted.
    const live = await runCli(['replay', tape, '--json', '--no-save', '--tools', 'live'], { env: noModel });
    expect(live.stderr).toBe('');
    expect(summaryOf(live)).toMatchObject({ verdict: 'reproduced', exitCode: 0 });

    // Saved in the store, the replay is the recording to `diff`.
    const saved = await runCli(['replay', 'mcp', '--store', store, '--json'], { env: noModel });
    expect(saved.code, saved.stderr).toBe(0);
    const diff = await runCli(['diff', 'mcp', String(summaryOf(saved)['runId']), '--store', store, '--exit-code', '--quiet']);
    expect(diff.code, diff.stdout + diff.stderr).toBe(0);
  });

  it("replays with the user's own config and live tools: its servers are started, used and stopped", async () => {
    const config = join(dir, 'live.config.json');
    await writeFile(config, JSON.stringify({
      tools: ['read_file'],
      mcpServers: {
        files: { command: process.execPath, args: [FILESYSTEM, '${AGENTCTL_WORKSPACE}'] },
        memory: { command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: '${AGENTCTL_WORKSPACE}/memory.jsonl' }, tools: { create_entities: { idempotent: true } } },
      },
    }));
    const workspace = join(dir, 'ws-live');
    await mkdir(workspace);
    const store = join(dir, 'store-live');
    const recorded = await record(['--config', config, '--workspace', workspace, '--store', store, '--name', 'live'], SCRIPT);
    expect(recorded.code, recorded.stderr).toBe(0);

    const again = join(dir, 'ws-live-again');
    await mkdir(again);
    const live = await runCli(
      ['replay', 'live', '--store', store, '--config', config, '--tools', 'live', '--allow-side-effects', '--workspace', again, '--json', '--no-save'],
      { env: noModel, timeoutMs: 25_000 },
    );
    expect(live.code, live.stderr).toBe(0);
    // The servers ran in the replay's workspace, so the file is written there again.
    expect(await readFile(join(again, 'notes.txt'), 'utf8')).toBe('hello from mcp');
    expect(existsSync(join(again, 'memory.jsonl'))).toBe(true);
    expect(eventsOf(live).filter((e) => e.type === 'tool_result').map((e) => [e.tool, e.server, e.status])).toEqual([
      ['files__write_file', 'files', 'ok'],
      ['memory__create_entities', 'memory', 'ok'],
      ['files__read_file', 'files', 'ok'],
      ['files__read_file', 'files', 'denied'],
    ]);
  });

  it('a server killed in the middle of a call: the call is an error saying how it ended, and the run carries on', async () => {
    const config = join(dir, 'dying.config.json');
    await writeFile(config, JSON.stringify({ tools: [], mcpServers: { fake: { command: process.execPath, args: [FAKE] } } }));
    const result = await record(['--config', config, '--workspace', join(dir, 'ws-dying'), '--store', join(dir, 'store-dying')], [
      { tool_calls: [call('d1', 'fake__die', {})] },
      { tool_calls: [call('d2', 'fake__echo', { text: 'still there?' })] },
      { content: 'The server is gone.' },
    ]);
    expect(result.code, result.stderr).toBe(0);
    const results = eventsOf(result).filter((e) => e.type === 'tool_result');
    expect(results.map((e) => [e.tool, e.server, e.status, e.output])).toEqual([
      ['fake__die', 'fake', 'error', "MCP server 'fake' killed by SIGKILL before it answered"],
      ['fake__echo', 'fake', 'error', "MCP server 'fake' killed by SIGKILL before it answered"],
    ]);
    expect(summaryOf(result)).toMatchObject({ state: 'COMPLETED', exitCode: 0 });
  });

  it('a tool whose schema has parameters named like object machinery (constructor, prototype): recorded, and the tape replays', async () => {
    const config = join(dir, 'odd.config.json');
    await writeFile(config, JSON.stringify({ tools: [], mcpServers: { fake: { command: process.execPath, args: [FAKE, 'odd-keys'] } } }));
    const store = join(dir, 'store-odd');
    const result = await record(['--config', config, '--workspace', join(dir, 'ws-odd'), '--store', store, '--name', 'odd'], [
      { tool_calls: [call('o1', 'fake__lookup', { constructor: 'Ada', prototype: 'Bob' })] },
      { content: 'found' },
    ]);
    expect(result.code, result.stderr).toBe(0);
    const events = eventsOf(result);
    const start = events.find((e) => e.type === 'run_start');
    const lookup = start?.type === 'run_start' ? start.customTools?.find((t) => t.name === 'fake__lookup') : undefined;
    expect(Object.keys(lookup?.parameters['properties'] as object)).toEqual(['constructor', 'prototype']);
    const answer = events.find((e) => e.type === 'tool_result');
    expect(answer?.type === 'tool_result' && answer.output).toBe('lookup {"constructor":"Ada","prototype":"Bob"}');

    // The tape agentctl wrote is one it reads: exported, shown and replayed.
    const tape = join(dir, 'odd.tape.jsonl');
    expect((await runCli(['export', 'odd', '-o', tape, '--store', store])).code).toBe(0);
    const show = await runCli(['show', tape]);
    expect(show.code, show.stderr).toBe(0);
    const replay = await runCli(['replay', tape, '--json', '--no-save'], { env: noModel });
    expect(replay.stderr).toBe('');
    expect(summaryOf(replay)).toMatchObject({ verdict: 'reproduced', exitCode: 0 });
    expect(behaviour(eventsOf(replay))).toEqual(behaviour(events));
  });

  it('an MCP error result and a non-text part reach the model as a tool error with the words of tool-output', async () => {
    const config = join(dir, 'errors.config.json');
    await writeFile(config, JSON.stringify({ tools: [], mcpServers: { fake: { command: process.execPath, args: [FAKE] } } }));
    const result = await record(['--config', config, '--workspace', join(dir, 'ws-errors'), '--store', join(dir, 'store-errors')], [
      { tool_calls: [call('e1', 'fake__picture', {}), call('e2', 'fake__fail', {}), call('e3', 'fake__echo', { text: 'hi' })] },
      { content: 'ok' },
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(eventsOf(result).filter((e) => e.type === 'tool_result').map((e) => [e.status, e.output])).toEqual([
      ['error', '[image image/png]'],
      ['error', 'fail: no such thing'],
      ['ok', 'echo {"text":"hi"}'],
    ]);
  });

  it('a server that does not start stops the run before any model call: exit 13, one line naming it', async () => {
    const config = join(dir, 'broken.config.json');
    await writeFile(config, JSON.stringify({
      mcpServers: { fine: { command: process.execPath, args: [FAKE] }, broken: { command: process.execPath, args: [FAKE, 'exit-at-start'] } },
    }));
    const llm = await startMockLlm([{ content: 'never asked' }]);
    try {
      const result = await runCli(['record', '--task', 't', '--config', config, '--base-url', llm.baseURL, '--workspace', join(dir, 'ws-broken'), '--store', join(dir, 'store-broken')], { env: noModel });
      expect(result.code).toBe(13);
      expect(result.stderr).toBe("agentctl: MCP server 'broken' did not start: exited with code 3 before it answered\nhint: its last words on stderr: fake server: cannot open its database\n");
      expect(llm.requests).toHaveLength(0);
    } finally {
      await llm.close();
    }
  });

  it('a server that fails to start saying back the secrets its config gave it: the message shows neither them nor a key', async () => {
    const leaky = join(dir, 'leaky-server.mjs');
    await writeFile(leaky, "process.stderr.write(`bad credentials: ${process.argv.slice(2).join(' ')} ${process.env.TOKEN} ${process.env.OTHER}\\n`);\nprocess.exit(1);\n");
    const key = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
    const config = join(dir, 'leaky.config.json');
    await writeFile(config, JSON.stringify({
      mcpServers: { leaky: { command: process.execPath, args: [leaky, '--key=${MCP_LOOP_SECRET}', key], env: { TOKEN: '${MCP_LOOP_SECRET}', OTHER: LITERAL_SECRET } } },
    }));
    const result = await runCli(['record', '--task', 't', '--config', config, '--base-url', 'http://127.0.0.1:9/v1', '--workspace', join(dir, 'ws-leaky'), '--store', join(dir, 'store-leaky')], {
      env: { ...noModel, MCP_LOOP_SECRET: SECRET },
    });
    expect(result.code).toBe(13);
    expect(result.stderr).toBe("agentctl: MCP server 'leaky' did not start: exited with code 1 before it answered\nhint: its last words on stderr: bad credentials: [REDACTED] [REDACTED] [REDACTED] [REDACTED]\n");
    expect(result.stdout).toBe('');
  });

  it('a server that says back the secrets its config gave it, in a tool result: the tape holds neither', async () => {
    const echo = join(dir, 'echo-server.mjs');
    await writeFile(echo, ECHO_SERVER);
    const config = join(dir, 'echo.config.json');
    await writeFile(config, JSON.stringify({
      mcpServers: { echo: { command: process.execPath, args: [echo, '--plain=${MCP_LOOP_PLAIN}'], env: { PLAIN: '${MCP_LOOP_PLAIN}', OTHER: LITERAL_SECRET } } },
    }));
    const plain = 'plain-config-value-5151';
    const result = await record(['--config', config, '--workspace', join(dir, 'ws-echo'), '--store', join(dir, 'store-echo')], [
      { tool_calls: [call('c1', 'echo__whoami', {})] },
      { content: 'done' },
    ], { MCP_LOOP_PLAIN: plain });
    expect(result.code, result.stderr).toBe(0);
    const said = eventsOf(result).find((e) => e.type === 'tool_result');
    expect(said?.type === 'tool_result' && said.output).toBe('args --plain=[REDACTED] env [REDACTED] [REDACTED]');
    expect(result.stdout + result.stderr).not.toContain(plain);
    expect(result.stdout + result.stderr).not.toContain(LITERAL_SECRET);
  });

  it('a command not on PATH is a usage error (exit 2); an unreachable url, a name clash and a schema that is not an object are refused', async () => {
    const clash = join(dir, 'clash-tools.mjs');
    await writeFile(clash, "export default [{ name: 'fake__echo', description: 'mine', parameters: { type: 'object' }, run: () => 'x' }];\n");
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ mcpServers: { nowhere: { command: 'agentctl-no-such-mcp-server' } } }, 2, "agentctl: MCP server 'agentctl-no-such-mcp-server' could not be started: 'agentctl-no-such-mcp-server' is not on its PATH\n"],
      [{ mcpServers: { docs: { url: 'http://127.0.0.1:9/mcp' } } }, 13, "agentctl: MCP server 'docs' did not start: unreachable: connect ECONNREFUSED 127.0.0.1:9 before it answered\n"],
      [{ mcpServers: { loose: { command: process.execPath, args: [FAKE, 'bad-schema'] } } }, 13, "agentctl: MCP server 'loose' did not start: listed tool 'loose' with an input schema that is not \"type\": \"object\"\n"],
      [{ mcpServers: { big: { command: process.execPath, args: [FAKE, 'huge-schema'] } } }, 13, "agentctl: MCP server 'big' did not start: listed tool 'huge' with an input schema larger than a tape records (65536 characters, 32 levels)\n"],
      [{ mcpServers: { deep: { command: process.execPath, args: [FAKE, 'deep-schema'] } } }, 13, "agentctl: MCP server 'deep' did not start: listed tool 'deep' with an input schema larger than a tape records (65536 characters, 32 levels)\n"],
      [{ toolModules: [clash], mcpServers: { fake: { command: process.execPath, args: [FAKE] } } }, 2, "agentctl: MCP tool 'fake__echo' (tool 'echo' of MCP server 'fake') has the name of a custom tool from 'toolModules'\n"],
      [{ mcpServers: { fake: { command: process.execPath, args: [FAKE], tools: { ecko: { idempotent: true } } } } }, 2, "agentctl: config 'mcpServers.fake.tools' names 'ecko', not a tool of that server\nhint: its tools: echo, ask, hang, die, fail, notes, picture, pid, cwd\n"],
    ];
    for (const [i, [body, code, stderr]] of cases.entries()) {
      const config = join(dir, `refused-${i}.config.json`);
      await writeFile(config, JSON.stringify(body));
      const result = await runCli(['record', '--task', 't', '--config', config, '--base-url', 'http://127.0.0.1:9/v1', '--workspace', join(dir, 'ws-refused'), '--store', join(dir, 'store-refused')], { env: noModel });
      expect([result.code, result.stderr]).toEqual([code, stderr]);
    }
  });

  it("the library's runAgent stops its servers when the run ends, and when the caller stops early", async () => {
    const config = { tools: [], mcpServers: { fake: { command: process.execPath, args: [FAKE] } } };
    const alive = (pid: number): boolean => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    const pidOf = (events: RunEvent[]): number => Number(events.find((e) => e.type === 'tool_result')?.output);

    const llm = await startMockLlm([{ tool_calls: [call('p1', 'fake__pid', {})] }, { content: 'done' }]);
    try {
      const events: RunEvent[] = [];
      for await (const event of runAgent({ task: 't', config, configDir: dir, baseURL: llm.baseURL, apiKey: 'k', workspace: join(dir, 'ws-lib') })) events.push(event);
      expect(pidOf(events)).toBeGreaterThan(0);
      expect(alive(pidOf(events))).toBe(false);
    } finally {
      await llm.close();
    }

    const early = await startMockLlm([{ tool_calls: [call('p1', 'fake__pid', {})] }, { content: 'done' }]);
    try {
      const events: RunEvent[] = [];
      const run = runAgent({ task: 't', config, configDir: dir, baseURL: early.baseURL, apiKey: 'k', workspace: join(dir, 'ws-lib') });
      for await (const event of run) {
        events.push(event);
        if (event.type === 'tool_result') break;
      }
      expect(alive(pidOf(events))).toBe(false);
    } finally {
      await early.close();
    }
  });

  it('Ctrl-C during an MCP call ends the recording and stops the servers', async () => {
    const config = join(dir, 'sigint.config.json');
    await writeFile(config, JSON.stringify({ tools: [], mcpServers: { fake: { command: process.execPath, args: [FAKE] } } }));
    const llm = await startMockLlm([{ tool_calls: [call('s1', 'fake__pid', {})] }, { tool_calls: [call('s2', 'fake__hang', {})] }, { content: 'never' }]);
    try {
      const child = spawn(process.execPath, [BIN, 'record', '--task', 't', '--config', config, '--base-url', llm.baseURL, '--workspace', join(dir, 'ws-sigint'), '--store', join(dir, 'store-sigint'), '--json'], {
        env: { ...process.env, OPENAI_API_KEY: '', NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const events: RunEvent[] = [];
      let buffered = '';
      const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        buffered += chunk;
        for (let nl = buffered.indexOf('\n'); nl !== -1; nl = buffered.indexOf('\n')) {
          const event = JSON.parse(buffered.slice(0, nl)) as RunEvent;
          buffered = buffered.slice(nl + 1);
          events.push(event);
          // The hanging call is under way: the user presses Ctrl-C.
          if (event.type === 'tool_call' && event.tool === 'fake__hang') child.kill('SIGINT');
        }
      });
      const code = await exited;
      const pid = Number(events.find((e) => e.type === 'tool_result')?.output);
      expect(code).toBe(130);
      expect(events.filter((e) => e.type === 'tool_result').map((e) => [e.tool, e.status])).toEqual([['fake__pid', 'ok'], ['fake__hang', 'error']]);
      expect(() => process.kill(pid, 0)).toThrow();
    } finally {
      await llm.close();
    }
  });

  it('a streamable HTTP server: its tools called over HTTP, the secret of its headers never on the tape', async () => {
    const everything = await startEverythingHttp();
    try {
      const config = join(dir, 'http.config.json');
      await writeFile(config, JSON.stringify({
        tools: [],
        mcpServers: { every: { type: 'http', url: everything.url, headers: { Authorization: 'Bearer ${MCP_LOOP_SECRET}', 'X-Other': LITERAL_SECRET } } },
      }));
      const store = join(dir, 'store-http');
      const result = await record(['--config', config, '--workspace', join(dir, 'ws-http'), '--store', store, '--name', 'http'], [
        { tool_calls: [call('h1', 'every__echo', { message: 'over http' })] },
        { content: 'It echoed.' },
      ], { MCP_LOOP_SECRET: SECRET });
      expect(result.code, result.stderr).toBe(0);
      const events = eventsOf(result);
      expect(events.filter((e) => e.type === 'tool_result').map((e) => [e.tool, e.server, e.status, e.output])).toEqual([['every__echo', 'every', 'ok', 'Echo: over http']]);
      const start = events.find((e) => e.type === 'run_start');
      expect(start?.type === 'run_start' && start.config['mcpServers']).toEqual({
        every: { type: 'http', url: everything.url, headers: { Authorization: '[REDACTED]', 'X-Other': '[REDACTED]' } },
      });
      const tape = join(dir, 'http.tape.jsonl');
      expect((await runCli(['export', 'http', '-o', tape, '--store', store])).code).toBe(0);
      const text = await readFile(tape, 'utf8');
      expect(text).toContain('Echo: over http');
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(LITERAL_SECRET);
      // The server is gone: the replay needs none.
      await everything.stop();
      const replay = await runCli(['replay', tape, '--json', '--no-save'], { env: noModel });
      expect(summaryOf(replay)).toMatchObject({ verdict: 'reproduced', exitCode: 0 });
    } finally {
      await everything.stop();
    }
  });

  it("runs a stdio server in the config file's directory, or in its cwd read from there", async () => {
    const sub = join(dir, 'project');
    await mkdir(join(sub, 'data'), { recursive: true });
    await writeFile(join(sub, 'agentctl.config.json'), JSON.stringify({
      tools: [],
      mcpServers: { here: { command: process.execPath, args: [FAKE] }, there: { command: process.execPath, args: [FAKE], cwd: 'data' } },
    }));
    const llm = await startMockLlm([{ tool_calls: [call('w1', 'here__cwd', {}), call('w2', 'there__cwd', {})] }, { content: 'ok' }]);
    try {
      const result = await runCli(
        ['record', '--task', 't', '--config', join('project', 'agentctl.config.json'), '--base-url', llm.baseURL, '--workspace', join(dir, 'ws-cwd'), '--store', join(dir, 'store-cwd'), '--json'],
        { env: noModel, cwd: dir },
      );
      expect(result.code, result.stderr).toBe(0);
      const events = eventsOf(result);
      expect(events.filter((e) => e.type === 'tool_result').map((e) => e.output)).toEqual([await realpath(sub), await realpath(join(sub, 'data'))]);
      const start = events.find((e) => e.type === 'run_start');
      expect(start?.type === 'run_start' && start.config['mcpServers']).toMatchObject({ here: { cwd: 'project' }, there: { cwd: join('project', 'data') } });
    } finally {
      await llm.close();
    }
  });
});
