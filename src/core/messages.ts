/**
 * Chat messages in the OpenAI chat-completions shape. The loop, the tape and the LLM clients all
 * speak this one shape, so a recorded request can be replayed against any OpenAI-compatible server.
 * The shapes are the event schema's (event-schema.ts), these types inferred from it.
 */
import type { z } from 'zod';
import type * as schema from './event-schema.js';

/** One function call the model asked for; `arguments` is the raw JSON text the model produced. */
export type ToolCall = z.infer<typeof schema.toolCallSchema>;
export type SystemMessage = z.infer<typeof schema.systemMessageSchema>;
/** A user message; `internal` is set on those the loop injects itself. */
export type UserMessage = z.infer<typeof schema.userMessageSchema>;
export type AssistantMessage = z.infer<typeof schema.assistantMessageSchema>;
export type ToolMessage = z.infer<typeof schema.toolMessageSchema>;
export type ChatMessage = z.infer<typeof schema.chatMessageSchema>;

/** A tool as the provider sees it (the `tools` field of a request). */
export interface ToolDefinition {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}
