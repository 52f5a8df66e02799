/**
 * The part of the `openai` SDK client that recordOpenAI and replayOpenAI stand in for:
 * `chat.completions.create`, streaming or not. The SDK's own `OpenAI` class satisfies this
 * interface, so agent code typed against it runs unchanged on a real client, a recording one and
 * a replaying one. Ours return plain promises (not the SDK's `APIPromise`: no `.withResponse()`),
 * and streams are real SDK `Stream` objects (`for await`, `tee()`, `toReadableStream()`, `controller`).
 */
import type OpenAI from 'openai';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsBase,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
} from 'openai/resources/chat/completions';
import type { Stream } from 'openai/streaming';

/** The SDK's per-request options (`signal`, `timeout`, `headers`, …). */
export type RequestOptions = NonNullable<Parameters<OpenAI['chat']['completions']['create']>[1]>;

export interface ChatCompletionsApi {
  create(body: ChatCompletionCreateParamsNonStreaming, options?: RequestOptions): Promise<ChatCompletion>;
  create(body: ChatCompletionCreateParamsStreaming, options?: RequestOptions): Promise<Stream<ChatCompletionChunk>>;
  create(body: ChatCompletionCreateParamsBase, options?: RequestOptions): Promise<Stream<ChatCompletionChunk> | ChatCompletion>;
}

/** Anything with `chat.completions.create`: an `OpenAI` client, or one of ours. */
export interface ChatCompletionsClient {
  chat: { completions: ChatCompletionsApi };
}

/** The one signature all three overloads share, for implementations. */
export type CreateCompletion = (
  body: ChatCompletionCreateParamsBase,
  options?: RequestOptions,
) => Promise<Stream<ChatCompletionChunk> | ChatCompletion>;

/** A client object around one `create` implementation. */
export function chatClient(create: CreateCompletion): ChatCompletionsClient {
  // The overloads only narrow the return type by `stream`; one implementation serves them all.
  return { chat: { completions: { create: create as ChatCompletionsApi['create'] } } };
}
