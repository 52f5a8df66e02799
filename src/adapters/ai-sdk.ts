/**
 * The guardrails in a Vercel AI SDK agent (docs/guardrails.md, "Vercel AI SDK"): a wrapper for the
 * `tools` of generateText / streamText, which puts every call through `guardrails.guard`, and a
 * `stopWhen` condition, which ends each step the SDK finishes and stops the run when the guardrails
 * say so.
 *
 * The SDK runs a step's tools as soon as the model names them and asks `stopWhen` only after they
 * ran, so the adapter never sees a step's calls before they run: it drives the guardrails the way
 * the session's drivers without startStep do (beforeTool, afterTool, then endStep with the
 * repetition check over the calls it saw). Nothing here loads `ai`: the tools and the condition are
 * taken and given as structural types, so any major of the SDK the user has installed works, and a
 * user without it loses nothing.
 */
import { InvalidOptionError } from '../core/errors.js';
import type { Guardrails } from '../library/live-guardrails.js';

/** What the adapter reads of the options the SDK passes a tool's `execute` (its ToolCallOptions / ToolExecutionOptions). */
export interface AiSdkToolCallOptions {
  /** The model's id for the call. */
  toolCallId: string;
  /** The conversation the model answered: a user message the guardrails have not seen starts a new turn. */
  messages?: readonly AiSdkMessage[] | undefined;
}

/** A message of the conversation, as far as the adapter reads it. */
export interface AiSdkMessage {
  role: string;
  content?: unknown;
}

/** A `stopWhen` condition of generateText / streamText (the SDK's StopCondition). */
export type AiSdkStopCondition = (options: { steps: readonly unknown[] }) => boolean;

/** The guardrails for an AI SDK agent: give `tools(…)` as its `tools` and add `stopWhen` to its stop conditions. */
export interface AiSdkGuardrails {
  /** The guardrails the adapter drives: their `decisions`, `stopped`. */
  readonly guardrails: Guardrails;
  /**
   * The same tools (the SDK's `tools` record), each `execute` run through the guardrails: a blocked call returns the
   * guardrails' message to the model as its result (a string) instead of running; a duplicate of an
   * earlier success returns that call's result. A tool whose `execute` streams (an async iterable)
   * gives only its last value.
   */
  tools<T extends Readonly<Record<string, object>>>(tools: T): T;
  /**
   * Ends each finished step in the guardrails (once per step, however often the SDK asks) and is
   * true once they stopped the run: `stopWhen: [stepCountIs(20), guard.stopWhen]`.
   */
  readonly stopWhen: AiSdkStopCondition;
}

type Execute = (input: unknown, options: AiSdkToolCallOptions) => unknown;

/** The AI SDK adapter of `guardrails` (one createGuardrails per run: docs/guardrails.md, "Vercel AI SDK"). */
export function aiSdkGuardrails(guardrails: Guardrails): AiSdkGuardrails {
  if (guardrails.config.haltNudges > 0) {
    // A nudge is a user message in the conversation; a generateText / streamText run has no way in for one.
    throw new InvalidOptionError(
      `guardrails.haltNudges must be 0 with the AI SDK adapter, got ${guardrails.config.haltNudges}: it cannot give the model a message in the middle of a run`,
      { hint: 'leave haltNudges out: a tool failing past failureHalt stops the run at the end of its step' },
    );
  }
  // The user message the calls so far answer: another one is a new turn.
  let turn: string | undefined;
  // The steps already ended, and the last of them, to tell the same run's steps from another run's.
  let ended = 0;
  let lastEnded: unknown;

  const noteTurn = (messages: readonly AiSdkMessage[] | undefined): void => {
    const current = lastUserMessage(messages ?? []);
    if (current === undefined) return;
    if (turn !== undefined && current !== turn) guardrails.newTurn();
    turn = current;
  };

  const wrap = (name: string, execute: Execute): Execute => async (input, options) => {
    noteTurn(options.messages);
    const guarded = await guardrails.guard({ id: options.toolCallId, name, arguments: input }, () => finalValue(execute(input, options)));
    return guarded.action === 'block' ? guarded.message : guarded.value;
  };

  const stopWhen: AiSdkStopCondition = ({ steps }) => {
    // Another run's steps (a new generateText call with the same guardrails) are counted from their first.
    const sameRun = ended <= steps.length && (ended === 0 || steps[ended - 1] === lastEnded);
    for (let i = sameRun ? ended : 0; i < steps.length; i++) guardrails.endStep();
    ended = steps.length;
    lastEnded = steps.at(-1);
    return guardrails.stopped !== null;
  };

  return {
    guardrails,
    tools<T extends Readonly<Record<string, object>>>(tools: T): T {
      const wrapped: Record<string, unknown> = {};
      for (const [name, tool] of Object.entries(tools)) {
        // Any object with an `execute` function is a tool the SDK runs; one without is passed through.
        const execute = (tool as { execute?: unknown }).execute as Execute | undefined;
        wrapped[name] = typeof execute === 'function' ? { ...tool, execute: wrap(name, execute.bind(tool)) } : tool;
      }
      return wrapped as T;
    },
    stopWhen,
  };
}

/** A tool's result: an async iterable (preliminary results, then the final one) gives its last value. */
async function finalValue(result: unknown): Promise<unknown> {
  if (!isAsyncIterable(result)) return result;
  let last: unknown;
  for await (const value of result) last = value;
  return last;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function';
}

/** The last user message of a conversation: where it is and its text, or undefined when there is none. */
function lastUserMessage(messages: readonly AiSdkMessage[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.role === 'user') return `${i}:${textOf(message.content)}`;
  }
  return undefined;
}

/** A message's text: a string, or its text parts. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part: unknown) => (typeof part === 'object' && part !== null && 'text' in part && typeof part.text === 'string' ? part.text : '')).join('\n');
}
