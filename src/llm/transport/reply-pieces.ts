/**
 * The pieces a recorded stream was cut into, for a reply written from our `LlmResponse` (a run
 * recorded by `agentctl record`, a transport recording without its raw events): served in the same
 * pieces, so a replayed stream is cut where the recorded one was.
 */
import type { LlmChunk } from '../../core/llm.js';

/** The pieces a recorded stream was cut into, when they add up to `whole`; else `whole` in one piece. */
export function pieces(recorded: readonly string[] | undefined, whole: string): string[] {
  if (recorded === undefined || recorded.length === 0 || recorded.join('') !== whole) return whole === '' ? [] : [whole];
  return [...recorded];
}

/** The text pieces of recorded chunks. */
export function recordedText(chunks: readonly LlmChunk[] | undefined): string[] | undefined {
  return chunks?.flatMap((chunk) => (!chunk.finished && chunk.content !== undefined && chunk.content !== '' ? [chunk.content] : []));
}

/** The argument pieces of the tool call at `index` in recorded chunks. */
export function recordedArguments(chunks: readonly LlmChunk[] | undefined, index: number): string[] | undefined {
  return chunks?.flatMap((chunk) =>
    chunk.finished ? [] : (chunk.toolCalls ?? []).flatMap((call) => (call.index === index && call.arguments !== undefined && call.arguments !== '' ? [call.arguments] : [])),
  );
}
