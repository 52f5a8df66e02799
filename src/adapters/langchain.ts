/**
 * The guardrails as LangChain 1.x agent middleware (docs/guardrails.md, "LangChain"):
 *
 *   createAgent({ model, tools, middleware: [langchainGuardrails(guardrails, { ToolMessage })] })
 *
 * LangChain's agent loop gives a middleware the three places the built-in loop judges a step:
 * `afterModel` sees the model's answer with all its tool calls before any runs (the repetition check,
 * where the built-in loop makes it; a stop jumps to the end before they run), `wrapToolCall` puts each
 * call through the per-call gates around its run, and the next `beforeModel` comes after the step's
 * tool messages (the end of the step: a failure halt stops the run there, or its nudge goes to the
 * model). A new user message starts a new turn.
 *
 * Structural types only: agentctl does not load LangChain. The middleware is a plain object (createAgent
 * takes one as createMiddleware makes it), and the one class it cannot do without — the ToolMessage a
 * refused call answers with, which LangChain accepts from `wrapToolCall` only as an instance of its own
 * class — is the caller's, passed in.
 */
import type { ToolOutcome } from '../guardrails/guardrail-session.js';
import type { GuardedCall, Guardrails } from '../library/live-guardrails.js';

/** A tool call as LangChain has it (AIMessage.tool_calls, the request of wrapToolCall). */
export interface LangChainToolCall {
  id?: string | undefined;
  name: string;
  args?: unknown;
}

/** What the middleware reads of a LangChain message. */
export interface LangChainMessageLike {
  readonly type?: string;
  getType?(): string;
  readonly content?: unknown;
  readonly text?: string;
  readonly status?: string;
  readonly tool_calls?: readonly LangChainToolCall[] | undefined;
}

/** The fields the middleware gives LangChain's ToolMessage. */
export interface LangChainToolMessageFields {
  content: string;
  tool_call_id: string;
  name: string;
  status: 'success' | 'error';
}

/** LangChain's ToolMessage class (`import { ToolMessage } from 'langchain'`). */
export type LangChainToolMessageClass<M> = new (fields: LangChainToolMessageFields) => M;

/** The request of LangChain's wrapToolCall hook, as far as the middleware reads it. */
export interface LangChainToolCallRequest {
  toolCall: LangChainToolCall;
}

/** The agent's state as the model hooks read it. */
export interface LangChainAgentState {
  messages: readonly LangChainMessageLike[];
}

/** A message the middleware adds to the agent's state, in the form LangChain turns into its message classes. */
export interface LangChainMessageUpdate {
  role: 'assistant' | 'user' | 'tool';
  content: string;
  tool_call_id?: string;
  name?: string;
  status?: 'success' | 'error';
}

/** What a hook of the middleware returns: new messages, and `jumpTo: 'end'` when the guardrails stopped the run. */
export interface LangChainStateUpdate {
  messages: LangChainMessageUpdate[];
  jumpTo?: 'end';
}

type StateHook = (state: LangChainAgentState) => LangChainStateUpdate | undefined;

/** The middleware: pass it in createAgent's `middleware` list. */
export interface LangChainGuardrailsMiddleware<M> {
  readonly name: string;
  readonly beforeModel: { hook: StateHook; canJumpTo: ['end'] };
  readonly afterModel: { hook: StateHook; canJumpTo: ['end'] };
  wrapToolCall<Q extends LangChainToolCallRequest, R>(request: Q, handler: (request: Q) => R | Promise<R>): Promise<R | M>;
}

export interface LangChainGuardrailsOptions<M> {
  /** LangChain's ToolMessage class: a refused or skipped call is answered with one. */
  ToolMessage: LangChainToolMessageClass<M>;
  /** The middleware's name; LangChain refuses two middleware of one name. Default `agentctl-guardrails`. */
  name?: string;
}

/**
 * The guardrails of one run as LangChain agent middleware. A call the gates block is answered with a
 * ToolMessage holding the block text (status `error`); a duplicate of an earlier success with what that
 * call returned; a call that runs is settled with its outcome (a thrown error or a ToolMessage of status
 * `error` is a failure; the failure warning is appended to the message the model reads). When the
 * guardrails stop the run, the calls that did not run are answered with the reason and the run ends
 * with an assistant message saying why; `guardrails.stopped` holds the rule.
 */
export function langchainGuardrails<M>(guardrails: Guardrails, options: LangChainGuardrailsOptions<M>): LangChainGuardrailsMiddleware<M> {
  const { ToolMessage } = options;
  // A step whose calls went to the tools: it ends when the model is next called.
  let stepOpen = false;
  let unnamed = 0;

  const guardedCall = (call: LangChainToolCall): GuardedCall => ({ id: call.id ?? `langchain-call-${unnamed++}`, name: call.name, arguments: call.args ?? {} });

  return {
    name: options.name ?? 'agentctl-guardrails',
    beforeModel: {
      canJumpTo: ['end'],
      hook: (state) => {
        if (stepOpen) {
          stepOpen = false;
          const check = guardrails.endStep();
          if (check.action === 'continue' && check.nudge !== undefined) return { messages: [{ role: 'user', content: check.nudge }] };
        }
        // Stopped at the end of that step (failures past the halt), or in an earlier invocation.
        if (guardrails.stopped !== null) return stopUpdate(guardrails.stopped.reason, []);
        if (typeOf(state.messages.at(-1)) === 'human') guardrails.newTurn();
        return undefined;
      },
    },
    afterModel: {
      canJumpTo: ['end'],
      hook: (state) => {
        const answer = state.messages.at(-1);
        const calls = (typeOf(answer) === 'ai' ? answer?.tool_calls ?? [] : []).map(guardedCall);
        const check = guardrails.startStep(calls);
        if (check.action === 'stop') return stopUpdate(check.reason, calls);
        if (calls.length > 0) stepOpen = true;
        else guardrails.endStep();
        return undefined;
      },
    },
    async wrapToolCall(request, handler) {
      const call = guardedCall(request.toolCall);
      const answer = (content: string, status: 'success' | 'error'): M => new ToolMessage({ content, tool_call_id: call.id, name: call.name, status });
      // guard() takes the calls one at a time, in the order they came: LangChain runs a step's calls at once.
      const guarded = await guardrails.guard(call, () => handler(request), outcomeOf);
      if (guarded.action === 'block') return answer(guarded.message, 'error');
      if (guarded.action === 'skip') return answer(messageText(guarded.value) ?? guarded.message, 'success');
      // The failure watch's warning goes at the end of what the model reads.
      return guarded.settled.verdict === 'warn' && isMessage(guarded.value) ? answer(guarded.settled.output, 'error') : guarded.value;
    },
  };
}

/** How a call that ran ended: a ToolMessage of status `error` is a failure (LangChain's toolErrorMiddleware makes one of a throw). */
function outcomeOf(result: unknown): ToolOutcome {
  return { status: isMessage(result) && result.status === 'error' ? 'error' : 'ok', output: messageText(result) ?? '' };
}

/** The end of a run the guardrails stopped: each call that did not run is answered, then the reason. */
function stopUpdate(reason: string, unrun: readonly GuardedCall[]): LangChainStateUpdate {
  const answers: LangChainMessageUpdate[] = unrun.map((call) => ({
    role: 'tool', content: `Not run: the guardrails stopped the run: ${reason}`, tool_call_id: call.id, name: call.name, status: 'error',
  }));
  return { jumpTo: 'end', messages: [...answers, { role: 'assistant', content: `The guardrails stopped the run: ${reason}` }] };
}

function isMessage(value: unknown): value is LangChainMessageLike {
  return typeof value === 'object' && value !== null && 'content' in value;
}

function typeOf(message: LangChainMessageLike | undefined): string | undefined {
  return message?.type ?? message?.getType?.();
}

/** A message's text: its content when that is text, else LangChain's `text` (the text blocks joined). */
function messageText(value: unknown): string | undefined {
  if (!isMessage(value)) return undefined;
  if (typeof value.content === 'string') return value.content;
  return typeof value.text === 'string' ? value.text : undefined;
}
