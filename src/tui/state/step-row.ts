/**
 * One timeline row per loop step, summarised from that step's events: what the model did, one mark
 * per guardrail verdict that matters (the worst verdict of each tool call, step-level verdicts that
 * are not a plain `continue`) and one per divergence; then, after an `analysis` mark, the same for the
 * step's analysed decisions (what the guardrails would have decided: never mixed with the recorded
 * ones). Rows are immutable: a step that receives more events gets a new row object, so components
 * can compare rows by identity.
 */
import type { Verdict } from '../../core/decisions.js';
import type { DivergenceEvent, GuardrailEvent, RunEvent } from '../../core/events.js';
import { VERDICT_SEVERITY } from '../../core/verdict-glyphs.js';
import { namesMcpTool, toolLabel } from '../../mcp/event-text.js';
import { callText } from './call-text.js';

/** A glyph on a row: a guardrail verdict, a divergence (expected or not), or where the analysed verdicts begin. */
export type Mark =
  | { kind: 'verdict'; verdict: Verdict }
  | { kind: 'divergence'; expected: boolean }
  | { kind: 'changed' }
  | { kind: 'analysis' };

export interface StepRow {
  step: number;
  /** Every event of the step, in order (the detail pane reads them). */
  events: readonly RunEvent[];
  /** The model's action in a few words: its first tool call with its arguments (an MCP tool's marked with its server), or the answer's first words. */
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
  /** The step holds MCP tool calls or MCP messages (for the `mcp` filter). */
  mcp: boolean;
}

/** Divergence kinds that are news about the run; a resync is good news and shows in the detail only. */
const MARKED_DIVERGENCES: ReadonlySet<DivergenceEvent['kind']> = new Set(['request', 'event', 'patched', 'tool_output', 'exhausted', 'live', 'decision']);

/** The marks of a step's decisions: the worst verdict of each call, in the order the calls came, then the step-level stops. */
class VerdictMarks {
  private readonly worstByCall = new Map<string, Verdict>();
  private readonly stepMarks: Mark[] = [];

  /** A call with no decision (yet) shows as allowed. */
  call(callId: string): void {
    this.worstByCall.set(callId, this.worstByCall.get(callId) ?? 'allow');
  }

  decision(event: GuardrailEvent): void {
    if (event.callId !== undefined) {
      const worst = this.worstByCall.get(event.callId);
      if (worst === undefined || VERDICT_SEVERITY[event.verdict] > VERDICT_SEVERITY[worst]) this.worstByCall.set(event.callId, event.verdict);
    } else if (event.verdict !== 'continue' && event.verdict !== 'allow') {
      this.stepMarks.push({ kind: 'verdict', verdict: event.verdict });
    }
  }

  /** A Map iterates in the order its keys were first set: the calls' order. */
  calls(): Mark[] {
    return [...this.worstByCall.values()].map((verdict) => ({ kind: 'verdict', verdict }));
  }

  steps(): Mark[] {
    return this.stepMarks;
  }
}

export function summarizeStep(step: number, events: readonly RunEvent[]): StepRow {
  const verdicts = new Set<Verdict>();
  const recorded = new VerdictMarks();
  const analysed = new VerdictMarks();
  let divergence: StepRow['divergence'] = 'none';
  let changedDecisions = 0;
  let patched = false;
  let mcp = false;
  for (const event of events) {
    if (event.type === 'mcp_exchange') mcp = true;
    if (event.type === 'tool_call') {
      recorded.call(event.callId);
      if (event.server !== undefined) mcp = true;
    } else if (event.type === 'guardrail') {
      verdicts.add(event.verdict);
      (event.analysis === true ? analysed : recorded).decision(event);
    } else if (event.type === 'divergence') {
      if (event.kind === 'patched') patched = true;
      if (event.kind === 'decision') changedDecisions++;
      if (!MARKED_DIVERGENCES.has(event.kind)) continue;
      if (!event.expected) divergence = 'unexpected';
      else if (divergence === 'none') divergence = 'expected';
    }
  }
  const callMarks = recorded.calls();
  if (changedDecisions > 0) callMarks.push({ kind: 'changed' });
  if (divergence !== 'none') callMarks.push({ kind: 'divergence', expected: divergence === 'expected' });
  const analysis = [...analysed.calls(), ...analysed.steps()];
  const marks: Mark[] = [...callMarks, ...recorded.steps(), ...(analysis.length === 0 ? [] : [{ kind: 'analysis' } as const, ...analysis])];
  return { step, events, ...actionOf(events), marks, verdicts, divergence, changedDecisions, patched, mcp };
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
      if (first !== undefined) action = callText(mcpLabel(first.function.name, events), first.function.arguments);
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

/** The name of a call the model asked for, marked with its MCP server when one of the step's tool calls is of that server's tool by that name. */
function mcpLabel(name: string, events: readonly RunEvent[]): string {
  const run = events.find((e) => e.type === 'tool_call' && e.server !== undefined && namesMcpTool(name, e.tool, e.server));
  return run?.type === 'tool_call' ? toolLabel(name, run.server) : name;
}
