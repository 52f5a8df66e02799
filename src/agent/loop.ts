/**
 * The agent loop (docs/loop.md, and docs/guardrails.md §5–§6) as an async generator of RunEvents
 * (inside, a coroutine: core/coroutine.ts). It sees only interfaces — an
 * LlmClient, a ToolHost, a Clock, a Random and an optional source of user input — so it is a pure
 * function of (config, seed, model replies, tool outcomes): the same inputs give the same events,
 * which is what makes a recorded run replayable. Its time limit is measured on the injected clock
 * too: at the deadline the clock's timer aborts whatever is in flight, and the run ends TIMED_OUT.
 */
import type { Clock, Random } from '../core/clock.js';
import { abandon, nextOf, ready, run, wait, type Co } from '../core/coroutine.js';
import type { LeftOutTool, RunEvent, RunEventInput, RunTotals } from '../core/events.js';
import type { LlmClient } from '../core/llm.js';
import type { ChatMessage } from '../core/messages.js';
import { packedMap } from '../core/packed-map.js';
import type { Redactor } from '../core/redact.js';
import { exitCodeForState, type AgentState, type TerminalState } from '../core/states.js';
import { LoopGuard, LoopGuardrails, ReplayControl, parseToolCall } from '../guardrails/index.js';
import type { AgentConfig } from './config.js';
import { RunDeadline, outOfTimeReason } from './deadline.js';
import { costOf, priceOf } from './prices.js';
import { providerCall } from './provider-runner.js';
import { RequestBuilder } from './request-builder.js';
import type { RecordedRequest } from './request-delta.js';
import { EventStamper } from './run-events.js';
import { runToolStep } from './tool-step.js';
import { customToolSpecs, type ToolHost } from './tool-host.js';

/** Where the next user message comes from in `--interactive` sessions; null ends the session. */
export interface UserInput {
  next(signal?: AbortSignal): Promise<string | null>;
}

/** What the loop runs on: everything that talks to the world, so a replay can swap it. */
export interface LoopDeps {
  llm: LlmClient;
  tools: ToolHost;
  /** Stamps the events and measures `limits.timeoutMs`; its `timer` cuts work short at the deadline. */
  clock: Clock;
  random: Random;
  /** Cancels the run (Ctrl-C): it ends CANCELLED. */
  signal?: AbortSignal;
  /** Present for interactive sessions: after a turn ends the run waits for the next message. */
  input?: UserInput;
  /** Redaction applied before a request is hashed; replay must use what the recording used. */
  redact?: Redactor;
}

/**
 * What a replay of the built-in loop gives it beyond its deps (not part of `runLoop`): the request
 * the tape recorded at `step`, when the replay follows its tape there. A request that is the recorded
 * one takes its hash instead of being hashed again (RequestHasher.hash).
 */
export interface ReplayTape {
  recordedRequest: (step: number) => RecordedRequest | undefined;
}

/** What the run is asked to do, and how. */
export interface LoopInput {
  task: string;
  config: AgentConfig;
  /** Tools the user's config enabled that this run goes without (its `config` no longer names them), and why: run_start records them. */
  toolsLeftOut?: readonly LeftOutTool[];
}

/** How the run ended. */
export interface LoopResult {
  state: TerminalState;
  reason: string;
  totals: RunTotals;
  exitCode: number;
}

/** Run the agent on `task` until a terminal state, yielding every event on the way. */
export function runLoop(input: LoopInput, deps: LoopDeps): AsyncGenerator<RunEvent, LoopResult, void> {
  return run(agentLoop(input, deps));
}

/** `runLoop` as a coroutine, for a driver that takes the events as they come (replay, with its tape). */
export function* agentLoop(input: LoopInput, deps: LoopDeps, tape?: ReplayTape): Co<RunEvent, LoopResult> {
  const stamper = new EventStamper(deps.clock);
  // The time limit holds everywhere: at the deadline, whatever is in flight (the model call, a
  // back-off wait, tools, the wait for input) is aborted, and the run ends TIMED_OUT.
  const deadline = new RunDeadline(deps.clock, input.config.limits.timeoutMs, () => stamper.elapsed(), deps.signal);
  try {
    return yield* steps(input, deps, stamper, deadline, tape);
  } finally {
    deadline.dispose();
  }
}

function* steps(
  input: LoopInput, deps: LoopDeps, stamper: EventStamper, deadline: RunDeadline, tape: ReplayTape | undefined,
): Co<RunEvent, LoopResult> {
  const { config } = input;
  const { clock } = deps;
  const { signal } = deadline;
  const price = priceOf(config.model, config.prices);
  const totals: RunTotals = { steps: 0, llmCalls: 0, toolCalls: 0, inputTokens: 0, outputTokens: 0, cost: 0 };
  const guardrails = new LoopGuardrails(config.guardrails);
  const requests = new RequestBuilder(config, deps.tools.definitions(), deps.redact, tape?.recordedRequest);
  let state: AgentState = 'RUNNING';
  let step = 0;
  let nudgesUsed = 0;
  const emit = (event: RunEventInput): RunEvent => stamper.stamp(event);
  /** Stamp and pass on what a part of the step yields; returns what it returns. */
  function* relay<T>(part: Co<RunEventInput, T>): Co<RunEvent, T> {
    try {
      for (let resumed = part.next(); ; resumed = part.next()) {
        const next = ready(resumed) ? resumed : yield* nextOf(part, resumed);
        if (next.done === true) return next.value;
        yield emit(next.value);
      }
    } finally {
      // Left early (the run was stopped): the part's own clean-up runs too.
      abandon(part);
    }
  }
  const transition = (to: AgentState, reason: string): RunEvent => {
    const event = emit({ type: 'state', step, from: state, to, reason });
    state = to;
    return event;
  };
  function* finish(to: TerminalState, reason: string): Generator<RunEvent, LoopResult> {
    // Steps are iterations that reached the model, including one cut short by a stop.
    totals.steps = totals.llmCalls;
    yield transition(to, reason);
    yield emit({ type: 'run_end', step, state: to, reason, totals: { ...totals } });
    return { state: to, reason, totals: { ...totals }, exitCode: exitCodeForState(to) };
  }
  const limit = `run time exceeded the limit of ${config.limits.timeoutMs} ms`;
  const interruption = (): TerminalState | null => deadline.interruption();
  // `during` says what the stop cut short; the reason quotes only the limit, so a replay says the same.
  const stop = (to: TerminalState, during: string): Generator<RunEvent, LoopResult> =>
    finish(to, to === 'CANCELLED' ? 'cancelled by the user' : `${limit}${during}`);
  // The session's counters (docs/guardrails.md §6), so a run restored from the tape continues with them. The
  // per-turn gates are not here: their memory is the turn's own calls, and writing it every step
  // would make the tape grow with the square of the turn's length.
  const checkpoint = (): RunEvent => emit({ type: 'checkpoint', step, guardrails: { loop: guardrails.toJSON(), nudgesUsed } });

  // The custom tools as the run uses them: a replay answers them from the tape and never loads their code.
  const customTools = customToolSpecs(deps.tools);
  yield emit({
    type: 'run_start', step, task: input.task, model: config.model, seed: config.seed, config: { ...config },
    ...(customTools.length > 0 || config.toolModules.length > 0 ? { customTools } : {}),
    ...(input.toolsLeftOut === undefined || input.toolsLeftOut.length === 0 ? {} : { toolsLeftOut: input.toolsLeftOut.map((tool) => ({ ...tool })) }),
  });
  yield emit({ type: 'state', step, from: null, to: 'RUNNING', reason: 'task received' });
  const messages: ChatMessage[] = [];
  if (config.systemPrompt !== '') messages.push({ role: 'system', content: config.systemPrompt });
  messages.push({ role: 'user', content: input.task });
  yield emit({ type: 'user_message', step, content: input.task });

  for (;;) {
    // A turn: the identical-call and dedup memories start afresh (docs/guardrails.md §3, §4).
    const replay = new ReplayControl();
    const guard = new LoopGuard(config.guardrails);
    for (;;) {
      // 1. Pre-flight.
      const stopped = interruption();
      if (stopped !== null) return yield* stop(stopped, '');
      if (step >= config.limits.maxSteps) return yield* finish('MAX_STEPS', `reached the limit of ${config.limits.maxSteps} steps`);

      // 2. Context.
      const trimmed = requests.trim(messages);
      if (trimmed !== null) yield emit({ type: 'warning', step, message: trimmed });

      // 3. The model call, with retries.
      const { request, event } = requests.build(messages, step);
      yield emit(event);
      totals.llmCalls++;
      let outcome;
      try {
        outcome = yield* relay(providerCall(request, { iteration: step }, {
          client: deps.llm, clock, random: deps.random, maxRetries: config.limits.maxRetries, signal, timeLeft: () => deadline.remaining(),
        }));
      } catch (error) {
        const cut = interruption();
        if (cut !== null) return yield* stop(cut, ' during the model call');
        throw error;
      }
      if (!outcome.ok && outcome.outOfTimeWaitMs !== undefined) {
        return yield* finish('TIMED_OUT', outOfTimeReason(config.limits.timeoutMs, outcome.error.toData(), outcome.outOfTimeWaitMs));
      }
      if (!outcome.ok) return yield* finish('ERROR', `provider_error: ${outcome.error.message}`);
      const { response } = outcome;

      // 4. Budget.
      totals.inputTokens += response.usage.inputTokens;
      totals.outputTokens += response.usage.outputTokens;
      totals.cost += costOf(response.usage, price);
      const used = { tokens: totals.inputTokens + totals.outputTokens, cost: totals.cost };
      const limits = { tokenBudget: config.limits.tokenBudget, costLimit: config.limits.costLimit };
      const near = guardrails.evaluateBudget(used, limits);
      const nearBudget = near.verdict === 'warn';
      yield emit({ type: 'budget', step, inputTokens: totals.inputTokens, outputTokens: totals.outputTokens, cost: totals.cost, nearBudget });
      if (near.verdict === 'warn') yield emit({ type: 'guardrail', step, ...near });
      if (limits.tokenBudget > 0 && used.tokens > limits.tokenBudget) {
        return yield* finish('BUDGET_EXCEEDED', `used ${used.tokens} tokens of a budget of ${limits.tokenBudget}`);
      }
      if (limits.costLimit > 0 && used.cost > limits.costLimit) {
        return yield* finish('BUDGET_EXCEEDED', `cost ${used.cost.toFixed(4)} exceeded the limit of ${limits.costLimit}`);
      }
      // An answer that came in as time ran out is recorded, but not acted on.
      const late = interruption();
      if (late !== null) return yield* stop(late, '');
      messages.push(response.message);

      // 5. Tool calls → repetition check → per-call pipeline.
      const calls = response.message.tool_calls ?? [];
      if (calls.length > 0) {
        // The guardrails judge the calls as the tape keeps them (redacted), so a replay decides the same.
        const seen = deps.redact === undefined ? calls : deps.redact(calls);
        const observed = guardrails.observeToolCalls(packedMap(seen, (c) => {
          const parsed = parseToolCall(c);
          return { name: c.function.name, arguments: parsed.ok ? parsed.args : parsed.raw };
        }));
        yield emit({ type: 'guardrail', step, ...observed });
        if (observed.verdict === 'stuck') return yield* finish('ERROR', `repetition: ${observed.reason}`);

        yield transition('WAITING_FOR_TOOL', `running ${calls.length} tool call${calls.length === 1 ? '' : 's'}`);
        const redact = deps.redact === undefined ? {} : { redact: deps.redact };
        const stepContext = { step, tools: deps.tools, replay, guard, signal, messages, ...redact };
        const { halt, results } = yield* relay(runToolStep(calls, stepContext));
        totals.toolCalls += results;
        const cut = interruption();
        if (cut !== null) return yield* stop(cut, ' while tools ran');
        yield transition('RUNNING', 'tool results returned to the model');
        if (halt !== null) {
          if (nudgesUsed >= config.guardrails.haltNudges) return yield* finish('ERROR', `tool_failures: ${halt.message}`);
          // A granted continuation: the model reads the halt text and the failure counts start over.
          nudgesUsed++;
          guard.resetFailures();
          messages.push({ role: 'user', content: halt.message, internal: { reason: 'halt_nudge' } });
          yield emit({ type: 'user_message', step, content: halt.message, internal: 'halt_nudge' });
        }
        yield checkpoint();
        step++;
        continue;
      }

      // No tool calls: a cut-off answer may be recovered; otherwise the turn is over.
      if (response.finishReason === 'length') {
        const decision = guardrails.onMaxTokens();
        yield emit({ type: 'guardrail', step, ...decision });
        if (decision.verdict === 'recover') {
          const followup = guardrails.maxTokensFollowup();
          messages.push({ role: 'user', content: followup, internal: { reason: 'max_tokens_recovery' } });
          yield emit({ type: 'user_message', step, content: followup, internal: 'max_tokens_recovery' });
          yield checkpoint();
          step++;
          continue;
        }
      }
      yield checkpoint();
      step++;
      if (deps.input === undefined) return yield* finish('COMPLETED', 'the model gave its final answer');

      yield transition('WAITING_FOR_INPUT', 'turn finished; waiting for the next message');
      const waiting = ' while waiting for user input';
      // Checked first too: a replay's input comes from the tape and does not wait for the signal.
      const before = interruption();
      if (before !== null) return yield* stop(before, waiting);
      let next: string | null;
      try {
        next = yield* wait(deps.input.next(signal));
      } catch (error) {
        const cut = interruption();
        if (cut !== null) return yield* stop(cut, waiting);
        throw error;
      }
      if (next === null) return yield* finish('COMPLETED', 'the session ended');
      messages.push({ role: 'user', content: next });
      yield emit({ type: 'user_message', step, content: next });
      yield transition('RUNNING', 'user message received');
      break;
    }
  }
}
