/**
 * The zod schema of a run's metadata (RunMeta, inferred from it in run-meta.ts) and the building
 * blocks the event schema (event-schema.ts) shares with it. A tape is untrusted input, so objects are
 * strict (unknown keys are refused) and every field is checked.
 *
 * Only tape reading loads this module, and only for a header the quick check (src/tape/
 * quick-event-check.ts) cannot vouch for; everything else imports its types alone, which the
 * compiler erases (start-up: no zod on a plain tape's replay).
 */
import { z } from 'zod';
import { TERMINAL_STATES } from './states.js';

export const nonNegInt = z.number().int().nonnegative();
export const finiteNumber = z.number().finite();
export const jsonRecord = z.record(z.string(), z.unknown());
export const terminalStateSchema = z.enum(TERMINAL_STATES);

export const runTotalsSchema = z.strictObject({
  steps: nonNegInt,
  llmCalls: nonNegInt,
  toolCalls: nonNegInt,
  inputTokens: nonNegInt,
  outputTokens: nonNegInt,
  cost: finiteNumber,
});

export const runStatusSchema = z.enum(['recording', 'complete', 'incomplete']);
export const runKindSchema = z.enum(['record', 'replay']);
/** What recorded a run: `agentctl record`/`replay`, the library (a recording fetch), `agentctl proxy`, or `agentctl mcp` on a tape of its own. */
export const runSourceSchema = z.enum(['cli', 'library', 'proxy', 'mcp']);

/** One `agentctl ci --update` of a tape. */
export const tapeUpdateSchema = z.strictObject({
  /** ISO-8601 wall-clock time of the rewrite. */
  at: z.string(),
  note: z.string(),
});

/** What the store keeps about a run, besides its events, as stored or exported in a tape header. Never holds a key or a token. */
export const runMetaSchema = z.strictObject({
  /** ULID: sortable by creation time. */
  id: z.string().regex(/^[0-9A-HJKMNP-TV-Z]{26}$/, 'expected a ULID'),
  kind: runKindSchema,
  /** What recorded it; absent on tapes from before it was kept (they are all `cli`). */
  source: runSourceSchema.optional(),
  /** For a replay: the run or tape it replayed. */
  parentId: z.string().optional(),
  name: z.string().optional(),
  /** ISO-8601 wall-clock time the run was created. */
  createdAt: z.string(),
  task: z.string(),
  model: z.string(),
  baseUrl: z.string().optional(),
  config: jsonRecord,
  seed: z.number().int(),
  status: runStatusSchema,
  finalState: terminalStateSchema.optional(),
  totals: runTotalsSchema.optional(),
  /** Number of events written; kept up to date when the run finishes. */
  eventCount: nonNegInt.optional(),
  /** Rewrites of a golden tape by `agentctl ci --update`: when, and why (the run's own data is kept). */
  updates: z.array(tapeUpdateSchema).optional(),
  tapeVersion: nonNegInt,
});
