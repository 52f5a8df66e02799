import type { LeftOutTool, RunEndEvent, RunEventType, RunStartEvent } from '../../core/events.js';
import { recordedBy, type RunSource } from '../../core/run-meta.js';
import { printableJson } from '../../core/terminal-text.js';
import type { ToolSpec } from '../../core/tools.js';
import { runOutcome, shortTime, table } from '../format.js';
import { out, type GlobalOptions } from '../io.js';
import { withTapeSource } from '../with-tape-source.js';

/** `agentctl show <run | file>`: a run's metadata and what its tape holds. */
export async function runShow(ref: string, options: GlobalOptions): Promise<void> {
  await withTapeSource(ref, options, async ({ meta, events: read }) => {
    const byType: Partial<Record<RunEventType, number>> = {};
    const verdicts: Record<string, number> = {};
    let events = 0;
    let start: RunStartEvent | undefined;
    let end: RunEndEvent | undefined;
    for await (const event of read()) {
      events++;
      if (event.type === 'run_start') start = event;
      else if (event.type === 'run_end') end = event;
      byType[event.type] = (byType[event.type] ?? 0) + 1;
      if (event.type === 'guardrail') verdicts[event.verdict] = (verdicts[event.verdict] ?? 0) + 1;
    }
    if (options.json) {
      const tools = runTools(meta.config, start?.customTools);
      const toolsLeftOut = start?.toolsLeftOut ?? [];
      out(printableJson({ run: meta, endReason: end?.reason ?? null, events, eventTypes: byType, verdicts, tools, toolsLeftOut }));
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
      ...(start?.toolsLeftOut ?? []).map((tool) => ['left out', `${tool.name}: ${tool.reason}`]),
      ['events', String(events)],
    ];
    if (meta.totals !== undefined) {
      const t = meta.totals;
      rows.push(['steps', String(t.steps)]);
      rows.push(['calls', `${t.llmCalls} model, ${t.toolCalls} tool`]);
      rows.push(['tokens', `${t.inputTokens} in, ${t.outputTokens} out, cost $${t.cost.toFixed(4)}`]);
    }
    const verdictText = Object.entries(verdicts)
      .map(([verdict, n]) => `${verdict} ${n}`)
      .join(', ');
    if (verdictText !== '') rows.push(['guardrails', verdictText]);
    for (const line of table(rows)) out(line);
  });
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

/** A run's tools in the order the model saw them, from its recorded config and custom tools; `custom` marks the latter. */
function runTools(config: Record<string, unknown>, customTools: readonly ToolSpec[] | undefined): { name: string; custom: boolean }[] {
  const named = Array.isArray(config['tools']) ? config['tools'].filter((name): name is string => typeof name === 'string') : [];
  const custom = new Set((customTools ?? []).map((tool) => tool.name));
  return [...named, ...[...custom].filter((name) => !named.includes(name))].map((name) => ({ name, custom: custom.has(name) }));
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
  if (tools.length > 0) rows.push(['tools', tools.map((tool) => (tool.custom ? `${tool.name} (custom)` : tool.name)).join(', ')]);
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
};
