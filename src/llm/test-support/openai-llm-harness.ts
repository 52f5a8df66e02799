/** Shared by the OpenAiLlm tests: a client on a scripted server, a request, and a call that captures everything. */
import { ManualClock } from '../../core/clock.js';
import type { LlmChunk, LlmRequest } from '../../core/llm.js';
import type { MockLlm } from '../../../test/support/mock-llm.js';
import { OpenAiLlm, type OpenAiLlmOptions } from '../openai-llm.js';

export const API_KEY = 'sk-test-DO-NOT-LEAK-0123456789abcdef';

export function client(server: MockLlm, extra: Partial<OpenAiLlmOptions> = {}): OpenAiLlm {
  return new OpenAiLlm({ baseURL: server.baseURL, apiKey: API_KEY, clock: new ManualClock(), ...extra });
}

export function request(stream: boolean, extra: Partial<LlmRequest> = {}): LlmRequest {
  return {
    model: 'test-model',
    stream,
    messages: [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Continue.', internal: { reason: 'max_tokens_recovery' } },
    ],
    ...extra,
  };
}

/** Call and capture chunks, warnings and the settled value or error. */
export async function run(llm: OpenAiLlm, req: LlmRequest, signal?: AbortSignal) {
  const chunks: LlmChunk[] = [];
  const warnings: string[] = [];
  try {
    const response = await llm.complete(req, { onChunk: (c) => chunks.push(c), onWarning: (w) => warnings.push(w), signal });
    return { response, error: undefined, chunks, warnings };
  } catch (error) {
    return { response: undefined, error, chunks, warnings };
  }
}

export function finishedCount(chunks: LlmChunk[]): number {
  return chunks.filter((c) => c.finished).length;
}
