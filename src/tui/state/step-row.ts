/**
 * One timeline row per loop step, summarised from that step's events: what the model did, one mark
 * per guardrail verdict that matters (the worst verdict of each tool call, step-level verdicts that
 * are not a plain `continue`) and one per divergence. Rows are immutable: a step that receives more
 * events gets a new row object, so components can compare rows by identity.
 */
import type { Verdict } from '../../core/decisions.js';
import type { DivergenceEvent, RunEvent } from '../../core/events.js';
import { VERDICT_SEVERITY } from '../../core/verdict-glyphs.js';
import { callText } from './call-text.js';

/** A glyph on a row: a guardrail verdict, or a divergence (expected or not). */
export type Mark =
  | { kind: 'verdict'; verdict: Verdict }
  | { kind: 'divergence'; expected: boolean }
  | { kind: 'changed' };

export interface StepRow {
  step: number;
  /** Every event of the step, in order (the detail pane reads them). */
  events: readonly RunEvent[];
  /** The model's action in a few words: its first tool call with its arguments, or the answer's first words. */
  action: string;
  /** Tool calls of the step after the first (the timeline shows `+N`). */
  moreCalls: number;
  marks: readonly Mark[];
  /** Verdicts present in the step (for filters). */
  verdicts: ReadonlySet<Verdict>;
  /** The worst divergence of the step: none, expected (patch, what-if) or unexpected. */
  divergence: 'none' | 'expected' | 'unexpected';
  /** Decisions whose verdict changed against the recording (what-if). */
  changedDecisions: number;
  patched: boolean;
}

/** Divergence kinds that are news about the run; a resync is good news and shows in the detail only. */
const MARKED_DIVERGENCES: ReadonlySet<DivergenceEvent['kind']> = new Set(['request', 'event', 'patched', 'tool_output', 'exhausted', 'live', 'decision']);

export function summarizeStep(step: number, events: readonly RunEvent[]): StepRow {
  const marks: Mark[] = [];
  const verdicts = new Set<Verdict>();
  const worstByCall = new Map<string, Verdict>();
  const callOrder: string[] = [];
  let divergence: StepRow['divergence'] = 'none';
  let changedDecisions = 0;
  let patched = false;
  for (const event of events) {
    if (event.type === 'tool_call') {
      if (!worstByCall.has(event.callId)) callOrder.push(event.callId);
      worstByCall.set(event.callId, worstByCall.get(event.callId) ?? 'allow');
    } else if (event.type === 'guardrail') {
      verdicts.add(event.verdict);
      if (event.callId !== undefined) {
        if (!worstByCall.has(event.callId)) callOrder.push(event.callId);
        const worst = worstByCall.get(event.callId);
        if (worst === undefined || VERDICT_SEVERITY[event.verdict] > VERDICT_SEVERITY[worst]) worstByCall.set(event.callId, event.verdict);
      } else if (event.verdict !== 'continue' && event.verdict !== 'allow') {
        marks.push({ kind: 'verdict', verdict: event.verdict });
      }
    } else if (event.type === 'divergence') {
      if (event.kind === 'patched') patched = true;
      if (event.kind === 'decision') changedDecisions++;
      if (!MARKED_DIVERGENCES.has(event.kind)) continue;
      if (!event.expected) divergence = 'unexpected';
      else if (divergence === 'none') divergence = 'expected';
    }
  }
  const callMarks: Mark[] = callOrder.map((id) => ({ kind: 'verdict', verdict: worstByCall.get(id) ?? 'allow' }));
  if (changedDecisions > 0) callMarks.push({ kind: 'changed' });
  if (divergence !== 'none') callMarks.push({ kind: 'divergence', expected: divergence === 'expected' });
  return { step, events, ...actionOf(events), marks: [...callMarks, ...marks], verdicts, divergence, changedDecisions, patched };
}

/** "read_file config/server.json" (and how many calls follow it), "“The port is 8080”", "model error", "waiting for the model…". */
export function actionOf(events: readonly RunEvent[]): { action: string; moreCalls: number } {
  let requested = false;
  let failed = false;
  let action: string | null = null;
  let moreCalls = 0;
  for (const event of events) {
    if (event.type === 'llm_request') requested = true;
    else if (event.type === 'llm_error') failed = true;
    else if (event.type === 'llm_response') {
      const calls = event.response.message.tool_calls ?? [];
      const first = calls[0];
      moreCalls = Math.max(0, calls.length - 1);
      if (first !== undefined) action = callText(first.function.name, first.function.arguments);
      else {
        const text = (event.response.message.content ?? '').replace(/\s+/g, ' ').trim();
        action = text === '' ? `(empty answer, ${event.response.finishReason})` : `“${text}”`;
      }
    }
  }
  if (action !== null) return { action, moreCalls };
  const end = events.find((e) => e.type === 'run_end');
  return { action: failed ? 'model error' : requested ? 'waiting for the model…' : end === undefined ? 'starting' : end.state.toLowerCase(), moreCalls: 0 };
}
