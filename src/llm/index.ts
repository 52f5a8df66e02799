/**
 * The library API of src/llm: record and replay any agent written directly on the `openai` SDK.
 * (OpenAiLlm and TapeLlm, the LlmClients of the built-in loop, are imported from their own modules;
 * the SDK conversions live in sdk-request.ts and sdk-response.ts.)
 */
export { recordOpenAI } from './record-openai.js';
export type { FinishOptions, OpenAIRecording, RecordOpenAIOptions } from './record-openai.js';
export { replayOpenAI } from './replay-openai.js';
export type {
  PatchResponse,
  ReplayedCall,
  ReplayedOpenAI,
  ReplayOpenAIOptions,
  ReplayState,
  RequestDivergence,
} from './replay-openai.js';
export type { ChatCompletionsApi, ChatCompletionsClient } from './chat-client.js';
export type { RequestDifference } from './request-diff.js';
