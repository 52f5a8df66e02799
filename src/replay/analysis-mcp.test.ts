import { describe, expect, it } from 'vitest';
import { analyseRun, type AnalysisOptions, type RunAnalysis } from './guardrail-analysis.js';
import { listedToolFlags } from './analysis-mcp-tools.js';
import { mcpAgentRun, mcpBuiltInRun, type McpCall, type McpStep } from './test-support/mcp-runs.js';

const notable = (analysis: RunAnalysis): string[] =>
  analysis.decisions.filter((d) => d.verdict !== 'allow' && d.verdict !== 'continue').map((d) => `${d.step} ${d.verdict} ${d.rule}`);

const read = (extra: Partial<McpCall> = {}): McpStep => ({ calls: [{ tool: 'read_file', args: { path: 'a.txt' }, output: 'hello', ...extra }] });
const write = (extra: Partial<McpCall> = {}): McpStep => ({ calls: [{ tool: 'write_file', args: { path: 'b.txt', content: 'x' }, ...extra }] });

const library = (steps: McpStep[], options?: AnalysisOptions, listed = true) => {
  const run = mcpAgentRun(steps, { listed });
  return analyseRun(run.meta, run.events, options);
};

describe('analysis of a run whose agent used an MCP server through agentctl mcp', () => {
  it('a read-only MCP tool called three times identically: stopped at the identical-call block, its outcome the recorded MCP result (the duplicate is skipped, never run)', () => {
    const analysis = library([read(), read(), read()]);
    expect(analysis.stop).toMatchObject({ step: 2, rule: 'identical_call_block', verdict: 'block', callId: 'call_2_0' });
    expect(notable(analysis)).toEqual(['1 skip duplicate_success', '2 block identical_call_block']);
    expect(analysis.outcomes).toEqual({ recorded: 1, fromMessages: 0, unknown: 0 });
  });

  it('a mutating MCP tool (its tools/list annotations) that succeeds resets the identical-call memory; unlisted, it would not have', () => {
    const steps = [read(), read(), write(), read()];
    expect(library(steps).stop).toBeNull();
    expect(notable(library(steps))).toEqual(['1 skip duplicate_success']);
    // No listing: write_file is an unknown tool (idempotent, not mutating), and the fourth read is identical call 3.
    expect(library(steps, {}, false).stop).toMatchObject({ step: 3, rule: 'identical_call_block' });
  });

  it('a failed mutating call resets nothing: only a success changes what the reads return', () => {
    expect(library([read(), read(), write({ status: 'error' }), read()]).stop).toMatchObject({ step: 3, rule: 'identical_call_block' });
  });

  it('--set guardrails.tools.<name> wins over the annotations, flag by flag', () => {
    const steps = [read(), read(), write(), read()];
    expect(library(steps, { config: { tools: { write_file: { mutating: false } } } }).stop).toMatchObject({ step: 3, rule: 'identical_call_block' });
    // A flag left out keeps the annotation's: write_file stays mutating; read_file, not idempotent now, stays not mutating (no reset by its own success).
    expect(library(steps, { config: { tools: { write_file: { idempotent: false } } } }).stop).toBeNull();
    const notIdempotent = library([read(), read(), read()], { config: { tools: { read_file: { idempotent: false } } } });
    expect(notable(notIdempotent)).toEqual(['2 block identical_call_block']);
  });

  it('a model that calls the tools by the names agentctl offers them by (files__read_file): matched to the MCP calls, flags by that name', () => {
    const steps = [read({ modelName: 'files__read_file' }), read({ modelName: 'files__read_file' }), write({ modelName: 'files__write_file' }), read({ modelName: 'files__read_file' })];
    const analysis = library(steps);
    expect(analysis.outcomes).toEqual({ recorded: 3, fromMessages: 0, unknown: 0 });
    expect(analysis.stop).toBeNull();
    const run = mcpAgentRun(steps);
    const failedWrite = run.events.map((e) => (e.type === 'tool_result' && e.tool === 'write_file' ? { ...e, status: 'error' as const } : e));
    expect(analyseRun(run.meta, failedWrite).stop).toMatchObject({ step: 3, rule: 'identical_call_block' });
  });

  it('a model that calls the tools by names its agent made (mcp__files__read_file, files_read_file): matched as well', () => {
    for (const prefix of ['mcp__files__', 'files_']) {
      const steps = [read({ modelName: `${prefix}read_file` }), read({ modelName: `${prefix}read_file` }), write({ modelName: `${prefix}write_file` }), read({ modelName: `${prefix}read_file` })];
      const analysis = library(steps);
      expect(analysis.outcomes, prefix).toEqual({ recorded: 3, fromMessages: 0, unknown: 0 });
      expect(analysis.stop, prefix).toBeNull();
      // Another server's name before the tool's: neither the outcome nor the flags.
      const other = library([read({ modelName: 'docs_read_file' }), read({ modelName: 'docs_read_file' })]);
      expect(other.outcomes).toEqual({ recorded: 0, fromMessages: 0, unknown: 2 });
    }
  });

  it('an MCP call with other arguments than the model asked for is not its outcome', () => {
    for (const modelName of ['read_file', 'files__read_file']) {
      const run = mcpAgentRun([read({ modelName })]);
      const other = run.events.map((e) => (e.type === 'tool_call' ? { ...e, key: 'another key' } : e));
      expect(analyseRun(run.meta, other).outcomes, modelName).toEqual({ recorded: 0, fromMessages: 0, unknown: 1 });
    }
  });

  it('a proxy run is analysed the same way', () => {
    const run = mcpAgentRun([read(), read(), read()], { source: 'proxy' });
    expect(analyseRun(run.meta, run.events).stop).toMatchObject({ step: 2, rule: 'identical_call_block' });
  });
});

describe('listedToolFlags', () => {
  it('by the tool\'s own name and the offered one; a name two servers list takes the cautious flags of both; a later listing replaces an earlier one', () => {
    const a = mcpAgentRun([], {
      server: 'a',
      tools: [{ name: 'get', annotations: { readOnlyHint: true } }, { name: 'put', annotations: { idempotentHint: true } }, { name: 'find', annotations: { readOnlyHint: true } }],
    });
    const b = mcpAgentRun([], { server: 'b', tools: [{ name: 'get', annotations: { readOnlyHint: false, idempotentHint: true } }, { name: 'find' }] });
    const relisted = mcpAgentRun([], { server: 'a', tools: [{ name: 'put' }] });
    const exchanges = (run: typeof a) => run.events.filter((e) => e.type === 'mcp_exchange');
    const flags = listedToolFlags([...exchanges(a), ...exchanges(b), ...exchanges(relisted)]);
    expect(flags('a__get')).toEqual({ idempotent: true, mutating: false });
    expect(flags('b__get')).toEqual({ idempotent: true, mutating: true });
    expect(flags('get')).toEqual({ idempotent: true, mutating: true });
    expect(flags('a__put')).toEqual({ idempotent: false, mutating: true });
    expect(flags('put')).toEqual({ idempotent: false, mutating: true });
    expect(flags('find')).toEqual({ idempotent: false, mutating: true });
    expect(flags('initialize')).toBeUndefined();
    // Names an agent made of the server's and the tool's: the server's name last before the separators.
    expect(flags('mcp__a__get')).toEqual({ idempotent: true, mutating: false });
    expect(flags('a_get')).toEqual({ idempotent: true, mutating: false });
    expect(flags('a.get')).toEqual({ idempotent: true, mutating: false });
    expect(flags('b-find')).toEqual({ idempotent: false, mutating: true });
    for (const other of ['xa_get', 'a_getx', 'aget', 'a__', 'a_b_get_', 'c__get']) expect(flags(other), other).toBeUndefined();
  });
});

describe('analysis of a built-in run with MCP tools', () => {
  it('the MCP tools keep the flags their recorded specs give, though the config\'s tools do not name them', () => {
    const run = (steps: McpStep[]) => mcpBuiltInRun(steps);
    const reads = run([read(), read(), read()]);
    expect(analyseRun(reads.meta, reads.events).stop).toMatchObject({ step: 2, rule: 'identical_call_block' });
    const reset = run([read(), read(), write(), read()]);
    expect(analyseRun(reset.meta, reset.events).stop).toBeNull();
    expect(analyseRun(reset.meta, reset.events, { config: { tools: { files__write_file: { mutating: false } } } }).stop).toMatchObject({ step: 3 });
  });
});
