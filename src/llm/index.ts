/**
 * The library API of src/llm: record and replay any agent written on the `openai` SDK (built on the
 * recording and replaying fetch of src/llm/transport). OpenAiLlm and TapeLlm, the LlmClients of the
 * built-in loop, are imported from their own modules.
 */
export { recordOpenAI } from './record-openai.js';
export type { OpenAIRecording, RecordOpenAIOptions } from './record-openai.js';
export { replayOpenAI } from './replay-openai.js';
export type { ReplayedOpenAI, ReplayOpenAIOptions } from './replay-openai.js';
