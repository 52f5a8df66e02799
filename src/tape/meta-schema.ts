/**
 * The zod schemas a tape file's header needs: its line 1, and the run metadata in it (whose schema,
 * like the events', lives in core: run-meta-schema.ts). Loaded only for a header the quick check
 * (quick-event-check.ts) cannot vouch for; the event schema (schema.ts, which re-exports all of
 * these) only when an event needs it: constructing it would add to every replay's start-up.
 */
import { z } from 'zod';

export { runMetaSchema } from '../core/run-meta-schema.js';

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
