/**
 * A run's metadata. Its shape is runMetaSchema (run-meta-schema.ts); the types here are inferred from
 * it, so a field is added in the schema alone.
 */
import type { z } from 'zod';
import type { runKindSchema, runMetaSchema, runSourceSchema, runStatusSchema, tapeUpdateSchema } from './run-meta-schema.js';

/** Current version of the tape format (store values and portable files). */
export const TAPE_VERSION = 1;

export type RunStatus = z.infer<typeof runStatusSchema>;
export type RunKind = z.infer<typeof runKindSchema>;
/** What recorded a run: `agentctl record`/`replay`, the library (a recording fetch), `agentctl proxy`, or `agentctl mcp` alone. */
export type RunSource = z.infer<typeof runSourceSchema>;

/** One `agentctl ci --update` of a tape. */
export type TapeUpdate = z.infer<typeof tapeUpdateSchema>;

/**
 * What recorded a run. Tapes from before `source` was kept: a run of the library has an empty config
 * (the built-in loop always records its whole config).
 */
export function recordedBy(meta: Pick<RunMeta, 'source' | 'config'>): RunSource {
  return meta.source ?? (Object.keys(meta.config).length === 0 ? 'library' : 'cli');
}

/** How to replay a run `agentctl replay` cannot: it was not the built-in loop that made it. */
export function replayHint(meta: Pick<RunMeta, 'id' | 'name'>, source: RunSource): string {
  const ref = meta.name ?? meta.id;
  const proxy = `serve it to your agent with \`agentctl proxy --replay ${ref}\``;
  if (source === 'mcp') return `serve it to your agent's MCP client with \`agentctl mcp --replay ${ref} -- <server command>\``;
  return source === 'proxy' ? proxy : `replay it in your agent's code with replayOpenAI() or replay() from 'agentctl', or ${proxy}`;
}

/** What the store keeps about a run, besides its events. Never holds a key or a token. */
export type RunMeta = z.infer<typeof runMetaSchema>;
