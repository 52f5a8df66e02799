/**
 * MCP on today's SDKs: an @openai/agents 0.20 agent (whose MCP client is @modelcontextprotocol/client
 * 2.x) with the filesystem server, its MCP config naming `agentctl mcp -- <server>` as users write
 * it (the client starts the wrapper with its default environment), recorded by `agentctl run`, then
 * replayed with the model server stopped and the server's launcher deleted: the same answer, the
 * file not written again, the MCP calls served from the tape.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { LLMock } from '@copilotkit/aimock';
import { API_KEY, MODEL, scratch } from '../support.mjs';

const require = createRequire(import.meta.url);
const AGENTCTL = fileURLToPath(new URL('../node_modules/agentctl/bin/agentctl.js', import.meta.url));
const FILESYSTEM = pathToFileURL(require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js')).href;
const AGENTS = import.meta.resolve('@openai/agents');

let scratchDir;
let mock;
before(async () => {
  scratchDir = await scratch('mcp-agents');
});
after(async () => {
  await mock?.stop();
  await scratchDir.remove();
});

/** `agentctl run …` in the scratch directory: its exit code and output. */
function run(args, env) {
  return new Promise((resolve, reject) => {
    const clean = { ...process.env, OPENAI_BASE_URL: undefined, OPENAI_API_KEY: undefined, AGENTCTL_MCP_LINK: undefined, ...env };
    for (const key of Object.keys(clean)) if (clean[key] === undefined) delete clean[key];
    const child = spawn(process.execPath, [AGENTCTL, '--store', join(scratchDir.dir, 'store'), 'run', ...args], { cwd: scratchDir.dir, env: clean, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('an @openai/agents 0.20 agent with an MCP server: recorded by agentctl run, replayed with the model and the server gone', async () => {
  const data = join(scratchDir.dir, 'data');
  await mkdir(data);
  const note = join(data, 'note.txt');
  mock = new LLMock({ host: '127.0.0.1', port: 0, logLevel: 'silent' });
  mock.on({ userMessage: 'Write the note', hasToolResult: false }, { toolCalls: [{ name: 'write_file', arguments: JSON.stringify({ path: note, content: 'hello from the agent' }) }] });
  mock.on({ userMessage: 'Write the note', hasToolResult: true }, { content: 'The note is written.' });
  await mock.start();
  const server = join(scratchDir.dir, 'filesystem-server.mjs');
  await writeFile(server, `await import(${JSON.stringify(FILESYSTEM)});\n`);
  const agent = join(scratchDir.dir, 'agent.mjs');
  await writeFile(agent, `
import { Agent, MCPServerStdio, run, setTracingDisabled } from ${JSON.stringify(AGENTS)};
setTracingDisabled(true);
const files = new MCPServerStdio({ name: 'files', command: ${JSON.stringify(process.execPath)},
  args: [${JSON.stringify(AGENTCTL)}, 'mcp', '--name', 'files', '--', ${JSON.stringify(process.execPath)}, ${JSON.stringify(server)}, ${JSON.stringify(data)}] });
await files.connect();
try {
  const agent = new Agent({ name: 'writer', instructions: 'Use the tools.', model: ${JSON.stringify(MODEL)}, mcpServers: [files] });
  console.log((await run(agent, 'Write the note')).finalOutput);
} finally {
  await files.close();
}
`);
  const tape = join(scratchDir.dir, 'agent.tape.jsonl');

  const recorded = await run(['--record', tape, '--', process.execPath, agent], { OPENAI_BASE_URL: `${mock.url}/v1`, OPENAI_API_KEY: API_KEY });
  assert.equal(recorded.code, 0, recorded.stderr);
  assert.equal(recorded.stdout, 'The note is written.\n');
  assert.equal(await readFile(note, 'utf8'), 'hello from the agent');
  const text = await readFile(tape, 'utf8');
  const events = text.trim().split('\n').slice(1).map((line) => JSON.parse(line));
  assert.deepEqual(
    events.filter((e) => e.type === 'tool_call').map((e) => [e.server, e.tool]),
    [['files', 'write_file']],
  );
  assert.ok(!text.includes(API_KEY));

  await mock.stop();
  mock = undefined;
  await rm(server);
  await rm(note);
  const replayed = await run(['--replay', tape, '--', process.execPath, agent], {});
  assert.equal(replayed.code, 0, replayed.stderr);
  assert.equal(replayed.stdout, 'The note is written.\n');
  assert.equal(existsSync(note), false);
  assert.match(replayed.stderr.trim().split('\n').at(-1), /served 1 of 1 recorded MCP tool call; the command exited 0$/);
});
