/**
 * The zod schemas of a tape file's header and run metadata, and the HTTP header patterns: the part
 * of schema.ts that reading any tape needs up front. The event schema (schema.ts, which re-exports
 * all of these) is loaded only when an event needs it: constructing it would add to every replay's
 * start-up.
 */
import { z } from 'zod';

export const nonNegInt = z.number().int().nonnegative();
export const finiteNumber = z.number().finite();
export const jsonRecord = z.record(z.string(), z.unknown());
export const terminalState = z.enum(['COMPLETED', 'CANCELLED', 'TIMED_OUT', 'MAX_STEPS', 'BUDGET_EXCEEDED', 'ERROR']);

export const totals = z.strictObject({
  steps: nonNegInt,
  llmCalls: nonNegInt,
  toolCalls: nonNegInt,
  inputTokens: nonNegInt,
  outputTokens: nonNegInt,
  cost: finiteNumber,
});

/** A header name: an HTTP token. */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A header value a reply can carry: printable Latin-1 and tabs, no CR or LF. */
export const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** Run metadata, as stored or exported in a tape header. */
export const runMetaSchema = z.strictObject({
  id: z.string().regex(/^[0-9A-HJKMNP-TV-Z]{26}$/, 'expected a ULID'),
  kind: z.enum(['record', 'replay']),
  source: z.enum(['cli', 'library', 'proxy']).optional(),
  parentId: z.string().optional(),
  name: z.string().optional(),
  createdAt: z.string(),
  task: z.string(),
  model: z.string(),
  baseUrl: z.string().optional(),
  config: jsonRecord,
  seed: z.number().int(),
  status: z.enum(['recording', 'complete', 'incomplete']),
  finalState: terminalState.optional(),
  totals: totals.optional(),
  eventCount: nonNegInt.optional(),
  updates: z.array(z.strictObject({ at: z.string(), note: z.string() })).optional(),
  tapeVersion: nonNegInt,
});

/** Line 1 of a portable tape file. */
export const tapeHeaderSchema = z.strictObject({
  format: z.literal('agentctl-tape'),
  version: z.number().int(),
  run: z.unknown(),
});

/** A readable one-line summary of a zod failure: the first issue, with its path. */
export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'invalid value';
  const path = issue.path.length > 0 ? issue.path.join('.') : '(root)';
  return `${path}: ${issue.message}`;
}
