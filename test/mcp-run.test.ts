/**
 * `agentctl run` and the MCP servers of its command: the run's MCP link reaches the command in
 * AGENTCTL_MCP_LINK, what a wrapper writes through it lands on the run's tape with its model calls,
 * a replay serves it back, and the last line and exit code count it. End to end: a Node agent on the
 * real `openai` package and the official MCP SDK, its memory server wrapped in `agentctl mcp`,
 * recorded against the scripted model, then replayed with the model server and the MCP server both
 * gone — the same output; a changed MCP argument fails the replay (exit 7) naming its field.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli, type CliResult } from './support/cli.js';
import { startMockLlm } from './support/mock-llm.js';

const require = createRequire(import.meta.url);
const MEMORY = require.resolve('@modelcontextprotocol/server-memory/dist/index.js');
/** A module of the SDK, as an ES module's URL (the agent below imports it from its temp directory). */
const sdk = (path: string): string => pathToFileURL(require.resolve(`@modelcontextprotocol/sdk/${path}`).replace(`${'/dist/cjs/'}`, '/dist/esm/')).href;

const BASE_ENV = {
  OPENAI_BASE_URL: undefined, OPENAI_API_KEY: undefined, ANTHROPIC_BASE_URL: undefined, ANTHROPIC_API_KEY: undefined,
  AGENTCTL_MODE: undefined, AGENTCTL_STORE: undefined, AGENTCTL_MCP_LINK: undefined,
};

let dir: string;
let store: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-mcp-run-'));
  store = join(dir, 'store');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const run = (args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> =>
  runCli(['--store', store, 'run', ...args], { env: { ...BASE_ENV, ...env }, timeoutMs: 30_000 });
const lastLine = (text: string): string => text.trim().split('\n').at(-1) as string;

describe('agentctl run: the MCP link', () => {
  /**
   * A wrapper reduced to its link (the built remote link, joined through AGENTCTL_MCP_LINK): one
   * model call, then — recording — one MCP tool call written; replaying, the recorded events read
   * and the call reported served (unless SKIP).
   */
  const LINKED = (remoteLink: string): string => `
import { remoteLink } from ${JSON.stringify(remoteLink)};
const answer = await (await fetch(process.env.OPENAI_BASE_URL + '/chat/completions', {
  method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer ' + process.env.OPENAI_API_KEY },
  body: JSON.stringify({ model: 'mock-model', messages: [{ role: 'user', content: 'hi' }] }),
})).json();
console.log('model: ' + answer.choices[0].message.content);
const link = await remoteLink(process.env.AGENTCTL_MCP_LINK);
console.log('link: ' + link.mode + (link.strict ? ' strict' : ''));
if (link.mode === 'record') {
  const callId = await link.writeCall({ type: 'tool_call', server: 'memory', tool: 'read_graph', arguments: '{}', key: 'k' });
  await link.write({ type: 'tool_result', server: 'memory', callId, tool: 'read_graph', status: 'ok', output: 'graph', durationMs: 1, mcp: { result: { content: [{ type: 'text', text: 'graph' }] } } });
  console.log('wrote ' + callId);
} else {
  const events = await link.recorded('memory');
  console.log('recorded: ' + events.map((e) => e.type + ' ' + e.step).join(', '));
  if (!process.env.SKIP) await link.report({ kind: 'request', server: 'memory', method: 'tools/call', tool: 'read_graph', outcome: 'served' });
}
await link.close();
`;

  it('records what a wrapper writes onto the run\'s tape after the model call it followed; a replay serves it, and exits 7 when it is never asked for', async () => {
    const script = join(dir, 'linked.mjs');
    await writeFile(script, LINKED(pathToFileURL(join(process.cwd(), 'dist', 'mcp', 'remote-link.js')).href));
    const tape = join(dir, 'linked.tape.jsonl');
    const llm = await startMockLlm([{ content: 'hello' }]);
    try {
      const recorded = await run(['--record', tape, '--', process.execPath, script], { OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: 'sk-test-key-0123456789' });
      expect(recorded.code, recorded.stderr).toBe(0);
      expect(recorded.stdout).toBe('model: hello\nlink: record\nwrote memory/read_graph:0\n');
      expect(lastLine(recorded.stderr)).toBe(`agentctl run: recorded 1 model call onto ${tape}, 1 MCP tool call recorded; the command exited 0`);
    } finally {
      await llm.close();
    }
    const types = (await readFile(tape, 'utf8')).trim().split('\n').slice(1).map((line) => (JSON.parse(line) as { type: string }).type);
    expect(types).toEqual(['run_start', 'llm_request', 'llm_response', 'tool_call', 'tool_result', 'run_end']);

    const replayed = await run(['--json', '--replay', tape, '--', process.execPath, script]);
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(replayed.stdout).toBe('model: hello\nlink: replay strict\nrecorded: tool_call 0, tool_result 0\n');
    // The link's requests are not the command's: not counted among the proxied ones.
    const summary: unknown = JSON.parse(lastLine(replayed.stderr));
    expect(summary).toMatchObject({ requests: 1, exitCode: 0, mcp: { onTape: 1, served: 1, unused: 0, divergences: 0 } });

    const unused = await run(['--replay', tape, '--', process.execPath, script], { SKIP: '1' });
    expect(unused.code, unused.stderr).toBe(7);
    expect(lastLine(unused.stderr)).toBe(
      `agentctl run: diverged: 1 recorded MCP tool call never asked for (served 1 of 1 from ${tape}), served 0 of 1 recorded MCP tool call; the command exited 0`,
    );
    const loose = await run(['--replay', tape, '--no-strict', '--', process.execPath, script], { SKIP: '1' });
    expect(loose.code, loose.stderr).toBe(0);
  });
});

/**
 * An agent: the memory server's tools offered to the model, the tool call it asks for made on the
 * server (its first entity renamed to $RENAME when set), the graph read, and the model's answer.
 */
const AGENT = `
import OpenAI from ${JSON.stringify(pathToFileURL(require.resolve('openai')).href)};
import { Client } from ${JSON.stringify(sdk('client/index.js'))};
import { StdioClientTransport, getDefaultEnvironment } from ${JSON.stringify(sdk('client/stdio.js'))};
const openai = new OpenAI({ maxRetries: 0 });
const mcp = new Client({ name: 'agent', version: '1.0.0' });
await mcp.connect(new StdioClientTransport({
  command: process.execPath,
  args: [${JSON.stringify(BIN)}, 'mcp', '--name', 'memory', '--', process.execPath, process.env.MEMORY_SERVER],
  env: { ...getDefaultEnvironment(), AGENTCTL_MCP_LINK: process.env.AGENTCTL_MCP_LINK, MEMORY_FILE_PATH: process.env.MEMORY_FILE_PATH, AGENTCTL_CACHE: 'off' },
}));
const { tools } = await mcp.listTools();
const defs = tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.inputSchema } }));
const messages = [{ role: 'user', content: 'remember Ada' }];
const first = (await openai.chat.completions.create({ model: 'mock-model', messages, tools: defs })).choices[0].message;
messages.push(first);
for (const call of first.tool_calls ?? []) {
  const args = JSON.parse(call.function.arguments);
  if (process.env.RENAME) args.entities[0].name = process.env.RENAME;
  let text;
  try {
    text = (await mcp.callTool({ name: call.function.name, arguments: args })).content.map((c) => c.text).join('\\n');
  } catch (error) {
    console.log('tool failed: ' + error.code);
    await mcp.close();
    process.exit(1);
  }
  console.log('tool: ' + text);
  messages.push({ role: 'tool', tool_call_id: call.id, content: text });
}
console.log('graph: ' + (await mcp.callTool({ name: 'read_graph', arguments: {} })).content[0].text);
const answer = (await openai.chat.completions.create({ model: 'mock-model', messages, tools: defs })).choices[0].message;
console.log('answer: ' + answer.content);
await mcp.close();
`;

describe('agentctl run: an agent with an MCP server, on one tape', () => {
  const ADA = { entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }] };

  it('records the model calls and the MCP traffic in order; replays both offline; a changed MCP argument exits 7 naming its field', async () => {
    const script = join(dir, 'agent.mjs');
    await writeFile(script, AGENT);
    const tape = join(dir, 'agent.tape.jsonl');
    const memoryFile = join(dir, 'memory.jsonl');
    const llm = await startMockLlm([{ tool_calls: [{ name: 'create_entities', arguments: ADA }] }, { content: 'Ada is remembered.' }]);
    let output: string;
    try {
      const recorded = await run(['--record', tape, '--', process.execPath, script], {
        OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: 'sk-test-key-0123456789', MEMORY_SERVER: MEMORY, MEMORY_FILE_PATH: memoryFile,
      });
      expect(recorded.code, recorded.stderr).toBe(0);
      output = recorded.stdout;
      expect(output).toContain('tool: ');
      expect(output).toContain('"name": "Ada"');
      expect(output).toMatch(/answer: Ada is remembered\.\n$/);
      expect(lastLine(recorded.stderr)).toBe(`agentctl run: recorded 2 model calls onto ${tape}, 2 MCP tool calls recorded; the command exited 0`);
      llm.assertConsumed();
    } finally {
      await llm.close();
    }
    const events = (await readFile(tape, 'utf8')).trim().split('\n').slice(1).map((line) => JSON.parse(line) as Record<string, unknown>);
    const told = (e: Record<string, unknown>): unknown => {
      if (e['type'] === 'mcp_exchange') return `${String(e['from'])} ${String(e['method'])}`;
      return e['type'] === 'tool_call' || e['type'] === 'tool_result' ? `${String(e['type'])} ${String(e['tool'])}` : e['type'];
    };
    const story = events.filter((e) => e['type'] !== 'run_start' && e['type'] !== 'run_end').map(told);
    expect(story).toEqual([
      'client initialize', 'client notifications/initialized', 'client tools/list',
      'llm_request', 'llm_response',
      'tool_call create_entities', 'tool_result create_entities', 'tool_call read_graph', 'tool_result read_graph',
      'llm_request', 'llm_response',
    ]);

    // The model server is closed, and the MCP server's script is not there.
    const gone = join(dir, 'gone', 'server-memory.js');
    expect(existsSync(gone)).toBe(false);
    const replayed = await run(['--replay', tape, '--', process.execPath, script], { MEMORY_SERVER: gone, MEMORY_FILE_PATH: join(dir, 'unused.jsonl') });
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(replayed.stdout).toBe(output);
    expect(lastLine(replayed.stderr)).toBe(`agentctl run: served 2 of 2 recorded calls from ${tape}, 0 divergences, served 2 of 2 recorded MCP tool calls; the command exited 0`);
    expect(existsSync(join(dir, 'unused.jsonl'))).toBe(false);

    const changed = await run(['--replay', tape, '--', process.execPath, script], { MEMORY_SERVER: gone, RENAME: 'Bob' });
    expect(changed.code, changed.stderr).toBe(7);
    expect(changed.stdout).toContain('tool failed: -32001');
    expect(lastLine(changed.stderr)).toContain(
      `agentctl run: diverged: MCP server memory: tools/call create_entities: arguments.entities[0].name: recorded "Ada", replayed "Bob" (served 1 of 2 from ${tape})`,
    );
  });
});
