/**
 * The RunEvent union: the spine of agentctl. The loop yields these; the recorder writes them to the
 * tape; the TUI, the text reporter and `--json` render them; replay compares them.
 *
 * Every event has `seq` (0-based position in the run), `step` (the loop iteration it belongs to,
 * 0-based, the N of `--patch N=…`) and `t` (milliseconds since the run started, from the injected
 * clock). `t` and `durationMs` are timing, not behaviour: replay comparisons ignore them.
 *
 * The shapes are the zod schema's (event-schema.ts), which documents each field; these types are
 * inferred from it, so an event's field is added in the schema alone. The imports are types only:
 * nothing here loads zod.
 */
import type { z } from 'zod';
import type * as schema from './event-schema.js';
import type { FinishReason, ModelEndpoint } from './llm.js';
import type { runTotalsSchema } from './run-meta-schema.js';

export type EventBase = z.infer<typeof schema.eventBaseSchema>;
export type RunStartEvent = z.infer<typeof schema.runStartEventSchema>;
/** A tool the config enabled that a run went without, and why (run_start's `toolsLeftOut`). */
export type LeftOutTool = NonNullable<RunStartEvent['toolsLeftOut']>[number];
export type StateEvent = z.infer<typeof schema.stateEventSchema>;
/** A user message entering the conversation: the task, an interactive reply, or an internal nudge. */
export type UserMessageEvent = z.infer<typeof schema.userMessageEventSchema>;
/** A request to the model, stored as a delta on the previous request (see llmRequestEventSchema). */
export type LlmRequestEvent = z.infer<typeof schema.llmRequestEventSchema>;
export type LlmChunkEvent = z.infer<typeof schema.llmChunkEventSchema>;
export type LlmErrorEvent = z.infer<typeof schema.llmErrorEventSchema>;
export type LlmResponseEvent = z.infer<typeof schema.llmResponseEventSchema>;
/** An HTTP reply as recorded: status, the headers clients read, and the body (see httpReplySchema). */
export type HttpReply = z.infer<typeof schema.httpReplySchema>;
/** Recorded at the transport: a call to an endpoint that is not a model call, kept as an opaque pair. */
export type HttpExchangeEvent = z.infer<typeof schema.httpExchangeEventSchema>;
export type ToolCallEvent = z.infer<typeof schema.toolCallEventSchema>;
export type GuardrailEvent = z.infer<typeof schema.guardrailEventSchema>;
export type ToolResultEvent = z.infer<typeof schema.toolResultEventSchema>;
/** Recorded by `agentctl mcp`: an MCP request that is not a tool call, with its reply, or a notification. */
export type McpExchangeEvent = z.infer<typeof schema.mcpExchangeEventSchema>;
/** How an MCP request was answered, as recorded (a tool_result's `mcp`, an mcp_exchange's `reply`). */
export type McpReply = z.infer<typeof schema.mcpReplySchema>;
export type BudgetEvent = z.infer<typeof schema.budgetEventSchema>;
/** Guardrail counters after a step, so a run restored from the tape continues with the same state. */
export type CheckpointEvent = z.infer<typeof schema.checkpointEventSchema>;
export type WarningEvent = z.infer<typeof schema.warningEventSchema>;
/** Replay only: where and how a replay departs from its tape. */
export type DivergenceEvent = z.infer<typeof schema.divergenceEventSchema>;
export type RunTotals = z.infer<typeof runTotalsSchema>;
export type RunEndEvent = z.infer<typeof schema.runEndEventSchema>;

export type RunEvent = z.infer<typeof schema.runEventSchema>;

export type RunEventType = RunEvent['type'];

/** An event before the run assigns its `seq` and `t`. */
export type RunEventInput = RunEvent extends infer E ? (E extends RunEvent ? Omit<E, 'seq' | 't'> : never) : never;

/** Re-exported for convenience of renderers and the transport. */
export type { FinishReason, ModelEndpoint };
