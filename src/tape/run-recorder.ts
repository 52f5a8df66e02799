/**
 * Writes a run's events to the store as the loop yields them. LLM responses (and the run's end) are
 * written with sync and awaited before the loop is allowed to act on them; requests and tool results
 * are awaited too, so a process killed at any point keeps everything the run had acted on. Other
 * events (states, chunks, decisions, checkpoints) ride along in the same batches. Every event is redacted before it is written
 * (a stream's chunks together, once its last chunk is in: see EventRedactor).
 */
import { configForTape, EventRedactor } from '../core/event-redactor.js';
import type { RunEvent, RunTotals } from '../core/events.js';
import type { Redactor } from '../core/redact.js';
import type { RunMeta } from '../core/run-meta.js';
import type { TerminalState } from '../core/states.js';
import type { EventWriter } from './event-writer.js';
import type { NewRun, TapeStore } from './tape-store.js';

// An opaque HTTP exchange (recorded at the transport) is a reply too: on disk before the client has all of it.
const DURABLE: ReadonlySet<RunEvent['type']> = new Set(['llm_response', 'llm_error', 'http_exchange', 'run_end']);
// Awaited (handed to the OS, not fsync'd): a request carries everything before it in its batch, so
// all the run did is on disk before each model call; a tool result, because its tool had effects.
const AWAITED: ReadonlySet<RunEvent['type']> = new Set(['llm_request', 'tool_result']);

export class RunRecorder {
  private readonly redactor: EventRedactor;

  private constructor(
    private readonly store: TapeStore,
    readonly meta: RunMeta,
    private readonly writer: EventWriter,
    redact: Redactor,
  ) {
    this.redactor = new EventRedactor(redact);
  }

  /** Create the run (status `recording`) and return a recorder for its events. */
  static async start(store: TapeStore, run: NewRun, redact: Redactor): Promise<RunRecorder> {
    const meta = await store.createRun(redact({ ...run, config: configForTape(run.config) }));
    return new RunRecorder(store, meta, store.writer(meta.id), redact);
  }

  get runId(): string {
    return this.meta.id;
  }

  /** Write one event; resolves once it is as durable as its type requires. */
  async write(event: RunEvent): Promise<void> {
    for (const safe of this.redactor.accept(event)) await this.append(safe);
  }

  private async append(safe: RunEvent): Promise<void> {
    if (DURABLE.has(safe.type)) return this.writer.append(safe, { sync: true });
    if (AWAITED.has(safe.type)) return this.writer.append(safe);
    // Batched with the next durable write; a failure surfaces there or in finish().
    void this.writer.append(safe);
  }

  /** Flush and mark the run complete (or `incomplete` when it did not reach a terminal state). */
  async finish(end: { finalState: TerminalState; totals: RunTotals } | null): Promise<RunMeta> {
    for (const safe of this.redactor.flush()) await this.append(safe);
    await this.writer.close();
    return this.store.finishRun(this.meta.id, {
      eventCount: this.writer.count,
      ...(end === null ? { status: 'incomplete' as const } : { finalState: end.finalState, totals: end.totals }),
    });
  }
}
