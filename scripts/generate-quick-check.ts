/**
 * Writes src/tape/quick-event-check.generated.ts: the quick check of tape events and headers,
 * generated from the zod schemas (src/core/event-schema.ts, src/core/run-meta-schema.ts,
 * src/tape/meta-schema.ts), so it never needs its own copy of a shape. Run it after changing a
 * schema (`npm run quick-check:generate`); src/tape/quick-event-check.test.ts fails while the
 * checked-in module differs from what this makes of the schemas.
 *
 * The generated checks say "valid" only of a value the schema accepts as it is and parses to an
 * equal value, and they load no zod (a plain tape's replay never does). Each zod construct is
 * mirrored exactly as zod parses it (a strict object, a string with a pattern, a safe integer with
 * bounds, a nullable, an enum, an array, a record, a discriminated union); anything else — a
 * refinement, a transform, a default, a check this does not know — is left to the schema: a value
 * with that field is never vouched for, and an event type whose required part is such is not
 * covered at all. The module's header lists what is left so.
 *
 * The code is plain functions, one per object, array, record and union, with each field's check
 * written out inline: no closure or allocation per value, and one call site per check for the JIT
 * (scripts/quick-check-writer.ts writes it).
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { z } from 'zod';
import { QuickCheckWriter } from './quick-check-writer.js';
import { runEventSchema } from '../src/core/event-schema.js';
import { runMetaSchema } from '../src/core/run-meta-schema.js';
import { tapeHeaderSchema } from '../src/tape/meta-schema.js';

export const GENERATED_FILE = fileURLToPath(new URL('../src/tape/quick-event-check.generated.ts', import.meta.url));

/** One exported check of a generated module: its name and doc comment, the schema, and the name its inner functions are made from. */
export interface QuickCheckRoot {
  name: string;
  doc: string;
  schema: z.core.$ZodType;
  path: string;
}

/**
 * A module of quick checks, one exported function per root (each an object or a discriminated union
 * of objects); with `events`, a discriminated union among the roots, also the list of its options
 * the check can vouch for (QUICK_EVENT_TYPES).
 */
export function quickCheckModule(roots: readonly QuickCheckRoot[], events?: z.core.$ZodType): string {
  const writer = new QuickCheckWriter();
  for (const root of roots) writer.exported(root.name, root.doc, root.schema, root.path);
  return writer.module(events === undefined ? undefined : writer.coveredOptions(events));
}

/** The text of src/tape/quick-event-check.generated.ts. */
export function quickCheckSource(): string {
  return quickCheckModule(
    [
      { name: 'checkRunEvent', doc: '/** True only of an event the event schema (runEventSchema) accepts as it is. */', schema: runEventSchema, path: 'event' },
      {
        name: 'checkTapeHeader',
        doc: "/** True only of a tape's line 1 that tapeHeaderSchema accepts as it is (its `run` is checked by checkRunMeta). */",
        schema: tapeHeaderSchema,
        path: 'header',
      },
      { name: 'checkRunMeta', doc: "/** True only of run metadata (a tape header's `run`) that runMetaSchema accepts as it is. */", schema: runMetaSchema, path: 'runMeta' },
    ],
    runEventSchema,
  );
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  writeFileSync(GENERATED_FILE, quickCheckSource());
  console.log(`wrote ${GENERATED_FILE}`);
}
