/**
 * `agentctl run` and the MCP servers of its command: the run's MCP link reaches the command in
 * AGENTCTL_MCP_LINK, what a wrapper writes through it lands on the run's tape with its model calls,
 * a replay serves it back, and the last line and exit code count it.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from './support/cli.js';
import { startMockLlm } from './support/mock-llm.js';

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
  await link.write({ type: 'tool_result', server: 'memory', callId, tool: 'read_graph', status: 'ok', output: 'graph', durationMs: 1, mcp: { result: { content: [] } } });
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
