/**
 * Chat messages in the OpenAI chat-completions shape. The loop, the tape and the LLM clients all
 * speak this one shape, so a recorded request can be replayed against any OpenAI-compatible server.
 */

/** One function call the model asked for; `arguments` is the raw JSON text the model produced. */
export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface SystemMessage {
  role: 'system';
  content: string;
}

export interface UserMessage {
  role: 'user';
  content: string;
  /**
   * Set on messages the loop injects itself (max-tokens recovery, halt nudges, compaction
   * markers). Not sent to the provider as a field; the UI hides or dims them.
   */
  internal?: { reason: string };
}

export interface AssistantMessage {
  role: 'assistant';
  content: string | null;
  tool_calls?: ToolCall[];
}

export interface ToolMessage {
  role: 'tool';
  tool_call_id: string;
  content: string;
}

export type ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/** A tool as the provider sees it (the `tools` field of a request). */
export interface ToolDefinition {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}
