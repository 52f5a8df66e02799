/**
 * One golden tape in CI: replayed strictly and offline — the tape's model answers, the tape's tool
 * outcomes, nothing ever run and no network call — and judged: `pass`, `drift` (the first unexpected
 * divergence, with where it is on the tape), `exhausted` (the replay needed a model answer or a tool
 * outcome the tape does not have), `invalid` (the tape itself is bad) or `error`. Under `--set`
 * (what-if) it reports instead what the override changes: the first decision that changed, and the
 * final state, steps, tokens and cost before and after — for a run the built-in loop did not record,
 * from an analysis of it (analysis-what-if.ts) instead of a replay.
 */
import type { DivergenceEvent, RunEvent, RunTotals } from '../core/events.js';
import { isAgentctlError, TapeFormatError, type ErrorCode } from '../core/errors.js';
import type { RunMeta } from '../core/run-meta.js';
import type { CheckedTapes } from '../tape/checked-tapes.js';
import { openTapeFile } from '../tape/tape-file.js';
import type { CorpusTape } from './corpus.js';
import { describeDecision, type DecisionSummary } from './decision-change.js';
import { replayEach, type ReplayResult, type UsersConfig } from './replay-run.js';
import { count } from '../core/plural.js';
import { recordedBy } from '../core/run-meta.js';
import { analysisOverrides, analysisOptions } from './analysis-overrides.js';
import type { AnalysisSummary } from './analysis-summary.js';
import { analysisWhatIf } from './analysis-what-if.js';
import type { WhatIf } from './what-if.js';

export type TapeOutcome = 'pass' | 'drift' | 'exhausted' | 'invalid' | 'error' | 'changed';

/** The first unexpected divergence, as a CI report shows it. */
export interface Drift {
  step: number;
  kind: DivergenceEvent['kind'];
  /** The type of the replayed event that differs, when there is one. */
  eventType: string | null;
  message: string;
  path: string | null;
  recorded: unknown;
  replayed: unknown;
  /** The line of the tape file holding the recorded event it concerns, when there is one. */
  line: number | null;
  /** For a changed guardrail decision: the rule, counters and threshold on each side. */
  decision: { recorded: DecisionSummary; replayed: DecisionSummary } | null;
}

export type { WhatIf };

export interface TapeResult {
  tape: CorpusTape;
  /** The run's name, or its task. */
  name: string;
  outcome: TapeOutcome;
  /** One line saying what happened. */
  message: string;
  durationMs: number;
  meta?: RunMeta;
  drift?: Drift;
  exhaustedAt?: number;
  /** For `invalid` and `error`: the code of the error that stopped the replay (none for a bug). */
  code?: ErrorCode;
  /** For `invalid`: the line of the tape file at fault, when known. */
  line?: number;
  whatIf?: WhatIf;
  /** For a what-if over a run the built-in loop did not record: the analysis under the override (analysis-what-if.ts). */
  analysis?: AnalysisSummary;
}

export interface CheckOptions {
  /** `--config`: replay with the user's current agent config, in whole or in part (its divergences are unexpected). */
  usersConfig?: UsersConfig;
  /** `--set`: a what-if over the tape (its divergences are expected). */
  overrides?: readonly string[];
  /** Receives every replayed event (for `--update`). */
  onEvent?: (event: RunEvent) => void;
  /** Stop at the first unexpected divergence (default). `--update` replays to the end instead. */
  strict?: boolean;
  /** Wall-clock time, for the result's duration only. */
  now?: () => number;
  /** Tape files checked before, whose checks a read may skip (checked-tapes.ts). */
  checked?: CheckedTapes | null;
}

/** The line of a tape file that holds event `seq`: line 1 is the header. */
export const lineOfSeq = (seq: number): number => seq + 2;

export async function checkTape(tape: CorpusTape, options: CheckOptions = {}): Promise<TapeResult & { replay?: ReplayResult }> {
  const now = options.now ?? (() => performance.now());
  const started = now();
  const done = (result: Omit<TapeResult, 'tape' | 'durationMs'>): TapeResult => ({ tape, durationMs: now() - started, ...result });
  let meta: RunMeta | undefined;
  try {
    // Never opened: a named pipe would wait for a writer.
    if (tape.notAFile !== undefined) throw new TapeFormatError(tape.notAFile, { file: tape.path });
    const file = await openTapeFile(tape.path, { checked: options.checked ?? null });
    meta = file.meta;
    const name = meta.name ?? meta.task;
    const whatIf = (options.overrides?.length ?? 0) > 0;
    if (whatIf && recordedBy(meta) !== 'cli') {
      // Its agent is not here to replay: the what-if is an analysis of what it recorded.
      const events: RunEvent[] = [];
      for await (const event of file.events()) events.push(event);
      const users = options.usersConfig?.configOverlay ?? options.usersConfig?.config;
      const result = analysisWhatIf(meta, events, analysisOptions(analysisOverrides(options.overrides ?? []), users));
      return done({ name, meta, outcome: result.outcome, message: result.message, whatIf: result.whatIf, analysis: result.analysis });
    }
    let firstChange: WhatIf['firstChange'] = null;
    const result = await replayEach({
      // A batch at a time, as `agentctl replay` reads a tape file (one async step per batch, not per event).
      source: { meta, label: tape.relativePath, events: () => file.events(), batches: () => file.batches() },
      fallback: 'error',
      tools: 'tape',
      strict: !whatIf && (options.strict ?? true),
      ...(whatIf ? { overrides: options.overrides } : {}),
      ...options.usersConfig,
    }, (event) => {
      options.onEvent?.(event);
      if (firstChange === null && event.type === 'divergence' && event.kind === 'decision') firstChange = changeOf(event);
    });
    const base = { name, meta };
    if (whatIf) return { ...done({ ...base, ...whatIfOutcome(meta, result, firstChange) }), replay: result };
    if (result.verdict === 'exhausted' && !endsWhereRecordingStopped(meta, result)) {
      const at = result.exhaustedAt ?? 0;
      const why = result.missing ?? `the replay needs a model answer at step ${at} that the tape does not have`;
      return { ...done({ ...base, outcome: 'exhausted', message: why, exhaustedAt: at }), replay: result };
    }
    if (result.unexpected && result.firstDivergence !== null) {
      const drift = driftOf(result);
      return { ...done({ ...base, outcome: 'drift', message: `drift at step ${drift.step}: ${drift.message}`, drift }), replay: result };
    }
    const reproduced = result.verdict === 'exhausted'
      ? `reproduced up to where its recording stopped (step ${result.exhaustedAt ?? 0})`
      : `reproduced: ${count(result.totals?.steps ?? 0, 'step')}, final state ${result.state ?? '?'}`;
    return { ...done({ ...base, outcome: 'pass', message: reproduced }), replay: result };
  } catch (error) {
    const name = meta?.name ?? meta?.task ?? tape.relativePath;
    const extra = meta === undefined ? {} : { meta };
    if (error instanceof TapeFormatError) {
      // The report names the tape (and line) itself: the message says only what is wrong.
      const message = error.line === undefined ? error.detail : `line ${error.line}: ${error.detail}`;
      return done({ name, ...extra, outcome: 'invalid', message, code: error.code, ...(error.line === undefined ? {} : { line: error.line }) });
    }
    if (isAgentctlError(error)) {
      return done({ name, ...extra, outcome: 'error', message: `${error.message}${error.hint === undefined ? '' : ` (${error.hint})`}`, code: error.code });
    }
    return done({ name, ...extra, outcome: 'error', message: `internal error: ${error instanceof Error ? error.message : String(error)}` });
  }
}

/**
 * A tape whose recorder died (status `incomplete`) ends without a `run_end`: a replay that matched
 * every event up to there and then found no next model answer, or no outcome for the tool call the
 * recording stopped during (recorded-tools.ts leaves `missing` unset for it), reproduced all there is.
 */
function endsWhereRecordingStopped(meta: RunMeta, result: ReplayResult): boolean {
  return meta.status === 'incomplete' && result.firstDivergence === null && result.missing === null;
}

function driftOf(result: ReplayResult): Drift {
  const first = result.firstDivergence!;
  const at = result.firstDivergenceAt;
  const detail = first.detail;
  const decision = first.kind === 'decision' && detail !== undefined && isSummary(detail.recorded) && isSummary(detail.replayed)
    ? { recorded: detail.recorded, replayed: detail.replayed }
    : null;
  return {
    step: first.step,
    kind: first.kind,
    eventType: at?.replayedType ?? null,
    message: first.message,
    path: detail?.path ?? null,
    recorded: detail?.recorded,
    replayed: detail?.replayed,
    line: at?.recordedSeq === null || at?.recordedSeq === undefined ? null : lineOfSeq(at.recordedSeq),
    decision,
  };
}

function changeOf(event: DivergenceEvent): WhatIf['firstChange'] {
  const detail = event.detail;
  if (detail === undefined || !isSummary(detail.recorded) || !isSummary(detail.replayed)) return null;
  const { recorded, replayed } = detail;
  return { step: event.step, message: event.message, rule: replayed.rule, before: describeDecision(recorded), after: describeDecision(replayed) };
}

type WhatIfOutcome = Pick<TapeResult, 'outcome' | 'message' | 'whatIf' | 'exhaustedAt'>;

function whatIfOutcome(meta: RunMeta, result: ReplayResult, firstChange: WhatIf['firstChange']): WhatIfOutcome {
  const before: Partial<RunTotals> = meta.totals ?? {};
  const after: Partial<RunTotals> = result.totals ?? {};
  const tokens = (t: Partial<RunTotals>): number => (t.inputTokens ?? 0) + (t.outputTokens ?? 0);
  const whatIf: WhatIf = {
    firstChange,
    decisionChanges: result.decisionChanges,
    state: { before: meta.finalState ?? null, after: result.state },
    steps: { before: before.steps ?? 0, after: after.steps ?? 0 },
    tokens: { before: tokens(before), after: tokens(after) },
    cost: { before: before.cost ?? 0, after: after.cost ?? 0 },
  };
  if (result.verdict === 'exhausted') {
    const at = result.exhaustedAt ?? 0;
    const why = result.missing ?? `it needs a model answer at step ${at} that the tape does not have`;
    return { outcome: 'exhausted', message: `cannot tell past step ${at}: ${why}`, whatIf, exhaustedAt: at };
  }
  const changed = whatIf.decisionChanges > 0 || whatIf.state.before !== whatIf.state.after || whatIf.steps.before !== whatIf.steps.after;
  if (!changed) return { outcome: 'pass', message: 'unchanged', whatIf };
  const parts: string[] = [];
  if (firstChange !== null) parts.push(`step ${firstChange.step}: ${firstChange.rule} ${firstChange.before} → ${firstChange.after}`);
  if (whatIf.state.before !== whatIf.state.after) parts.push(`ends ${whatIf.state.after ?? '?'} (was ${whatIf.state.before ?? '?'})`);
  const saved = whatIf.steps.before - whatIf.steps.after;
  if (saved !== 0) parts.push(saved > 0 ? `${count(saved, 'step')} fewer` : `${count(-saved, 'step')} more`);
  return { outcome: 'changed', message: parts.join('; '), whatIf };
}

function isSummary(value: unknown): value is DecisionSummary {
  return value !== null && typeof value === 'object' && 'verdict' in value && 'rule' in value;
}
