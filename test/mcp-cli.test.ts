/**
 * `agentctl mcp -- <server>` end to end: the real binary as the `command` of the official SDK's
 * StdioClientTransport, wrapping the real memory server; recorded onto a tape file, then replayed
 * with the server's script gone, the same answers; a destructive call not on the tape refused with
 * -32001; a strict replay's divergence reported and exit 7. And its flags.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli } from './support/cli.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-mcp-cli-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const MEMORY = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-memory/dist/index.js');
const FAKE = fileURLToPath(new URL('./support/mcp-fake-server.mjs', import.meta.url));
const BASE_ENV = { AGENTCTL_MCP_LINK: undefined, AGENTCTL_MODE: undefined, AGENTCTL_STORE: undefined };
const mcp = (args: string[], env: Record<string, string | undefined> = {}) => runCli(['mcp', ...args], { env: { ...BASE_ENV, ...env } });

describe('agentctl mcp: its flags', () => {
  it('each bad combination is one agentctl: line and exit 2, nothing on standard output (the MCP channel)', async () => {
    const cases: Array<[string[], string]> = [
      [['--record', 'a.tape.jsonl'], 'agentctl: no MCP server to run: give its command after --, or its URL with --url'],
      [['--', 'node', 'server.js'], 'agentctl: say what to do with the tape: --record <name|file>, --replay <run|file> or --tape <name|file>'],
      [['--record', 'a.tape.jsonl', '--replay', 'b.tape.jsonl', '--', 'node'], 'agentctl: --record and --replay do not go together'],
      [['--record', 'a.tape.jsonl', '--mode', 'replay', '--', 'node'], 'agentctl: --mode goes with --tape, not --record'],
      [['--record', 'a.tape.jsonl', '--no-strict', '--', 'node'], 'agentctl: --strict/--no-strict apply to a replay, not record mode'],
      [['--name', 'has space', '--record', 'a.tape.jsonl', '--', 'node'], 'agentctl: --name "has space": a server name is 1-48 of A-Z a-z 0-9 _ -'],
    ];
    for (const [args, line] of cases) {
      const result = await mcp(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stdout, args.join(' ')).toBe('');
      expect(result.stderr.split('\n')[0], args.join(' ')).toBe(line);
    }
  });

  it('--help lists its flags and says standard output is the MCP channel', async () => {
    const result = await mcp(['--help']);
    expect(result.code).toBe(0);
    for (const flag of ['--name <server>', '--record <name|file>', '--replay <run|file>', '--tape <name|file>', '--mode <mode>', '--no-strict', '--allow-side-effects', '--redact <regex>']) {
      expect(result.stdout).toContain(flag);
    }
    expect(result.stdout).toContain('Standard output is the MCP channel');
    expect(result.stdout).toContain('AGENTCTL_MCP_LINK');
  });

  it('with AGENTCTL_MCP_LINK set, no tape flag is needed: it joins that run (here, none is there)', async () => {
    const result = await mcp(['--', process.execPath, '-e', ''], { AGENTCTL_MCP_LINK: 'http://127.0.0.1:9/agentctl/mcp/' + '0'.repeat(32) });
    expect(result.code).toBe(12);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^agentctl: cannot reach the run's MCP link \(\$AGENTCTL_MCP_LINK, http:\/\/127\.0\.0\.1:9\): /);
  });
});

/** The environment the SDK gives the wrapper: this one, without what would change what it does. */
function clientEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith('AGENTCTL_')) env[key] = value;
  return { ...env, AGENTCTL_CACHE: 'off', ...extra };
}

/** Start `agentctl mcp …args` as the SDK's stdio server, run `use` with a connected client, close it; what it gave, and the wrapper's standard error. */
async function withWrapper<T>(args: string[], use: (client: Client) => Promise<T>): Promise<{ value: T; stderr: string }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', ...args], env: clientEnv({ MEMORY_FILE_PATH: join(dir, 'memory.jsonl') }), stderr: 'pipe' });
  let stderr = '';
  const errors = transport.stderr;
  errors?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const ended: Promise<unknown> = errors === null ? Promise.resolve() : once(errors, 'end');
  const client = new Client({ name: 'agentctl-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    const value = await use(client);
    await client.close();
    await ended;
    return { value, stderr };
  } catch (error) {
    await client.close();
    throw error;
  }
}

const ADA = { entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }] };

/** What an agent does with the memory server: its tools, one entity created, the graph read. */
async function useMemory(client: Client): Promise<unknown[]> {
  const tools = await client.listTools();
  const created = await client.callTool({ name: 'create_entities', arguments: ADA });
  const graph = await client.callTool({ name: 'read_graph', arguments: {} });
  return [tools.tools.map((tool) => [tool.name, tool.annotations]), created, graph];
}

describe('agentctl mcp: the memory server through the SDK client', () => {
  const gone = (): string => join(dir, 'gone', 'server-memory.js');

  it('records the server\'s traffic onto a tape file, and replays it with the server gone: the same answers', async () => {
    const tape = join(dir, 'memory.tape.jsonl');
    const recorded = await withWrapper(['--record', tape, '--name', 'memory', '--', process.execPath, MEMORY], useMemory);
    expect(recorded.stderr).toContain(`agentctl mcp: 2 MCP tool calls recorded (${tape})`);
    expect(existsSync(tape)).toBe(true);
    const lines = (await readFile(tape, 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines[0]?.['run']).toMatchObject({ source: 'mcp', task: 'MCP server memory' });
    expect(lines.filter((e) => e['type'] === 'tool_call').map((e) => [e['tool'], e['server']])).toEqual([['create_entities', 'memory'], ['read_graph', 'memory']]);

    expect(existsSync(gone())).toBe(false);
    const replayed = await withWrapper(['--replay', tape, '--name', 'memory', '--', process.execPath, gone()], useMemory);
    expect(replayed.value).toEqual(recorded.value);
    expect(replayed.stderr.trim().split('\n').at(-1)).toBe(`agentctl mcp: served 2 of 2 recorded MCP tool calls (${tape})`);
  });

  it('a destructive call not on the tape is refused with -32001, and the strict replay reports the divergence', async () => {
    const tape = join(dir, 'memory.tape.jsonl');
    const replayed = await withWrapper(['--replay', tape, '--name', 'memory', '--', process.execPath, gone()], async (client) => {
      await client.listTools();
      await client.callTool({ name: 'create_entities', arguments: ADA });
      return client.callTool({ name: 'delete_entities', arguments: { entityNames: ['Ada'] } }).then(
        () => 'answered',
        (error: unknown) => error as { code?: number; message?: string },
      );
    });
    expect(replayed.value).toMatchObject({ code: -32001 });
    expect((replayed.value as { message: string }).message).toContain('tools/call delete_entities is not on the tape, and delete_entities is not read-only, so it is not run again on replay');
    expect(replayed.stderr).toContain('agentctl mcp: diverged: MCP server memory: tools/call delete_entities: not on the tape');
  });

  it('a strict replay of a changed call names its first differing field and exits 7 (--json: the counts as JSON)', async () => {
    const tape = join(dir, 'memory.tape.jsonl');
    const changed = { entities: [{ ...ADA.entities[0], name: 'Bob' }] };
    const input = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'create_entities', arguments: changed } },
    ].map((message) => `${JSON.stringify(message)}\n`).join('');
    const result = await runCli(['mcp', '--replay', tape, '--name', 'memory', '--', process.execPath, gone()], { env: BASE_ENV, input });
    expect(result.code, result.stderr).toBe(7);
    const replies = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as { id: number; error?: { code: number } });
    expect(replies.map((reply) => [reply.id, reply.error?.code])).toEqual([[1, undefined], [2, -32001]]);
    expect(result.stderr.trim().split('\n').at(-1)).toBe(
      'agentctl mcp: diverged: MCP server memory: tools/call create_entities: arguments.entities[0].name: recorded "Ada", replayed "Bob", ' +
        `served 0 of 2 recorded MCP tool calls, 1 MCP tool call refused, 1 MCP divergence, 2 recorded MCP tool calls never asked for (${tape})`,
    );
    const json = await runCli(['--json', 'mcp', '--replay', tape, '--name', 'memory', '--', process.execPath, gone()], { env: BASE_ENV, input });
    expect(json.code).toBe(7);
    const summary: unknown = JSON.parse(json.stderr.trim().split('\n').at(-1) as string);
    expect(summary).toMatchObject({ server: 'memory', mode: 'replay', onTape: 2, refused: 1, divergences: 1, firstDivergenceField: 'arguments.entities[0].name', unused: 2, exitCode: 7 });
  });
});

describe('agentctl mcp: what a server says is data, whatever its keys', () => {
  it('a schema and an answer keyed constructor, prototype, __proto__: on the tape as sent, and served again from it', async () => {
    const tape = join(dir, 'odd-keys.tape.jsonl');
    const use = async (client: Client): Promise<unknown[]> => {
      const tools = await client.listTools();
      const answer = await client.callTool({ name: 'lookup', arguments: { constructor: 'Ada', prototype: 'Bob' } });
      return [tools.tools.find((tool) => tool.name === 'lookup'), answer];
    };
    const recorded = await withWrapper(['--record', tape, '--name', 'odd', '--', process.execPath, FAKE, 'odd-keys'], use);
    expect(recorded.stderr).toContain('agentctl mcp: 1 MCP tool call recorded');
    const text = await readFile(tape, 'utf8');
    expect(text).toContain('"found":{"__proto__":{"polluted":true},"constructor":"c","prototype":"p","toString":"t"}');
    expect(text).toContain('"properties":{"constructor":{"type":"string"},"prototype":{"type":"string"}}');

    const show = await runCli(['show', tape]);
    expect(show.code, show.stderr).toBe(0);
    const replayed = await withWrapper(['--replay', tape, '--name', 'odd', '--', process.execPath, join(dir, 'gone', 'fake.mjs')], use);
    expect(replayed.value).toEqual(recorded.value);
    expect(replayed.stderr.trim().split('\n').at(-1)).toBe(`agentctl mcp: served 1 of 1 recorded MCP tool call (${tape})`);
    // Byte for byte as the server sent it, its own `__proto__` key included.
    const input = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'lookup', arguments: { constructor: 'Ada', prototype: 'Bob' } } },
    ].map((message) => `${JSON.stringify(message)}\n`).join('');
    const raw = await runCli(['mcp', '--replay', tape, '--name', 'odd', '--', process.execPath, join(dir, 'gone', 'fake.mjs')], { env: BASE_ENV, input });
    expect(raw.code, raw.stderr).toBe(0);
    expect(raw.stdout).toContain('"found":{"__proto__":{"polluted":true},"constructor":"c","prototype":"p","toString":"t"}');
  });
});

describe('agentctl mcp: a replay of a tape without the server\'s traffic', () => {
  const input = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })}\n`;
  const gone = (): string => join(dir, 'gone', 'server.js');

  it('says so first: another --name than the recorded one, or a tape with no MCP traffic at all', async () => {
    const tape = join(dir, 'named.tape.jsonl');
    await withWrapper(['--record', tape, '--name', 'memory', '--', process.execPath, MEMORY], (client) => client.listTools());
    const misnamed = await runCli(['mcp', '--replay', tape, '--name', 'memry', '--', process.execPath, gone()], { env: BASE_ENV, input });
    expect(misnamed.code).toBe(7);
    expect(misnamed.stderr.split('\n')[0]).toBe("agentctl mcp: warning: the tape holds no traffic of MCP server 'memry', only of memory: --name names the server as it was recorded");
    const loop = fileURLToPath(new URL('../tapes/halt-nudge.tape.jsonl', import.meta.url));
    const none = await runCli(['mcp', '--replay', loop, '--name', 'memory', '--', process.execPath, gone()], { env: BASE_ENV, input });
    expect(none.stderr.split('\n')[0]).toBe('agentctl mcp: warning: the tape holds no MCP traffic: nothing can be answered from it');
    // The recorded name: no warning.
    const named = await runCli(['mcp', '--replay', tape, '--name', 'memory', '--', process.execPath, gone()], { env: BASE_ENV, input });
    expect(named.stderr).not.toContain('warning');
  });
});

describe('agentctl mcp: stopped by its client', () => {
  it('SIGTERM while the client still holds its input: the server is stopped and the tape written, everything the client saw on it', async () => {
    const tape = join(dir, 'stopped.tape.jsonl');
    const child = spawn(process.execPath, [BIN, 'mcp', '--record', tape, '--name', 'memory', '--', process.execPath, MEMORY], {
      env: clientEnv({ MEMORY_FILE_PATH: join(dir, 'stopped.jsonl') }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const replies = createInterface({ input: child.stdout });
    const answered = new Map<number, (line: string) => void>();
    replies.on('line', (line) => answered.get((JSON.parse(line) as { id: number }).id)?.(line));
    const ask = (id: number, method: string, params: unknown): Promise<string> =>
      new Promise((resolve) => {
        answered.set(id, resolve);
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      });
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    try {
      await ask(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } });
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
      expect(await ask(2, 'tools/call', { name: 'create_entities', arguments: ADA })).toContain('Ada');
      child.kill('SIGTERM');
      const [code] = await exited;
      expect(code, stderr).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
    expect(stderr).toContain(`agentctl mcp: 1 MCP tool call recorded (${tape})`);
    const types = (await readFile(tape, 'utf8')).trim().split('\n').slice(1).map((line) => (JSON.parse(line) as { type: string }).type);
    expect(types).toEqual(['run_start', 'mcp_exchange', 'mcp_exchange', 'tool_call', 'tool_result', 'run_end']);
  });
});

describe('agentctl mcp: a server that cannot start', () => {
  it('a command not on PATH: one agentctl: line, exit 2, and the recording ended (no hidden recording directory left)', async () => {
    const tape = join(dir, 'missing.tape.jsonl');
    const input = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })}\n`;
    const result = await runCli(['mcp', '--record', tape, '--', 'agentctl-no-such-server'], { env: BASE_ENV, input });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("agentctl: MCP server 'agentctl-no-such-server' could not be started: 'agentctl-no-such-server' is not on its PATH\n");
    expect(existsSync(join(dir, '.missing.tape.jsonl.recording'))).toBe(false);
    expect(existsSync(tape)).toBe(true);
  });
});
