/**
 * One step's tool calls: drives the guardrail pipeline (docs/guardrails.md §5), turns what it yields into
 * RunEvents, and appends each call's tool message to the conversation in order. Once the signal is
 * aborted (Ctrl-C, the run's time limit) the call in flight is stopped, its result is reported, and
 * the rest of the step's calls are not started.
 */
import { abandon, nextOf, ready, whenReady, type Co } from '../core/coroutine.js';
import type { RunEventInput } from '../core/events.js';
import type { ChatMessage, ToolCall } from '../core/messages.js';
import { packedMap } from '../core/packed-map.js';
import type { Redactor } from '../core/redact.js';
import { parseToolCall, toolCalls, type HaltReport, type LoopGuard, type ReplayControl } from '../guardrails/index.js';
import type { ToolHost } from './tool-host.js';

/** What one step's tool calls need from the loop. */
export interface ToolStepContext {
  step: number;
  tools: ToolHost;
  replay: ReplayControl;
  guard: LoopGuard;
  signal: AbortSignal | undefined;
  /** The conversation; tool messages are appended to it. */
  messages: ChatMessage[];
  /**
   * How the tape will keep the calls. The guardrails judge (and key) the redacted calls, so a replay
   * — which only has the redacted text — makes the same decisions; the tools run with the real ones.
   */
  redact?: Redactor;
}

/** How a step's tool calls ended. */
export interface ToolStepResult {
  halt: HaltReport | null;
  /** Number of calls that got a result (run or denied). */
  results: number;
  /** True when the signal stopped the step before all of its calls had a result. */
  interrupted: boolean;
}

/** Run one step's tool calls through the guardrail pipeline, yielding their events (a coroutine, core/coroutine.ts). */
export function* runToolStep(
  calls: readonly ToolCall[],
  context: ToolStepContext,
): Co<RunEventInput, ToolStepResult> {
  const { step, tools } = context;
  const signal = context.signal ?? new AbortController().signal;
  const durations = new Map<string, number>();
  const seen = context.redact === undefined ? calls : packedMap(calls, (call) => context.redact!(call));
  const real = new Map<ToolCall, ToolCall>(packedMap(seen, (call, i) => [call, calls[i] as ToolCall]));
  const pipeline = toolCalls(seen, {
    lookup: (name) => tools.lookup(name),
    replay: context.replay,
    guard: context.guard,
    policy: tools.policies,
    step,
    execute: (call, args, spec) => {
      const original = real.get(call) ?? call;
      const parsed = original === call ? null : parseToolCall(original);
      return whenReady(tools.execute(original, parsed?.ok === true ? parsed.args : args, spec, signal), (result) => {
        durations.set(call.id, result.durationMs);
        return { status: result.status, output: result.output };
      });
    },
  });
  // An MCP server's tool: its events name the server (the spec's `mcp`), so every reader of the tape can tell.
  const serverOf = (tool: string): { server: string } | Record<string, never> => {
    const server = tools.lookup(tool)?.mcp?.server;
    return server === undefined ? {} : { server };
  };
  let results = 0;
  try {
    for (let resumed = pipeline.next(); ; resumed = pipeline.next()) {
      const next = ready(resumed) ? resumed : yield* nextOf(pipeline, resumed);
      if (next.done) return { halt: next.value.halt, results, interrupted: false };
      const item = next.value;
      switch (item.kind) {
        case 'call':
          yield { type: 'tool_call', step, callId: item.callId, tool: item.tool, arguments: item.call.function.arguments, key: item.key, ...serverOf(item.tool) };
          break;
        case 'decision':
          yield { type: 'guardrail', step, callId: item.callId, ...item.record };
          break;
        case 'result':
          results++;
          context.messages.push({ role: 'tool', tool_call_id: item.callId, content: item.output });
          yield {
            type: 'tool_result',
            step,
            callId: item.callId,
            tool: item.tool,
            ...serverOf(item.tool),
            status: item.status,
            output: item.output,
            durationMs: durations.get(item.callId) ?? 0,
          };
          // The rest of the step's calls are not started (the pipeline is ended below).
          if (signal.aborted) return { halt: null, results, interrupted: true };
          break;
        default:
          // `execute`, `state_changed` and `end` carry nothing the events do not already say.
          break;
      }
    }
  } finally {
    // Left early (the run was stopped, or an error): the pipeline's own clean-up runs too.
    abandon(pipeline);
  }
}
