/**
 * A tape file's lines made into events, batch by batch: checked (every line, as a tape is untrusted
 * input), or trusted (lines already checked, by an earlier read or by another thread, whose bytes
 * were verified to be the ones checked). Both give the same events for the same lines.
 */
import { TapeFormatError } from '../core/errors.js';
import type { RunEvent } from '../core/events.js';
import type { RunMeta } from '../core/run-meta.js';
import { nestsDeeperThan } from './json-depth.js';
import { forbiddenKey } from './object-keys.js';
import type { TapeLine } from './line-reader.js';
import { quickEvent } from './quick-event-check.js';
import type * as EventSchemaModule from './schema.js';
import { TapeChecks } from './tape-checks.js';
import type { TapeLimits } from './tape-limits.js';

/**
 * The checks of one read of a tape file, from its first line on: the header unchanged since it was
 * opened, no blank line, no more lines than the header allows, each line JSON within the depth
 * bound, each event valid (a quick check, else the schema), and what TapeChecks holds the events to.
 */
export class LineChecks {
  private readonly checks: TapeChecks;
  private readonly maxLines: number;
  /** The last line that passed. */
  passed = 0;

  /** `schemaLines`, when given, collects the lines the schema read (what a trusted read must read through it again). */
  constructor(
    private readonly path: string,
    private readonly meta: RunMeta,
    private readonly headerText: string,
    private readonly limits: TapeLimits,
    private readonly schemaLines: number[] | null = null,
  ) {
    this.checks = new TapeChecks(path, meta);
    this.maxLines = (meta.eventCount ?? limits.maxEvents) + 1;
  }

  /** Check a batch of lines, the next in the file; each event is pushed to `into` as its line passes. */
  async check(batch: readonly TapeLine[], into: RunEvent[]): Promise<void> {
    const { path, limits } = this;
    for (const { text, line } of batch) {
      if (line === 1) {
        checkHeaderUnchanged(path, text, this.headerText);
        this.passed = line;
        continue;
      }
      if (text.trim() === '') throw new TapeFormatError('blank line: a tape has one event on every line after the header', { file: path, line });
      if (line > this.maxLines) {
        throw new TapeFormatError(
          this.meta.eventCount === undefined ? `more than ${limits.maxEvents} events` : `more events than the header's eventCount (${this.meta.eventCount})`,
          { file: path, line },
        );
      }
      const json = parseJson(path, text, line, limits, 'not valid JSON (corrupt or truncated line)');
      // The common events pass a quick check that accepts only what the schema accepts; the
      // rest, and anything it is unsure of, go through the schema.
      let event = quickEvent(json);
      if (event === undefined) {
        event = schemaEvent(loadedSchema ?? (await loadEventSchema()), path, json, line);
        this.schemaLines?.push(line);
      }
      if (line === 2) await this.checks.start(event, line);
      else this.checks.event(event, line);
      into.push(event);
      this.passed = line;
    }
  }

  /** After the file's last line: what only the whole file can show (see TapeChecks.finish). */
  finish(): void {
    this.checks.finish(this.passed);
  }
}

/**
 * The events of lines already checked, read without their checks: the header must still be the one
 * opened, and a line the schema read when it was checked is read through it again.
 */
export async function trustedEvents(
  path: string, batch: readonly TapeLine[], headerText: string, limits: TapeLimits, schemaLines: ReadonlySet<number>,
): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for (const { text, line } of batch) {
    if (line === 1) {
      checkHeaderUnchanged(path, text, headerText);
      continue;
    }
    const json = parseJson(path, text, line, limits, 'not valid JSON (corrupt or truncated line)', false);
    events.push(schemaLines.has(line) ? schemaEvent(loadedSchema ?? (await loadEventSchema()), path, json, line) : (json as RunEvent));
  }
  return events;
}

/**
 * A line's JSON; its nesting is bounded first, and keys such as `__proto__` refused after
 * (object-keys.ts), unless the line was checked before.
 */
export function parseJson(file: string, text: string, line: number, limits: TapeLimits, message: string, checkDepth = true): unknown {
  // Checked before parsing: a value nested deeper than any tape needs never reaches recursive code.
  if (checkDepth && nestsDeeperThan(text, limits.maxDepth)) {
    throw new TapeFormatError(`a value nested more than ${limits.maxDepth} levels deep: not an agentctl tape line`, { file, line });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new TapeFormatError(message, { file, line });
  }
  const key = checkDepth ? forbiddenKey(text, value) : null;
  if (key !== null) throw new TapeFormatError(`a key named ${JSON.stringify(key.slice(key.lastIndexOf('.') + 1))} (at ${key}): no tape has one`, { file, line });
  return value;
}

type EventSchema = typeof EventSchemaModule;
let loadedSchema: EventSchema | undefined;

/**
 * The event schema (schema.ts), loaded the first time an event needs it: a tape the quick check
 * vouches for line by line never constructs it, and a replay's start-up does not pay for it.
 */
async function loadEventSchema(): Promise<EventSchema> {
  return (loadedSchema ??= await import('./schema.js'));
}

/** An event only the schema can decide. */
function schemaEvent(schema: EventSchema, file: string, json: unknown, line: number): RunEvent {
  const event = schema.runEventSchema.safeParse(json);
  if (!event.success) throw new TapeFormatError(`invalid event: ${schema.describeIssue(event.error)}`, { file, line });
  return event.data;
}

/** Line 1, read again: the file must still be the tape that was opened. */
function checkHeaderUnchanged(file: string, text: string, opened: string): void {
  if (text !== opened) throw new TapeFormatError('the header changed since the tape was opened', { file, line: 1 });
}
