/**
 * The header's four lines as text: who and what (run, name, model, mode, state), the task, where
 * the selection is with the replay's running verdict and the selected step's usage beside the
 * run's (against the budgets), and a status line (what the run is waiting for, or how it ended and
 * the exit code `q` will return), led by an analysed run's stop point: the first thing to know of a
 * run recorded without the guardrails is where they would have stopped it.
 */
import type { BudgetEvent } from '../../core/events.js';
import { stopText } from '../../replay/analysis-events.js';
import type { Tone } from './detail-lines.js';
import { runningVerdict, type RunModel, type TuiMode } from './run-model.js';
import type { StepRow } from './step-row.js';

export interface HeaderLine {
  text: string;
  tone: Tone;
}

const MODE_LABELS: Readonly<Record<TuiMode, string>> = {
  recording: 'RECORDING',
  replaying: 'REPLAYING',
  viewing: 'VIEWING',
  'what-if': 'WHAT-IF',
};

/** A replay's wait is shown once it has lasted this long: the tape answers at once, a live call does not. */
export const LASTING_WAIT_MS = 1000;

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export interface HeaderContext {
  /** Index of the selected row, -1 for none. */
  selected: number;
  /** Milliseconds the current wait has lasted (live runs). */
  waitedMs: number;
  quitting: boolean;
}

export function headerLines(model: RunModel, context: HeaderContext): HeaderLine[] {
  const { session, start } = model;
  const id = session.runId === null ? '' : ` run ${session.runId.slice(0, 10)}`;
  const name = session.name === undefined ? '' : ` “${session.name}”`;
  const from = session.source === undefined ? '' : ` of ${session.source}`;
  const modelName = start === null ? '' : ` · ${start.model}`;
  const state = model.state === null ? '' : ` · ${model.state}`;
  const first: HeaderLine = { text: `agentctl ${MODE_LABELS[session.mode]}${id}${name}${from}${modelName}${state}${start?.config['sandbox'] === 'none' ? ' · UNCONFINED' : ''}`, tone: 'heading' };
  const task: HeaderLine = { text: `task: ${start?.task ?? '…'}`, tone: 'normal' };

  // The verdict before the figures: at 80 columns a long line loses its end, and the verdict matters more.
  const parts: string[] = [];
  const row = model.rows[context.selected];
  parts.push(row === undefined ? 'no steps yet' : `step ${row.step} (${context.selected + 1} of ${model.rows.length})`);
  const verdict = runningVerdict(model);
  if (verdict !== null) parts.push(verdict);
  const step = row === undefined ? null : stepUsage(model.rows, context.selected);
  if (step !== null) parts.push(`tokens ${step.inputTokens} in/${step.outputTokens} out${step.cost === null ? '' : ` $${step.cost.toFixed(4)}`}`);
  parts.push(`run ${runUsage(model)}`);
  const near = model.budget?.nearBudget === true;
  const progress: HeaderLine = { text: parts.join(' · ') + (near ? ' · ! near budget' : ''), tone: near ? 'warn' : model.firstDivergence !== null && !model.firstDivergence.expected ? 'unexpected' : 'normal' };

  return [first, task, progress, status(model, context)];
}

function status(model: RunModel, context: HeaderContext): HeaderLine {
  const line = runStatus(model, context);
  const analysis = model.ending?.analysis;
  if (analysis === undefined) return line;
  return { text: `analysis: ${stopText(analysis.stop)} · ${line.text}`, tone: analysis.stop?.verdict ?? line.tone };
}

function runStatus(model: RunModel, context: HeaderContext): HeaderLine {
  const { ending, end } = model;
  if (ending !== null) {
    // What `q` leads to comes first: a long reason is what gets clipped.
    const how = end === null ? 'stopped before the run ended' : `ended ${end.state}`;
    const verdict = ending.verdict === undefined ? '' : ` · ${ending.verdict}`;
    const reason = end === null ? '' : ` · ${end.reason}`;
    return { text: `${how}${verdict} · exit ${ending.exitCode} · q quits${reason}`, tone: ending.exitCode === 0 ? 'allow' : 'error' };
  }
  if (context.quitting) return { text: 'stopping the run…', tone: 'warn' };
  // Until a recorded run is all in, how far it has got; a replay's wait shows once it lasts (a live call, --speed).
  const steps = `${model.rows.length} step${model.rows.length === 1 ? '' : 's'}`;
  if (model.session.mode === 'viewing') return { text: `reading tape… ${steps}`, tone: 'dim' };
  if (model.session.mode !== 'recording' && (model.waiting === null || context.waitedMs < LASTING_WAIT_MS)) return { text: `replaying… ${steps}`, tone: 'dim' };
  const spin = SPINNER[Math.floor(context.waitedMs / 100) % SPINNER.length] ?? '';
  const waited = `${(context.waitedMs / 1000).toFixed(1)} s`;
  const waiting = model.waiting;
  if (waiting?.for === 'model') return { text: `${spin} waiting for the model · ${waited}`, tone: 'dim' };
  if (waiting?.for === 'tool') return { text: `${spin} running ${waiting.tool} · ${waited}`, tone: 'dim' };
  if (waiting?.for === 'input') return { text: 'waiting for the next message', tone: 'dim' };
  return { text: model.state === null ? 'starting…' : `${model.state}: ${model.stateReason}`, tone: 'dim' };
}

/** The step's tokens (its model calls') and cost (the run's cost after it less before it); null before its model answers. */
function stepUsage(rows: readonly StepRow[], index: number): { inputTokens: number; outputTokens: number; cost: number | null } | null {
  const row = rows[index] as StepRow;
  let inputTokens = 0;
  let outputTokens = 0;
  let answered = false;
  for (const event of row.events) {
    if (event.type !== 'llm_response') continue;
    answered = true;
    inputTokens += event.response.usage.inputTokens;
    outputTokens += event.response.usage.outputTokens;
  }
  if (!answered) return null;
  const after = lastBudget(row);
  let before: BudgetEvent | null = null;
  for (let i = index - 1; after !== null && before === null && i >= 0; i--) before = lastBudget(rows[i] as StepRow);
  return { inputTokens, outputTokens, cost: after === null ? null : after.cost - (before?.cost ?? 0) };
}

function lastBudget(row: StepRow): BudgetEvent | null {
  for (let i = row.events.length - 1; i >= 0; i--) {
    const event = row.events[i] as StepRow['events'][number];
    if (event.type === 'budget') return event;
  }
  return null;
}

/** The run's usage so far: `683 $0.0123`, or `588/1000 [██████░░░░] $0.0123/$0.50 [█░░░░░░░░░]` against budgets. */
function runUsage(model: RunModel): string {
  const limits = (model.start?.config.limits ?? {}) as { tokenBudget?: number; costLimit?: number };
  const tokens = model.budget === null ? 0 : model.budget.inputTokens + model.budget.outputTokens;
  const cost = model.budget?.cost ?? 0;
  const tokenText = limits.tokenBudget !== undefined && limits.tokenBudget > 0 ? `${tokens}/${limits.tokenBudget} ${bar(tokens / limits.tokenBudget)}` : `${tokens}`;
  const costText = limits.costLimit !== undefined && limits.costLimit > 0
    ? `$${cost.toFixed(4)}/$${limits.costLimit} ${bar(cost / limits.costLimit)}`
    : `$${cost.toFixed(4)}`;
  return `${tokenText} ${costText}`;
}

/** A ten-cell bar: filled cells for the fraction used (over the limit: all filled). */
export function bar(fraction: number): string {
  const filled = Math.max(0, Math.min(10, Math.round(fraction * 10)));
  return `[${'█'.repeat(filled)}${'░'.repeat(10 - filled)}]`;
}
