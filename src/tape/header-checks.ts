/**
 * What a tape file's header (line 1) must be beyond its schema, and what it must share with the
 * run's first event. Every reader shows or acts on the header — `ls` and `show` print it after an
 * import, a replay runs its task — while the events are what was recorded: a header that
 * contradicts itself or its `run_start` is a tape that lies, and is refused (exit 9) at its line.
 *
 * - `createdAt` (and each update's `at`) is a date and time, as agentctl writes it (ISO 8601);
 * - `status` is `complete` or `incomplete`: a tape file is written of a finished run or of one whose
 *   recorder died; `recording` is only ever a run being recorded, in its store;
 * - a `replay` names the run it replayed (`parentId`, a run id), a `record` names none;
 * - `baseUrl` is an http(s) URL without credentials, query or fragment, as the recorders keep it;
 * - task, model, seed and config are `run_start`'s own.
 */
import { TapeFormatError } from '../core/errors.js';
import type { RunStartEvent } from '../core/events.js';
import type { RunMeta } from '../core/run-meta.js';
import { canonicalJson } from '../guardrails/canonical-json.js';

/** Where a problem is: the tape file and line. */
interface At {
  file: string;
  line: number;
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
const RUN_ID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** The header's run metadata on its own (line 1). */
export function checkHeader(meta: RunMeta, at: At): void {
  const fail = (detail: string): never => {
    throw new TapeFormatError(`bad run metadata: ${detail}`, at);
  };
  if (!isDateTime(meta.createdAt)) fail(`createdAt ${JSON.stringify(meta.createdAt)} is not a date and time (ISO 8601)`);
  for (const [i, update] of (meta.updates ?? []).entries()) {
    if (!isDateTime(update.at)) fail(`updates.${i}.at ${JSON.stringify(update.at)} is not a date and time (ISO 8601)`);
  }
  if (meta.status === 'recording') {
    fail("status 'recording': a tape file holds a run that was complete, or incomplete, when it was written");
  }
  if (meta.kind === 'replay' && meta.parentId === undefined) fail('a replay without a parentId (the run it replayed)');
  if (meta.kind !== 'replay' && meta.parentId !== undefined) fail(`a ${meta.kind} with a parentId: only a replay has one`);
  if (meta.parentId !== undefined && !RUN_ID.test(meta.parentId)) fail(`parentId ${JSON.stringify(meta.parentId)} is not a run id`);
  if (meta.baseUrl !== undefined) {
    const problem = urlProblem(meta.baseUrl);
    if (problem !== null) fail(`baseUrl ${problem}`);
  }
}

/** The header against the run's first event: every field both have must be the same. */
export function checkRunStart(meta: RunMeta, event: RunStartEvent, at: At): void {
  const differs = (field: string, header: unknown, start: unknown): never => {
    throw new TapeFormatError(`run_start's ${field} (${short(start)}) is not the header's (${short(header)})`, at);
  };
  if (event.task !== meta.task) differs('task', meta.task, event.task);
  if (event.model !== meta.model) differs('model', meta.model, event.model);
  if (event.seed !== meta.seed) differs('seed', meta.seed, event.seed);
  if (canonicalJson(event.config) !== canonicalJson(meta.config)) throw new TapeFormatError("run_start's config is not the header's", at);
}

function isDateTime(text: string): boolean {
  return DATE_TIME.test(text) && !Number.isNaN(Date.parse(text));
}

/** What is wrong with a recorded base URL, or null. Its text is not repeated: it may hold a key. */
function urlProblem(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `is not http(s) (${url.protocol})`;
  if (url.username !== '' || url.password !== '') return 'holds credentials (user:password@): a tape never holds a key';
  if (url.search !== '' || url.hash !== '') return 'has a query or fragment: recorders keep neither (they may hold a key)';
  return null;
}

/** A value for a one-line message: its JSON, cut short. */
function short(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}
