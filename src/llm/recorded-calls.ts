/**
 * The model calls of a recorded run, read from its events: per successful call, the request(s)
 * sent for it (a retried call sends it again), the response, and the chunks of the attempt that
 * succeeded. Failed attempts keep their request deltas (later deltas are relative to them) but
 * their chunks and errors are dropped: a replay serves only what the agent went on with.
 */
import type { LlmRequestEvent, RunEvent } from '../core/events.js';
import type { LlmChunk, LlmResponse } from '../core/llm.js';

/** One `llm_request` as stored: a delta against the request before it, and the hash of the whole request. */
export type RecordedRequest = Pick<LlmRequestEvent, 'hash' | 'prefix' | 'append' | 'model' | 'stream' | 'tools'>;

export interface RecordedCall {
  /** The iteration the tape labels it with. */
  iteration: number;
  /** Every request sent for this call, in tape order (usually one); the last one got the response. */
  requests: RecordedRequest[];
  response: LlmResponse;
  /** The chunks of the successful attempt, when it streamed. */
  chunks: LlmChunk[] | undefined;
}

/**
 * Collect a run's calls. Holds every response (and chunk) in memory: fine for the library API,
 * whose tapes are one agent session; the CLI replays from the stream of events instead.
 */
export async function readRecordedCalls(events: AsyncIterable<RunEvent>): Promise<RecordedCall[]> {
  const calls: RecordedCall[] = [];
  let requests: RecordedRequest[] = [];
  let chunks = new Map<number, LlmChunk[]>();
  for await (const event of events) {
    switch (event.type) {
      case 'llm_request':
        requests.push({
          hash: event.hash,
          prefix: event.prefix,
          append: event.append,
          model: event.model,
          stream: event.stream,
          tools: event.tools,
        });
        break;
      case 'llm_chunk': {
        const list = chunks.get(event.attempt) ?? [];
        list.push(event.chunk);
        chunks.set(event.attempt, list);
        break;
      }
      case 'llm_response':
        // A response without a request before it cannot be checked; keep it servable anyway.
        calls.push({ iteration: event.iteration, requests, response: event.response, chunks: chunks.get(event.attempt) });
        requests = [];
        chunks = new Map();
        break;
      default:
        break;
    }
  }
  return calls;
}
