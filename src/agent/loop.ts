/**
 * The agent loop (SPEC.md §5–§7) as an async generator of RunEvents. It sees only interfaces — an
 * LlmClient, a ToolHost, a Clock, a Random and an optional source of user input — so it is a pure
 * function of (config, seed, model replies, tool outcomes): the same inputs give the same events,
 * which is what makes a recorded run replayable.
 */
import type { Clock, Random } from '../core/clock.js';
import type { RunEvent, RunEventInput, RunTotals } from '../core/events.js';
import type { LlmClient, LlmRequest } from '../core/llm.js';
import type { ChatMessage } from '../core/messages.js';
import type { Redactor } from '../core/redact.js';
import { exitCodeForState, type AgentState, type TerminalState } from '../core/states.js';
import { LoopGuard, LoopGuardrails, ReplayControl, parseToolCall } from '../guardrails/index.js';
import type { AgentConfig } from './config.js';
import { trimContext } from './context.js';
import { costOf, priceOf } from './prices.js';
import { runProviderCall } from './provider-runner.js';
import { RequestHasher, requestDelta, type RequestDelta } from './request-delta.js';
import { EventStamper } from './run-events.js';
import { runToolStep } from './tool-step.js';
import type { ToolHost } from './tool-host.js';

/** Where the next user message comes from in `--interactive` sessions; null ends the session. */
export interface UserInput {
  next(signal?: AbortSignal): Promise<string | null>;
}

export interface LoopDeps {
  llm: LlmClient;
  tools: ToolHost;
  clock: Clock;
  random: Random;
  signal?: AbortSignal;
  /** Present for interactive sessions: after a turn ends the run waits for the next message. */
  input?: UserInput;
  /** Redaction applied before a request is hashed; replay must use what the recording used. */
  redact?: Redactor;
}

export interface LoopInput {
  task: string;
  config: AgentConfig;
}

export interface LoopResult {
  state: TerminalState;
  reason: string;
  totals: RunTotals;
  exitCode: number;
}

/** Run the agent on `task` until a terminal state, yielding every event on the way. */
export async function* runLoop(input: LoopInput, deps: LoopDeps): AsyncGenerator<RunEvent, LoopResult, void> {
  const { config } = input;
  const { clock, signal } = deps;
  const stamper = new EventStamper(clock);
  const hasher = new RequestHasher(deps.redact);
  const price = priceOf(config.model, config.prices);
  const totals: RunTotals = { steps: 0, llmCalls: 0, toolCalls: 0, inputTokens: 0, outputTokens: 0, cost: 0 };
  const guardrails = new LoopGuardrails(config.guardrails);
  // The same list every step (tools do not change within a run), so its hash part is computed once.
  const definitions = deps.tools.definitions();
  const toolNames = definitions.map((d) => d.function.name);
  let state: AgentState = 'RUNNING';
  let step = 0;
  let nudgesUsed = 0;
  /** How many messages the previous request had; the conversation only grows between trims. */
  let sentLength = 0;
  /** Set when trimming rewrote the conversation: then the delta is found by comparison. */
  let rewritten: ChatMessage[] | null = null;
  const emit = (event: RunEventInput): RunEvent => stamper.stamp(event);
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
  // The session's counters (SPEC §6), so a run restored from the tape continues with them. The
  // per-turn gates are not here: their memory is the turn's own calls, and writing it every step
  // would make the tape grow with the square of the turn's length.
  const checkpoint = (): RunEvent => emit({ type: 'checkpoint', step, guardrails: { loop: guardrails.toJSON(), nudgesUsed } });

  yield emit({ type: 'run_start', step, task: input.task, model: config.model, seed: config.seed, config: { ...config } });
  yield emit({ type: 'state', step, from: null, to: 'RUNNING', reason: 'task received' });
  const messages: ChatMessage[] = [];
  if (config.systemPrompt !== '') messages.push({ role: 'system', content: config.systemPrompt });
  messages.push({ role: 'user', content: input.task });
  yield emit({ type: 'user_message', step, content: input.task });

  for (;;) {
    // A turn: the identical-call and dedup memories start afresh (SPEC §3, §4).
    const replay = new ReplayControl();
    const guard = new LoopGuard(config.guardrails);
    for (;;) {
      // 1. Pre-flight.
      if (signal?.aborted) return yield* finish('CANCELLED', 'cancelled by the user');
      const elapsed = stamper.elapsed();
      if (config.limits.timeoutMs > 0 && elapsed > config.limits.timeoutMs) {
        // The measured time is the event's `t`; the reason quotes only the limit, so a replay says the same.
        return yield* finish('TIMED_OUT', `run time exceeded the limit of ${config.limits.timeoutMs} ms`);
      }
      if (step >= config.limits.maxSteps) return yield* finish('MAX_STEPS', `reached the limit of ${config.limits.maxSteps} steps`);

      // 2. Context.
      if (config.context.window > 0) {
        const trimmed = trimContext(messages, config.context);
        if (trimmed.removed > 0) {
          rewritten ??= messages.slice(0, sentLength);
          messages.splice(0, messages.length, ...trimmed.messages);
          yield emit({
            type: 'warning',
            step,
            message: `context: ${config.context.strategy} removed ${trimmed.removed} message(s) to fit a window of ${config.context.window} tokens`,
          });
        }
      }

      // 3. The model call, with retries.
      // The conversation itself, not a copy (a copy per step costs the square of the run's length):
      // clients read it during the call and must not keep it.
      const request: LlmRequest = {
        model: config.model, messages, tools: definitions, stream: config.stream,
      };
      if (config.maxTokens > 0) request.maxTokens = config.maxTokens;
      if (config.temperature !== undefined) request.temperature = config.temperature;
      const delta: RequestDelta = rewritten === null
        ? { prefix: sentLength, append: messages.slice(sentLength) }
        : requestDelta(rewritten, request.messages);
      rewritten = null;
      sentLength = request.messages.length;
      yield emit({
        type: 'llm_request', step, iteration: step, hash: hasher.hash(request, delta), ...delta, model: config.model, stream: config.stream, tools: toolNames,
      });
      totals.llmCalls++;
      const call = runProviderCall(request, { iteration: step }, {
        client: deps.llm, clock, random: deps.random, maxRetries: config.limits.maxRetries, ...(signal ? { signal } : {}),
      });
      let outcome;
      try {
        for (let next = await call.next(); ; next = await call.next()) {
          if (next.done) {
            outcome = next.value;
            break;
          }
          yield emit(next.value);
        }
      } catch (error) {
        if (signal?.aborted) return yield* finish('CANCELLED', 'cancelled by the user');
        throw error;
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
      messages.push(response.message);

      // 5. Tool calls → repetition check → per-call pipeline.
      const calls = response.message.tool_calls ?? [];
      if (calls.length > 0) {
        const observed = guardrails.observeToolCalls(calls.map((c) => {
          const parsed = parseToolCall(c);
          return { name: c.function.name, arguments: parsed.ok ? parsed.args : parsed.raw };
        }));
        yield emit({ type: 'guardrail', step, ...observed });
        if (observed.verdict === 'stuck') return yield* finish('ERROR', `repetition: ${observed.reason}`);

        yield transition('WAITING_FOR_TOOL', `running ${calls.length} tool call${calls.length === 1 ? '' : 's'}`);
        const toolStep = runToolStep(calls, { step, tools: deps.tools, replay, guard, signal, messages });
        let halt;
        for (let next = await toolStep.next(); ; next = await toolStep.next()) {
          if (next.done) {
            halt = next.value.halt;
            totals.toolCalls += next.value.results;
            break;
          }
          yield emit(next.value);
        }
        if (signal?.aborted) return yield* finish('CANCELLED', 'cancelled by the user');
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
      let next: string | null;
      try {
        next = await deps.input.next(signal);
      } catch (error) {
        if (signal?.aborted) return yield* finish('CANCELLED', 'cancelled by the user');
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
