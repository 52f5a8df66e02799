/**
 * The analysis of a recorded run: what the guardrails would have decided over it (docs/guardrails.md,
 * "Any agent: what the guardrails would have decided"). Any run — recorded by the library, the proxy,
 * `agentctl run` or the built-in loop — is driven through a GuardrailSession, the one engine every
 * driver uses: each model answer is a step; its tool calls go through startStep, beforeTool and
 * afterTool (with the outcome the tape holds, analysis-outcomes.ts) and endStep; an answer cut off at
 * the token limit with no calls is maxTokens; the budget is checked after each answer; a new user
 * message is a new turn. The decisions are the session's, each a `guardrail` event marked
 * `analysis: true`, at the recorded answer it is about.
 *
 * A run of the built-in loop is analysed with its recorded config and tools, so its analysis is the
 * decisions it recorded (guardrail-analysis.property.test.ts), save those its own policies made.
 */
import type { GuardrailEvent, LlmResponseEvent, RunEvent } from '../core/events.js';
import type { RunMeta } from '../core/run-meta.js';
import { costOf, priceOf } from '../agent/prices.js';
import { GuardrailSession, type GuardrailDecision, type ResolvedGuardrailsConfig } from '../guardrails/guardrail-session.js';
import { RULES } from '../guardrails/rules.js';
import { ToolOutcomes } from './analysis-outcomes.js';
import { analysisSettings, type AnalysisOptions, type AnalysisSettings } from './analysis-settings.js';
import { overLimitStop, spent, stopPoint, type AnalysisStop, type OverLimit, type Spent } from './analysis-stop.js';
import { TurnTracker } from './analysis-turns.js';

export type { AnalysisOptions } from './analysis-settings.js';
export type { AnalysisStop, Spent } from './analysis-stop.js';

export interface RunAnalysis {
  /** Every decision, `analysis: true`; `seq` and `step` are the recorded answer's that asked for the call. */
  decisions: GuardrailEvent[];
  /** The first decision that would have stopped the run which the recording does not show, or the answer that took it over a limit (analysis-stop.ts). */
  stop: AnalysisStop | null;
  /** What the recording spent after the stop point's step (zeros when no stop). */
  saved: Spent;
  /** What the recording spent in all. */
  totals: Spent;
  /** How the outcomes of the calls the guardrails let run were known: from the tape's own record of them, from the tool messages the agent sent next, or not at all. */
  outcomes: { recorded: number; fromMessages: number; unknown: number };
  config: ResolvedGuardrailsConfig;
}

export function analyseRun(meta: RunMeta, events: readonly RunEvent[], options: AnalysisOptions = {}): RunAnalysis {
  const settings = analysisSettings(meta, events, options);
  const driver = new AnalysisDriver(meta, events, settings);
  for (const event of events) if (!driver.take(event)) break;
  const decisions = driver.decisions;
  const decided = stopPoint(decisions, events, driver.haltedAt, driver.session.stop?.rule);
  const stop = decided ?? (driver.over === undefined ? null : overLimitStop(driver.over, events));
  const cost = (event: LlmResponseEvent): number => driver.costs.get(event.seq) ?? 0;
  return {
    decisions,
    stop,
    saved: stop === null ? { steps: 0, tokens: 0, cost: 0 } : spent(events, cost, stop.step),
    totals: spent(events, cost),
    outcomes: driver.outcomeCounts,
    config: driver.session.config,
  };
}

/** The session, driven by the recorded events in order. */
class AnalysisDriver {
  readonly decisions: GuardrailEvent[] = [];
  readonly session: GuardrailSession;
  /** Steps at which a halt ended the run (no halt nudge was left). */
  readonly haltedAt = new Set<number>();
  /** The cost of each answer (by seq), at the price of the model its request named. */
  readonly costs: ReadonlyMap<number, number>;
  readonly outcomeCounts = { recorded: 0, fromMessages: 0, unknown: 0 };
  /** Where the run went over a limit, and was read no further. */
  over: OverLimit | undefined;
  private readonly outcomes: ToolOutcomes;
  private readonly turns = new TurnTracker();
  private readonly used = { tokens: 0, cost: 0 };
  private answer: LlmResponseEvent | undefined;

  constructor(meta: RunMeta, events: readonly RunEvent[], private readonly settings: AnalysisSettings) {
    this.outcomes = new ToolOutcomes(events);
    this.costs = answerCosts(meta, events, settings);
    this.session = new GuardrailSession(settings.config, { lookup: settings.lookup, onDecision: (d) => this.decisions.push(this.eventOf(d)) });
  }

  /** Take one recorded event; false when the analysis is over (the run went over its limits). */
  take(event: RunEvent): boolean {
    switch (event.type) {
      case 'user_message':
        // The built-in loop's turns are its user messages; its own nudges are none.
        if (this.settings.builtIn && event.internal === undefined) this.session.newTurn();
        return true;
      case 'llm_request':
        if (!this.settings.builtIn && this.turns.request(event)) this.session.newTurn();
        return true;
      case 'llm_response':
        return this.answered(event);
      default:
        return true;
    }
  }

  private answered(event: LlmResponseEvent): boolean {
    this.answer = event;
    const { usage } = event.response;
    this.used.tokens += usage.inputTokens + usage.outputTokens;
    this.used.cost += this.costs.get(event.seq) ?? 0;
    const { limits } = this.settings;
    if (this.session.stop === null) this.session.budget(this.used, limits);
    // Over a limit, the built-in loop ends the run before it looks at the answer's calls.
    const over = overLimit(this.used, limits);
    if (over !== undefined) {
      this.over = { step: event.step, seq: event.seq, ...over };
      return false;
    }
    const calls = event.response.message.tool_calls ?? [];
    const stoppedBefore = this.session.stop !== null;
    const check = this.session.startStep(calls, event.step);
    if (calls.length === 0) {
      if (event.response.finishReason === 'length' && !stoppedBefore) this.session.maxTokens();
    } else if (check.action === 'continue' || stoppedBefore) {
      for (const call of calls) {
        if (this.session.beforeTool(call).action !== 'allow') continue;
        const outcome = this.outcomes.of(call, event.seq);
        if (outcome.kind === 'ran') {
          this.outcomeCounts[outcome.from === 'messages' ? 'fromMessages' : 'recorded']++;
          this.session.afterTool(call, { status: outcome.status, output: outcome.output });
        } else {
          this.outcomeCounts[outcome.kind === 'denied' ? 'recorded' : 'unknown']++;
          this.session.deniedTool(call);
        }
      }
    }
    const end = this.session.endStep();
    if (end.action === 'stop' && !stoppedBefore) this.haltedAt.add(event.step);
    return true;
  }

  private eventOf(decision: GuardrailDecision): GuardrailEvent {
    const { step: _step, callId, ...record } = decision;
    const at = this.answer as LlmResponseEvent;
    return { seq: at.seq, step: at.step, t: at.t, type: 'guardrail', ...(callId === undefined ? {} : { callId }), ...record, analysis: true };
  }
}

/** Each answer's cost, at the price of the model its request named (the built-in loop's: its config's model). */
function answerCosts(meta: RunMeta, events: readonly RunEvent[], settings: AnalysisSettings): Map<number, number> {
  const costs = new Map<number, number>();
  let model = meta.model;
  for (const event of events) {
    if (event.type === 'llm_request') model = event.model;
    else if (event.type === 'llm_response') costs.set(event.seq, costOf(event.response.usage, priceOf(model, settings.prices)));
  }
  return costs;
}

/** The limit `used` is over, in the built-in loop's words (agent/loop.ts), if it is over one. */
function overLimit(used: { tokens: number; cost: number }, limits: AnalysisSettings['limits']): Pick<OverLimit, 'rule' | 'reason'> | undefined {
  const tokenBudget = limits.tokenBudget ?? 0;
  const costLimit = limits.costLimit ?? 0;
  if (tokenBudget > 0 && used.tokens > tokenBudget) return { rule: RULES.tokenBudgetExceeded, reason: `used ${used.tokens} tokens of a budget of ${tokenBudget}` };
  if (costLimit > 0 && used.cost > costLimit) return { rule: RULES.costLimitExceeded, reason: `cost ${used.cost.toFixed(4)} exceeded the limit of ${costLimit}` };
  return undefined;
}
