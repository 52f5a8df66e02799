/**
 * A quick check of a tape's events and header, so a plain tape is read without the zod schemas at
 * all: loading and constructing them would add to every replay's start-up. The checks are generated
 * from the schemas (quick-event-check.generated.ts, by scripts/generate-quick-check.ts): they say
 * "valid" only of a value the schema accepts as it is, and leave anything else — an unknown key, a
 * missing field, an HTTP reply — to the schema, which decides and words the error. So a tape is
 * refused exactly as the schema would, and a valid one costs a few type tests per field instead of
 * a schema parse.
 *
 * quick-event-check.test.ts holds the generated module to the schemas: it must be what the
 * generator makes of them now, and on valid and changed tapes whatever it accepts the schema
 * accepts and parses to the same value.
 */
import type { RunEvent } from '../core/events.js';
import type { RunMeta } from '../core/run-meta.js';
import { checkRunEvent, checkRunMeta, checkTapeHeader } from './quick-event-check.generated.js';

/** The value as a RunEvent when the quick check can vouch for it; undefined → ask the schema. */
export function quickEvent(value: unknown): RunEvent | undefined {
  return checkRunEvent(value) ? (value as RunEvent) : undefined;
}

/**
 * A tape header (line 1) whose run metadata the quick check can vouch for: `{ version, meta }`, or
 * undefined → ask the schemas (meta-schema.ts), which decide and word the error.
 */
export function quickHeader(value: unknown): { version: number; meta: RunMeta } | undefined {
  if (!checkTapeHeader(value)) return undefined;
  const { version, run } = value as { version: number; run: unknown };
  return checkRunMeta(run) ? { version, meta: run as RunMeta } : undefined;
}
