/**
 * The text form of `agentctl diff`: a step log. Runs of identical steps collapse to one line
 * ("steps 0–2  =  identical"); a differing step shows what each side did, stacked (A lines, then B
 * lines); the first differing step also shows its first differing event and field side by side.
 * Ids are compared by position (replay/id-labels.ts), so a differing id shows as its label
 * (`call#2.0`), with a line saying what that is. An MCP tool is marked with its server, as
 * everywhere (mcp/event-text.ts). What the runs hold (tasks, answers, tool output,
 * field names) is shown with its control characters as escapes (core/terminal-text.ts).
 */
import { printableLine } from '../../core/terminal-text.js';
import { VERDICT_GLYPHS } from '../../core/verdict-glyphs.js';
import type { RunMeta } from '../../core/run-meta.js';
import { RULES } from '../../guardrails/rules.js';
import type { DecisionSummary, StepSummary } from '../../replay/run-diff-summary.js';
import type { EventDifference, RunDiffSummary, StepDiff } from '../../replay/run-diff.js';
import { ID_LABEL_TEXT } from '../../replay/id-labels.js';
import { UNSEEN_DIFFERENCE } from '../../replay/request-difference.js';
import { clip, runOutcome } from '../format.js';
import { toolLabel } from '../../mcp/event-text.js';
import { count } from '../../core/plural.js';

/** Rules that only say "nothing to see here"; every other decision (blocks, skips, near-misses) is shown. */
const ROUTINE_RULES: ReadonlySet<string> = new Set<string>([
  RULES.validArguments,
  RULES.firstAttempt,
  RULES.firstCall,
  RULES.nonIdempotent,
  RULES.failureReset,
  RULES.policyAllow,
  RULES.noToolCalls,
  RULES.newToolStep,
  RULES.withinBudget,
]);


/** The two header lines: what A and B are. */
export function diffHeader(a: { label: string; meta: RunMeta }, b: { label: string; meta: RunMeta }): string[] {
  const line = (name: string, side: { label: string; meta: RunMeta }): string =>
    `${name}  ${side.label}${side.meta.name === undefined ? '' : ` [${side.meta.name}]`}  ${side.meta.kind}, ${runOutcome(side.meta)}, task "${clip(side.meta.task, 60)}"`;
  return [line('A', a), line('B', b)].map(printableLine);
}

/** Turns step diffs into lines, holding back runs of identical steps until they end. */
export class DiffTextReport {
  private sameFrom: number | null = null;
  private sameTo = 0;
  private firstShown = false;

  /** The lines for one step (possibly none yet, while identical steps collapse). */
  step(diff: StepDiff): string[] {
    if (diff.same) {
      this.sameFrom ??= diff.step;
      this.sameTo = diff.step;
      return [];
    }
    const lines = this.flush();
    const first = !this.firstShown;
    this.firstShown = true;
    lines.push(`step ${diff.step}  ≠${first ? '  first difference' : ''}`);
    lines.push(...sideLines('A', diff.step, diff.a), ...sideLines('B', diff.step, diff.b));
    const difference = diff.firstDifference;
    if (difference !== undefined && diff.a !== null && diff.b !== null) {
      if (first) lines.push(...differenceLines(difference));
      else lines.push(`  differs at ${where(difference)}`);
    }
    return lines.map(printableLine);
  }

  /** The remaining collapsed lines and the closing line. */
  end(summary: RunDiffSummary): string[] {
    return [...this.flush(), summaryLine(summary)];
  }

  private flush(): string[] {
    if (this.sameFrom === null) return [];
    const from = this.sameFrom;
    this.sameFrom = null;
    return [from === this.sameTo ? `step ${from}  =  identical` : `steps ${from}–${this.sameTo}  =  identical`];
  }
}

/** `identical: …` or `first difference at step K: …`, with the counts. */
export function summaryLine(summary: RunDiffSummary): string {
  const steps = summary.stepsA === summary.stepsB ? `${count(summary.stepsA, 'step')} each` : `A has ${count(summary.stepsA, 'step')}, B ${summary.stepsB}`;
  if (summary.identical) return `identical: ${steps}, every event the same (timing ignored)`;
  const total = summary.differingSteps + summary.identicalSteps;
  return `first difference at step ${summary.firstDifferenceStep ?? '?'}: ${summary.differingSteps} of ${count(total, 'step')} ${summary.differingSteps === 1 ? 'differs' : 'differ'} (${steps})`;
}

function sideLines(name: string, step: number, side: StepSummary | null): string[] {
  if (side === null) return [`  ${name}  (no step ${step})`];
  const parts: string[] = [];
  for (const user of side.user) parts.push(`user "${clip(user, 80)}"`);
  if (side.modelErrors > 0) parts.push(`model error ×${side.modelErrors}`);
  if (side.model !== null) {
    const text = side.model.text === null ? '' : ` "${clip(side.model.text, 80)}"`;
    const calls = side.model.toolCalls.map((call) => `${call.name} ${clip(call.arguments, 60)}`);
    parts.push(`model${text}${calls.length === 0 ? '' : ` → ${calls.join(', ')}`} (${side.model.finishReason})`);
  }
  for (const tool of side.tools) {
    const outcome = tool.status === null ? 'no result' : `${tool.status}${tool.output === null ? '' : ` "${clip(tool.output, 60)}"`}`;
    parts.push(`tool ${toolLabel(tool.tool, tool.server)} → ${outcome}`);
  }
  for (const exchange of side.mcp) parts.push(`mcp ${clip(exchange, 100)}`);
  for (const decision of side.decisions.filter(notable)) parts.push(`guard ${decisionText(decision)}`);
  const routine = side.decisions.filter((d) => !notable(d)).length;
  if (routine > 0) parts.push(`guard ${count(routine, 'routine pass', 'routine passes')}`);
  if (side.states.length > 0) parts.push(`state ${stateChain(side.states)}`);
  for (const warning of side.warnings) parts.push(`warning ${clip(warning, 80)}`);
  if (side.end !== null) parts.push(`end ${side.end.state}: ${clip(side.end.reason, 80)}`);
  if (parts.length === 0) parts.push(`(${count(side.events, 'event')})`);
  return parts.map((part, i) => `  ${i === 0 ? name : ' '}  ${part}`);
}

function notable(decision: DecisionSummary): boolean {
  return !ROUTINE_RULES.has(decision.rule);
}

function decisionText(d: DecisionSummary): string {
  return `${VERDICT_GLYPHS[d.verdict] ?? '?'} ${d.verdict} ${d.gate}/${d.rule}${d.tool === undefined ? '' : ` ${d.tool}`}: ${clip(d.reason, 80)}`;
}

function stateChain(states: StepSummary['states']): string {
  const chain: string[] = [states[0]?.from ?? 'START'];
  for (const { from, to } of states) {
    if (chain.at(-1) !== (from ?? 'START')) chain.push(from ?? 'START');
    chain.push(to);
  }
  return chain.join(' → ');
}

function differenceLines(difference: EventDifference): string[] {
  const lines = [`  first differing: ${where(difference)}`];
  if (difference.typeA === 'llm_request' && difference.path === UNSEEN_DIFFERENCE) {
    lines.push("    (only the requests' hashes differ: they cover what the tape does not show, such as the tools' definitions; the hashes are shown)");
  } else if (difference.typeA === 'llm_request' && /^messages\[\d+\]$/.test(difference.path)) {
    lines.push("    (the conversations differ from this message on, which an earlier step sent; the requests' hashes are shown)");
  }
  if ((difference.typeA === 'tool_call' || difference.typeA === 'tool_result') && difference.path === 'server') {
    lines.push('    (the tool is another MCP server\'s, or an MCP tool on one side only)');
  }
  if ([difference.a, difference.b].some((value) => ID_LABEL_TEXT.test(JSON.stringify(value) ?? ''))) {
    lines.push('    (ids are compared by position: call#S.N stands for the N-th new tool-call id of step S on that side, id#S.N for other ids)');
  }
  lines.push(`    A: ${show(difference.a)}`, `    B: ${show(difference.b)}`);
  return lines;
}

function where(difference: EventDifference): string {
  const { index, typeA, typeB, path } = difference;
  if (path === '(event)') return `event ${index}: ${typeA === null ? 'A has no more events' : `A has ${typeA}`}, ${typeB === null ? 'B has none' : `B has ${typeB}`}`;
  if (path === 'type') return `event ${index}: A has ${typeA ?? '?'}, B has ${typeB ?? '?'}`;
  return `event ${index} (${typeA ?? '?'}) at ${path}`;
}

function show(value: unknown): string {
  if (value === undefined) return '(absent)';
  return clip(JSON.stringify(value) ?? String(value), 160);
}
