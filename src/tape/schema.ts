/**
 * The zod schemas for everything read from outside, as tape reading loads them: portable tape files
 * and store values. The event schema itself is core's (event-schema.ts: the types are inferred from
 * it); this module is what line-checks.ts loads on demand, for an event the quick check
 * (quick-event-check.ts) cannot vouch for, since constructing the schema would add to every replay's
 * start-up. It re-exports the header's schemas (meta-schema.ts), so one import holds them all.
 */
export { HEADER_NAME, HEADER_VALUE, runEventSchema } from '../core/event-schema.js';
export { describeIssue, runMetaSchema, tapeHeaderSchema } from './meta-schema.js';
