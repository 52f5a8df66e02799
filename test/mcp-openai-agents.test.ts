/**
 * An @openai/agents agent with an MCP server, recorded and replayed by `agentctl run` with no change
 * to the agent: its MCP config names `agentctl mcp -- <server>` as the server's command, written as
 * users write it (the SDK starts the wrapper with its default environment, without the run's
 * AGENTCTL_MCP_LINK: the wrapper finds its run anyway). The model (aimock on 127.0.0.1) asks for
 * the filesystem server's write_file, then answers; the tape holds both model calls and the MCP
 * traffic between them, in order. The replay runs with the model server stopped and the MCP server's
 * script deleted: the agent prints the same answer, and the file it wrote is not written again.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../src/core/events.js';
import { openTapeFile } from '../src/tape/tape-file.js';
import { startAimock, type Aimock } from './support/aimock.js';
import { BIN, runCli } from './support/cli.js';

const require = createRequire(import.meta.url);
const FILESYSTEM = pathToFileURL(require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js')).href;
const AGENTS = pathToFileURL(require.resolve('@openai/agents').replace(/index\.js$/, 'index.mjs')).href;
const API_KEY = 'sk-mcp-agents-0123456789abcdef0123';

const BASE_ENV = {
  OPENAI_BASE_URL: undefined, OPENAI_API_KEY: undefined, ANTHROPIC_BASE_URL: undefined, ANTHROPIC_API_KEY: undefined,
  AGENTCTL_MODE: undefined, AGENTCTL_STORE: undefined, AGENTCTL_MCP_LINK: undefined,
};

let dir: string;
let data: string;
let model: Aimock | undefined;

/** The agent: the filesystem server on `data`, started through `agentctl mcp` by the SDK's own MCPServerStdio. */
const AGENT = (server: string, data: string): string => `
import { Agent, MCPServerStdio, run, setTracingDisabled } from ${JSON.stringify(AGENTS)};
setTracingDisabled(true);
const files = new MCPServerStdio({
  name: 'files',
  command: ${JSON.stringify(process.execPath)},
  args: [${JSON.stringify(BIN)}, 'mcp', '--name', 'files', '--', ${JSON.stringify(process.execPath)}, ${JSON.stringify(server)}, ${JSON.stringify(data)}],
});
await files.connect();
try {
  const agent = new Agent({ name: 'writer', instructions: 'Use the tools.', model: 'gpt-4.1-mini', mcpServers: [files] });
  const result = await run(agent, 'Write the note');
  console.log(result.finalOutput);
} finally {
  await files.close();
}
`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-mcp-agents-'));
  data = join(dir, 'data');
  await mkdir(data);
});

afterAll(async () => {
  await model?.close();
  await rm(dir, { recursive: true, force: true });
});

const events = async (file: string): Promise<RunEvent[]> => {
  const tape = await openTapeFile(file);
  const read: RunEvent[] = [];
  for await (const event of tape.events()) read.push(event);
  return read;
};

describe('an @openai/agents agent with an MCP server, under agentctl run', () => {
  it('is recorded with its MCP traffic between its model calls, and replayed offline without writing the file again', async () => {
    const note = join(data, 'note.txt');
    model = await startAimock([
      { match: { userMessage: 'Write the note', hasToolResult: false }, response: { toolCalls: [{ name: 'write_file', arguments: JSON.stringify({ path: note, content: 'hello from the agent' }) }] } },
      { match: { userMessage: 'Write the note', hasToolResult: true }, response: { content: 'The note is written.' } },
    ]);
    // The server is started through a launcher of the test's own, deleted before the replay: a replay that started it would fail.
    const server = join(dir, 'filesystem-server.mjs');
    await writeFile(server, `await import(${JSON.stringify(FILESYSTEM)});\n`);
    const agent = join(dir, 'agent.mjs');
    await writeFile(agent, AGENT(server, data));
    const tape = join(dir, 'agent.tape.jsonl');
    const store = join(dir, 'store');

    const recorded = await runCli(['--store', store, 'run', '--record', tape, '--', process.execPath, agent], {
      env: { ...BASE_ENV, OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: API_KEY },
      timeoutMs: 60_000,
    });
    expect(recorded.code, recorded.stderr).toBe(0);
    expect(recorded.stdout).toBe('The note is written.\n');
    expect(await readFile(note, 'utf8')).toBe('hello from the agent');

    const onTape = await events(tape);
    const order = onTape
      .filter((e) => e.type === 'llm_request' || e.type === 'llm_response' || e.type === 'tool_call' || e.type === 'tool_result')
      .map((e) => (e.type === 'tool_call' || e.type === 'tool_result' ? `${e.type} ${e.server ?? ''} ${e.tool}` : e.type));
    expect(order).toEqual(['llm_request', 'llm_response', 'tool_call files write_file', 'tool_result files write_file', 'llm_request', 'llm_response']);
    const call = onTape.find((e) => e.type === 'tool_call');
    expect(call).toMatchObject({ server: 'files', tool: 'write_file' });
    expect(JSON.parse((call as { arguments: string }).arguments)).toEqual({ path: note, content: 'hello from the agent' });
    expect(onTape.some((e) => e.type === 'mcp_exchange' && e.method === 'tools/list')).toBe(true);
    expect(JSON.stringify(onTape)).not.toContain(API_KEY);

    await model.close();
    model = undefined;
    await rm(server);
    await rm(note);
    const replayed = await runCli(['--store', store, 'run', '--replay', tape, '--', process.execPath, agent], { env: BASE_ENV, timeoutMs: 60_000 });
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(replayed.stdout).toBe('The note is written.\n');
    // The write was served from the tape: the file is not there again.
    expect(existsSync(note)).toBe(false);
    expect(replayed.stderr.trim().split('\n').at(-1)).toMatch(/served 2 of 2 recorded calls from .*, 0 divergences, served 1 of 1 recorded MCP tool call; the command exited 0$/);
  });
});
