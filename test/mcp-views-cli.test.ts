/**
 * MCP tool calls as `agentctl view`, `show` and `diff` read them, through the real binary, from tape
 * files made as the recorders write them: a run whose agent used an MCP server through
 * `agentctl mcp`, and a run of the built-in agent with an MCP server's tools.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../src/core/events.js';
import type { RunMeta } from '../src/core/run-meta.js';
import { mcpAgentRun, mcpBuiltInRun, type McpStep } from '../src/replay/test-support/mcp-runs.js';
import { runCli } from './support/cli.js';

let dir: string;
const tape = async (name: string, run: { meta: RunMeta; events: readonly RunEvent[] }): Promise<string> => {
  const path = join(dir, `${name}.tape.jsonl`);
  await writeFile(path, [{ format: 'agentctl-tape', version: 1, run: run.meta }, ...run.events].map((v) => JSON.stringify(v)).join('\n') + '\n');
  return path;
};

const read: McpStep = { calls: [{ tool: 'read_file', args: { path: 'a.txt' }, output: 'hello' }] };
let agent: string;
let loop: string;
let otherServer: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-mcp-views-'));
  agent = await tape('agent', mcpAgentRun([read, read, read]));
  const moved = mcpAgentRun([read, read, read]);
  otherServer = await tape('other', { ...moved, events: moved.events.map((e) => (e.type === 'tool_call' || e.type === 'tool_result') && e.step === 1 ? { ...e, server: 'docs' } : e) });
  loop = await tape('loop', mcpBuiltInRun([read, { calls: [{ tool: 'write_file', args: { path: 'b.txt', content: 'x' } }] }]));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('MCP tool calls in view, show and diff', () => {
  it('view: each MCP call and result with its server, the handshake a line per request, the analysis stopping the third identical read', async () => {
    const result = await runCli(['view', agent, '--no-tui']);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toContain('[0]   mcp files initialize → ok (files-server 0.6.2)');
    expect(lines).toContain('[0]   mcp files tools/list → 2 tools');
    expect(lines).toContain('[0]   call read_file (mcp files) {"path":"a.txt"}');
    expect(lines).toContain('[0]   ok read_file (mcp files): hello');
    expect(lines).toContain('[2]   analysis · ✗ block loop_guard/identical_call_block read_file: identical call 3 of 3: blocked');
    expect(lines.at(-1)).toMatch(/; analysis: would have been stopped at step 2 by identical_call_block$/);
    const json = (await runCli(['view', agent, '--json'])).stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(json.find((e) => e.type === 'mcp_exchange' && e.method === 'tools/list')).toMatchObject({ server: 'files', from: 'client', reply: { result: { tools: [{ name: 'read_file' }, { name: 'write_file' }] } } });
    expect(json.find((e) => e.type === 'tool_result')).toMatchObject({ server: 'files', mcp: { result: { content: [{ type: 'text', text: 'hello' }] } } });
  });

  it('show: the MCP servers with their tools and calls, from the events of an agent\'s run and from the recorded tools of a built-in run', async () => {
    const row = (stdout: string, name: string): string | undefined => stdout.split('\n').find((line) => line.startsWith(name))?.replace(new RegExp(`^${name}\\s+`), '');
    const shown = await runCli(['show', agent]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(row(shown.stdout, 'mcp servers')).toBe('files (2 tools, 3 calls)');
    const builtIn = await runCli(['show', loop]);
    expect(builtIn.code, builtIn.stderr).toBe(0);
    expect(row(builtIn.stdout, 'mcp servers')).toBe('files (2 tools, 2 calls)');
    expect(row(builtIn.stdout, 'tools')).toBe('read_file, files__read_file (mcp), files__write_file (mcp)');
    const json = JSON.parse((await runCli(['show', loop, '--json'])).stdout) as Record<string, unknown>;
    expect(json.mcpServers).toEqual([{ name: 'files', tools: 2, calls: 2 }]);
    expect(json.tools).toEqual([
      { name: 'read_file', custom: false },
      { name: 'files__read_file', custom: true, server: 'files' },
      { name: 'files__write_file', custom: true, server: 'files' },
    ]);
    expect((await runCli(['show', otherServer])).stdout).toMatch(/^mcp servers +files \(2 tools, 2 calls\), docs \(1 call\)$/m);
  });

  it('diff: the step whose call went to another server, each side\'s server named', async () => {
    const result = await runCli(['diff', agent, otherServer, '--exit-code']);
    expect(result.code, result.stderr).toBe(7);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toContain('step 1  ≠  first difference');
    expect(lines).toContain('     tool read_file (mcp files) → ok "hello"');
    expect(lines).toContain('     tool read_file (mcp docs) → ok "hello"');
    expect(lines).toContain('  first differing: event 2 (tool_call) at server');
    expect(lines).toContain('    A: "files"');
    expect(lines).toContain('    B: "docs"');
  });
});
