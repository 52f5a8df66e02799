/**
 * The library API of src/llm: record and replay any agent written directly on the `openai` SDK.
 * (OpenAiLlm, the LlmClient the built-in loop uses, is imported from its own module.)
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
export type { ChatCompletionsApi, ChatCompletionsClient, RequestOptions } from './chat-client.js';
export type { RequestDifference } from './request-diff.js';
export { toLlmRequest, toSdkMessage, toSdkParams, fromSdkMessage } from './sdk-request.js';
export { chunksFromRecorded, chunksFromResponse, completionFromResponse, responseFromCompletion } from './sdk-response.js';
export type { CompletionLabels } from './sdk-response.js';
