/**
 * The guardrails for an @openai/agents (openai-agents-js) agent (docs/guardrails.md, "OpenAI Agents
 * SDK"): the built-in loop's rules, through `createGuardrails`, on the SDK's own hooks. Typed by the
 * shapes the SDK passes, never by importing it: agentctl runs without the package installed.
 *
 * Two hooks, because the SDK has no single one that sees both a call's outcome and the end of a step:
 *
 * - A tool's `execute` (wrapped by `execute`) gets the model's call as `details.toolCall`, with its
 *   id, and is where a tool's throw is still a throw — the SDK's tool() turns it into text for the
 *   model right after, where neither its tool guardrails nor its run hooks can tell it from a result.
 *   The call goes through `guard()`: run, skipped with the earlier identical call's value, or blocked
 *   with the guardrails' message as its result.
 * - The run's `callModelInputFilter` (from `runOptions`) runs before every model call, so the call
 *   after a step is where the step ends: `endStep()` decides whether the run goes on, and a stop
 *   rejects the run with a GuardrailStopError before the model is asked again — where the built-in
 *   loop ends its run. The filter passes the model's input on as it is, with a halt nudge, when one
 *   is granted, added as a user message.
 *
 * Steps are the model calls the filter saw, counted across the runs that share the guardrails; each
 * `runOptions()` is one run, begun by a user message, so its first model call starts a new turn.
 */
import { GuardrailStopError, InvalidOptionError } from '../core/errors.js';
import type { Guardrails } from '../library/live-guardrails.js';

/** What the SDK's runner passes a tool's `execute` as its third argument: the model's call, among others. */
export interface AgentsToolDetails {
  toolCall?: { callId: string; name: string; arguments: string };
}

/** A tool's `execute` as the SDK's `tool()` takes it (`Result` may be a promise). */
export type AgentsToolExecute<Input, Context, Result> = (input: Input, context?: Context, details?: AgentsToolDetails) => Result;

/** What a `callModelInputFilter` is given and gives back: the model's input items and instructions. */
export interface AgentsModelInput {
  input: unknown[];
  instructions?: string | undefined;
}

/** What the SDK passes a `callModelInputFilter`. */
export interface AgentsModelCall<M extends AgentsModelInput> {
  modelData: M;
  agent?: unknown;
  context?: unknown;
}

/** The SDK's `callModelInputFilter`, as far as the guardrails read it. */
export type AgentsCallModelInputFilter = <M extends AgentsModelInput>(args: AgentsModelCall<M>) => Promise<M>;

/** A guarded `execute`: what the tool returned, or the guardrails' message in its place. */
export type AgentsGuardedExecute<Input, Context, Result> = AgentsToolExecute<Input, Context, Promise<Awaited<Result> | string>>;

/** Run options with the guardrails' filter in them. */
export type AgentsGuardedRunOptions<Options> = Omit<Options, 'callModelInputFilter'> & { callModelInputFilter: AgentsCallModelInputFilter };

export interface OpenAIAgentsGuardrails {
  /**
   * A tool's `execute` with the guardrails in front of it: `tool({ …, execute: guarded.execute(fn) })`.
   * Returns what `fn` returned, the earlier identical call's value for a duplicate, or the guardrails'
   * message for a blocked call. A throw of `fn` is the call's failure, counted, then thrown on for the
   * SDK to report to the model its own way (so the failure watch's warning text is not added to it).
   */
  execute<Input, Context, Result>(fn: AgentsToolExecute<Input, Context, Result>): AgentsGuardedExecute<Input, Context, Result>;
  /**
   * The options of one run (a user message): `runner.run(agent, input, guarded.runOptions({ …yours }))`.
   * Yours are kept; a `callModelInputFilter` of yours runs after the guardrails'. Pass the same object
   * again to resume an interrupted run (approvals): it is the same turn.
   */
  runOptions<const Options extends object = Record<never, never>>(options?: Options): AgentsGuardedRunOptions<Options>;
}

/** The guardrails of an @openai/agents agent: its tools' `execute` functions and its runs' options. */
export function openaiAgentsGuardrails(guardrails: Guardrails): OpenAIAgentsGuardrails {
  let modelCalls = 0;
  // Where the run was stopped, kept for the runs that try to go on after it.
  let stoppedAt: number | undefined;

  /** Before a model call: the step before it is over. Throws when the guardrails stopped the run; else the nudge to add, if one. */
  const beforeModelCall = (run: { started: boolean }): string | undefined => {
    let nudge: string | undefined;
    if (modelCalls > 0 && guardrails.stopped === null) {
      const step = guardrails.step;
      const end = guardrails.endStep();
      if (end.action === 'stop') stoppedAt = step;
      else nudge = end.nudge;
    }
    if (!run.started) {
      run.started = true;
      if (modelCalls > 0) guardrails.newTurn();
    }
    const stopped = guardrails.stopped;
    if (stopped !== null) {
      const step = stoppedAt ?? guardrails.step;
      throw new GuardrailStopError(`the guardrails stopped the run at step ${step}: ${stopped.reason}`, {
        rule: stopped.rule, step,
        hint: 'the decisions are in guardrails.decisions (and on the tape when the guardrails record onto one)',
      });
    }
    modelCalls++;
    return nudge;
  };

  return {
    execute<Input, Context, Result>(fn: AgentsToolExecute<Input, Context, Result>): AgentsGuardedExecute<Input, Context, Result> {
      return async (input, context, details): Promise<Awaited<Result> | string> => {
        const call = details?.toolCall;
        if (call === undefined) {
          throw new InvalidOptionError('openaiAgentsGuardrails: a guarded execute was called without the model\'s tool call (details.toolCall)', {
            hint: 'give it to a tool of an Agent that a Runner runs',
          });
        }
        if (modelCalls === 0) {
          // Without the filter no step would ever end, and the run could never be stopped.
          throw new InvalidOptionError('openaiAgentsGuardrails: the run was not given the guardrails\' run options', {
            hint: 'run the agent with runner.run(agent, input, guarded.runOptions())',
          });
        }
        const asked = { id: call.callId, name: call.name, arguments: call.arguments };
        const ran = await guardrails.guard(asked, async (): Promise<Awaited<Result>> => {
          const value: Awaited<Result> = await fn(input, context, details);
          return value;
        });
        // A call that ran succeeded (a throw went on above), and a success never warns: its value as it is.
        return ran.action === 'block' ? ran.message : ran.value;
      };
    },

    runOptions<const Options extends object = Record<never, never>>(options?: Options): AgentsGuardedRunOptions<Options> {
      const run = { started: false };
      const theirs = (options as { callModelInputFilter?: unknown } | undefined)?.callModelInputFilter;
      const callModelInputFilter: AgentsCallModelInputFilter = async <M extends AgentsModelInput>(args: AgentsModelCall<M>) => {
        const nudge = beforeModelCall(run);
        // A granted nudge is what the built-in loop tells the model too: a user message after the tool results.
        const modelData = nudge === undefined ? args.modelData : { ...args.modelData, input: [...args.modelData.input, { role: 'user', content: nudge }] };
        if (typeof theirs !== 'function') return modelData;
        return (await (theirs as (args: unknown) => unknown)({ ...args, modelData })) as M;
      };
      return { ...options, callModelInputFilter } as AgentsGuardedRunOptions<Options>;
    },
  };
}
