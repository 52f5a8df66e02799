/**
 * What a tape file must be beyond each line's schema, checked as its events are read, so that every
 * reader (import, replay, view, diff, ci) refuses the same damaged or altered tapes, each with the
 * file and line at fault:
 *
 * - order: `run_start` first and only once, `seq` consecutive, steps never decreasing, nothing after
 *   `run_end`;
 * - the recorded config (header and `run_start`) valid the way replay reads it: this version's
 *   defaults for settings added since, no unknown fields, tools that exist;
 * - the end agrees with the header: a `complete` run ends with `run_end`, the header's
 *   `eventCount`, `finalState` and `totals` are the events'. A tape cut short at a line boundary is
 *   refused unless its header says it is the export of an `incomplete` run.
 */
import type { AgentConfig } from '../agent/config.js';
import { parseConfig } from '../agent/load-config.js';
import { TapeFormatError } from '../core/errors.js';
import type { RunEndEvent, RunEvent } from '../core/events.js';
import type { RunMeta } from '../core/run-meta.js';
import { canonicalJson } from '../guardrails/canonical-json.js';

/** Where a problem is: the tape file and line. */
interface At {
  file: string;
  line: number;
}

/** The recorded config as replay reads it; a bad one is bad tape data (exit 9) at `at`. */
export async function checkRecordedConfig(config: Record<string, unknown>, at: At): Promise<AgentConfig> {
  let parsed: AgentConfig;
  try {
    parsed = parseConfig(config, 'the recorded config');
  } catch (error) {
    throw new TapeFormatError((error as Error).message, at);
  }
  // Without tool modules the registry is built from names alone (no code is loaded): an unknown
  // tool, or a time limit for a tool that is not enabled, would stop a replay before it starts.
  if (parsed.toolModules.length === 0) {
    const { buildRegistry } = await import('../agent/tool-registry.js');
    try {
      await buildRegistry(parsed, process.cwd());
    } catch (error) {
      throw new TapeFormatError(`the recorded config: ${(error as Error).message}`, at);
    }
  }
  return parsed;
}

/**
 * Checks one tape's events in order: `start()` for the first (it reads the recorded config), then
 * `event()` for every other, synchronously; `finish()` checks the end against the header.
 */
export class TapeChecks {
  private expectedSeq = 0;
  private lastStep = 0;
  private end: { event: RunEndEvent; line: number } | null = null;
  private config: AgentConfig | null = null;

  constructor(
    private readonly file: string,
    private readonly meta: RunMeta,
  ) {}

  /** Number of events checked so far. */
  get count(): number {
    return this.expectedSeq;
  }

  /** The first event, which must be run_start: its config is checked as replay will read it. */
  async start(event: RunEvent, line: number): Promise<void> {
    if (event.type === 'run_start' && event.seq === 0) {
      this.config = await checkRecordedConfig(event.config, { file: this.file, line });
    }
    this.event(event, line);
  }

  event(event: RunEvent, line: number): void {
    const fail = (detail: string): never => {
      throw new TapeFormatError(detail, { file: this.file, line });
    };
    if (event.seq !== this.expectedSeq) fail(`event seq ${event.seq} where ${this.expectedSeq} was expected (missing or reordered lines)`);
    if (this.end !== null) fail(`${event.type} after run_end (line ${this.end.line}): run_end is the last event of a run`);
    if (event.seq === 0 && (event.type !== 'run_start' || this.config === null)) fail(`the first event is ${event.type}: a run starts with run_start`);
    if (event.seq > 0 && event.type === 'run_start') fail('a second run_start');
    if (event.step < this.lastStep) fail(`event ${event.seq} goes back from step ${this.lastStep} to ${event.step}`);
    this.expectedSeq++;
    this.lastStep = event.step;
    switch (event.type) {
      case 'run_end':
        this.end = { event, line };
        if (this.meta.finalState !== undefined && this.meta.finalState !== event.state) {
          fail(`run_end says ${event.state}; the header's finalState is ${this.meta.finalState}`);
        }
        if (this.meta.totals !== undefined && canonicalJson(this.meta.totals) !== canonicalJson(event.totals)) {
          fail(`run_end's totals differ from the header's (${canonicalJson(this.meta.totals)})`);
        }
        break;
      default:
        break;
    }
  }

  /** After the last event (on `lastLine`): the tape must be as long and end as its header says. */
  finish(lastLine: number): void {
    const at = { file: this.file, line: lastLine + 1 };
    const { eventCount, status, finalState } = this.meta;
    if (eventCount !== undefined && this.count !== eventCount) {
      throw new TapeFormatError(`the tape ends after ${this.count} events; its header says ${eventCount} (truncated?)`, at);
    }
    if (this.end === null && status === 'complete') {
      throw new TapeFormatError('the tape ends without run_end, but its header says the run is complete (truncated?)', at);
    }
    if (this.end === null && finalState !== undefined) {
      throw new TapeFormatError(`the tape ends without run_end, but its header gives a final state (${finalState})`, at);
    }
  }
}
