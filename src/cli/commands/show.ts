import type { GuardrailEvent, LeftOutTool, RunEndEvent, RunEvent, RunEventType, RunStartEvent } from '../../core/events.js';
import { recordedBy, type RunMeta, type RunSource } from '../../core/run-meta.js';
import { printableJson } from '../../core/terminal-text.js';
import type { ToolSpec } from '../../core/tools.js';
import type { AnalysisStop } from '../../replay/guardrail-analysis.js';
import { runOutcome, shortTime, table } from '../format.js';
import { McpServerCounts, mcpServersText } from '../render/mcp-servers.js';
import { serverMark } from '../../mcp/event-text.js';
import { out, type GlobalOptions } from '../io.js';
import { withTapeSource } from '../with-tape-source.js';

/**
 * `agentctl show <run | file>`: a run's metadata and what its tape holds. The verdicts of a run
 * recorded without the guardrails are its analysis's (counted apart: what they would have decided).
 * The MCP servers it used are named with their tools and calls (render/mcp-servers.ts).
 */
export async function runShow(ref: string, options: GlobalOptions): Promise<void> {
  await withTapeSource(ref, options, async ({ meta, events: read }) => {
    const byType: Partial<Record<RunEventType, number>> = {};
    const decisions: GuardrailEvent[] = [];
    // The analysis is of the whole run: a run that may need one (not the built-in loop's) is kept until it is read.
    const held: RunEvent[] | null = recordedBy(meta) === 'cli' ? null : [];
    let events = 0;
    let start: RunStartEvent | undefined;
    let end: RunEndEvent | undefined;
    const mcp = new McpServerCounts();
    for await (const event of read()) {
      events++;
      mcp.add(event);
      if (event.type === 'run_start') start = event;
      else if (event.type === 'run_end') end = event;
      byType[event.type] = (byType[event.type] ?? 0) + 1;
      if (event.type === 'guardrail') decisions.push(event);
      held?.push(event);
    }
    const verdicts = verdictCounts(decisions);
    const analysed = held === null ? null : await analysisOf(meta, held);
    const mcpServers = mcp.servers(start?.customTools);
    if (options.json) {
      const tools = runTools(meta.config, start?.customTools);
      const toolsLeftOut = start?.toolsLeftOut ?? [];
      const analysis = analysed === null ? null : { verdicts: analysed.verdicts, stop: analysed.stop };
      const shown = { run: meta, endReason: end?.reason ?? null, events, eventTypes: byType, verdicts, analysis, tools, toolsLeftOut, mcpServers };
      out(printableJson(shown));
      return;
    }
    const rows = [
      ['run', meta.id],
      ['kind', meta.parentId === undefined ? meta.kind : `${meta.kind} of ${meta.parentId}`],
      ['recorded by', RECORDED_BY[recordedBy(meta)]],
      ...(meta.name === undefined ? [] : [['name', meta.name]]),
      ['created', shortTime(meta.createdAt)],
      ['outcome', end === undefined ? runOutcome(meta) : `${runOutcome(meta)}: ${end.reason}`],
      ['task', meta.task],
      ['model', meta.baseUrl === undefined ? meta.model : `${meta.model} at ${meta.baseUrl}`],
      ['seed', String(meta.seed)],
      ...sandboxRows(meta.config, start?.toolsLeftOut ?? []),
      ...toolRows(meta.config, start?.customTools),
      ...(mcpServers.length === 0 ? [] : [['mcp servers', mcpServersText(mcpServers)]]),
      ...(start?.toolsLeftOut ?? []).map((tool) => ['left out', `${tool.name}: ${tool.reason}`]),
      ['events', String(events)],
    ];
    if (meta.totals !== undefined) {
      const t = meta.totals;
      rows.push(['steps', String(t.steps)]);
      rows.push(['calls', `${t.llmCalls} model, ${t.toolCalls} tool`]);
      rows.push(['tokens', `${t.inputTokens} in, ${t.outputTokens} out, cost $${t.cost.toFixed(4)}`]);
    }
    if (Object.keys(verdicts).length > 0) rows.push(['guardrails', verdictText(verdicts)]);
    if (analysed !== null) {
      const counted = verdictText(analysed.verdicts);
      rows.push(['guardrails (analysis)', counted === '' ? analysed.stopText : `${counted} — ${analysed.stopText}`]);
    }
    for (const line of table(rows)) out(line);
  });
}

/** A run's analysis as show tells it: its verdicts counted, its stop point (and in words). */
interface ShownAnalysis {
  verdicts: Record<string, number>;
  stop: AnalysisStop | null;
  stopText: string;
}

/** The analysis of a run recorded without the guardrails; null for a run that needs none. */
async function analysisOf(meta: RunMeta, events: readonly RunEvent[]): Promise<ShownAnalysis | null> {
  // Loaded for such a run only: the analysis brings the guardrails and the tools' specs.
  const { analysedEvents, stopText } = await import('../../replay/analysis-events.js');
  const { analysis } = analysedEvents(meta, events);
  return analysis === null ? null : { verdicts: verdictCounts(analysis.decisions), stop: analysis.stop, stopText: stopText(analysis.stop) };
}

/** How many decisions came to each verdict, in the order the verdicts first came. */
function verdictCounts(decisions: readonly GuardrailEvent[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const decision of decisions) counts[decision.verdict] = (counts[decision.verdict] ?? 0) + 1;
  return counts;
}

/** `2 allow · 1 skip · 1 block`. */
function verdictText(counts: Record<string, number>): string {
  return Object.entries(counts)
    .map(([verdict, n]) => `${n} ${verdict}`)
    .join(' · ');
}

/**
 * How the run's exec_shell was confined, from its recorded config: a `sandbox` row, or none for a
 * run whose config has no such setting (recorded before it existed, or by a library recorder). The
 * tape does not say which platform's sandbox it was (bubblewrap on Linux, sandbox-exec on macOS).
 */
export function sandboxRows(config: Record<string, unknown>, toolsLeftOut: readonly LeftOutTool[]): string[][] {
  const sandbox = config['sandbox'];
  const tools = config['tools'];
  const shell = !Array.isArray(tools) || tools.includes('exec_shell');
  const without = toolsLeftOut.some((tool) => tool.name === 'exec_shell') ? ' (exec_shell left out)' : ' (exec_shell not enabled)';
  if (sandbox === 'none') return [['sandbox', shell ? 'none — exec_shell ran unconfined' : `none${without}`]];
  if (typeof sandbox === 'object' && sandbox !== null && 'network' in sandbox) {
    return [['sandbox', `on, network ${sandbox.network === true ? 'on' : 'off'}${shell ? '' : without}`]];
  }
  return [];
}

interface RunTool {
  name: string;
  custom: boolean;
  /** An MCP server's tool: the server. */
  server?: string;
}

/** A run's tools in the order the model saw them, from its recorded config and custom tools; `custom` marks the latter, `server` an MCP server's. */
function runTools(config: Record<string, unknown>, customTools: readonly ToolSpec[] | undefined): RunTool[] {
  const named = Array.isArray(config['tools']) ? config['tools'].filter((name): name is string => typeof name === 'string') : [];
  const custom = new Map((customTools ?? []).map((tool) => [tool.name, tool]));
  return [...named, ...[...custom.keys()].filter((name) => !named.includes(name))].map((name) => {
    const server = custom.get(name)?.mcp?.server;
    return { name, custom: custom.has(name), ...(server === undefined ? {} : { server }) };
  });
}

/**
 * A `tools` row (custom tools marked), and for a run that loaded tool modules a `tool modules` row
 * naming them: as information only — replay and ci never load a module a recording names, they use
 * the definitions its run_start recorded (a run recorded before they were, they cannot replay
 * without the user's own config).
 */
function toolRows(config: Record<string, unknown>, customTools: readonly ToolSpec[] | undefined): string[][] {
  const tools = runTools(config, customTools);
  const modules = Array.isArray(config['toolModules']) ? config['toolModules'].map(String) : [];
  const rows: string[][] = [];
  const shown = (tool: (typeof tools)[number]): string => {
    if (tool.server !== undefined) return `${tool.name}${serverMark(tool.name, tool.server)}`;
    return tool.custom ? `${tool.name} (custom)` : tool.name;
  };
  if (tools.length > 0) rows.push(['tools', tools.map(shown).join(', ')]);
  if (modules.length > 0) {
    const how = customTools === undefined
      ? "their tools' definitions are not recorded: replay with --config <file> that loads them"
      : 'not loaded by replay or ci, which use the recorded definitions';
    rows.push(['tool modules', `${modules.join(', ')} (${how})`]);
  }
  return rows;
}

const RECORDED_BY: Record<RunSource, string> = {
  cli: 'agentctl (the built-in agent)',
  library: 'the library (a recording fetch)',
  proxy: 'agentctl proxy',
  mcp: 'agentctl mcp (an MCP server\'s traffic)',
};
