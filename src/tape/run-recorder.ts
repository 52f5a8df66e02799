/**
 * Writes a run's events to the store as the loop yields them. Every event is redacted before it is
 * written (a stream's chunks together, once its last chunk is in: see EventRedactor).
 *
 * What `write` waits for (the durability promise: a reply is on disk before the loop acts on it, and
 * a SIGKILL loses nothing that was acted on), at one fdatasync per model call:
 *   - LLM responses and errors, opaque HTTP exchanges and the run's end are written with sync, and
 *     `write` resolves once they are on disk. The store writes batches strictly in order, so that
 *     synced batch also carries — or comes after — everything appended before it: the model request
 *     it answers, the tool results that request reported, the states and decisions in between.
 *   - Everything else is group-committed: handed to the writer at once (it starts writing
 *     straight away, joining whatever is appended while a write is in flight) and not waited for.
 *     That holds the model request too, and is safe: nothing acts on a request but the model call,
 *     and the model's reply is acted on only once the synced batch after the request is on disk. A
 *     SIGKILL during the call loses at most the request — never acted on, and re-derived from the
 *     events before it, all of which were on disk before the previous reply was acted on.
 *   - A tool result is waited for until it is written (handed to the OS, which a SIGKILL does not
 *     undo): its tool has had its effects, and a tape that did not say so would have a replay run
 *     or deny it again. It is acted on by the tools after it in the same step and by the next
 *     model call, which find it written. Its batch starts at once (`soon`), not a turn later.
 * "Written" is the store's word: for a run it records, TapeStore puts each batch in the run's
 * journal first (journal.ts) — a synced batch fdatasync'd there, on the main thread — and writes
 * LevelDB behind it without sync, so the loop waits for one small fdatasync per model call.
 * Tests: run-recorder.test.ts (what each event waits for) and test/record-sigkill.test.ts (a real
 * recording killed with SIGKILL keeps every reply and tool result the loop had gone past).
 */
import { configForTape, EventRedactor } from '../core/event-redactor.js';
import type { RunEvent, RunTotals } from '../core/events.js';
import type { Redactor } from '../core/redact.js';
import type { RunMeta } from '../core/run-meta.js';
import type { TerminalState } from '../core/states.js';
import type { EventWriter } from './event-writer.js';
import type { NewRun, TapeStore } from './tape-store.js';

// Synced and waited for. An opaque HTTP exchange (recorded at the transport) is a reply too: on disk
// before the client has all of it.
const DURABLE: ReadonlySet<RunEvent['type']> = new Set(['llm_response', 'llm_error', 'http_exchange', 'run_end']);

const DONE: Promise<void> = Promise.resolve();

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

  /** Write one event; resolves once it is as durable as its type requires (see the module comment). */
  write(event: RunEvent): Promise<void> {
    let wait: Promise<void> | undefined;
    try {
      // Batches are written in order, so waiting for the last of these waits for all of them.
      for (const safe of this.redactor.accept(event)) wait = this.append(safe) ?? wait;
    } catch (error) {
      return Promise.reject(error as Error);
    }
    return wait ?? DONE;
  }

  /** Hand one event to the writer; returns what the caller must wait for, if anything. */
  private append(safe: RunEvent): Promise<void> | undefined {
    if (DURABLE.has(safe.type)) return this.writer.append(safe, { sync: true });
    // Group-committed: written at once or with the next batch, not waited for; a failure surfaces
    // at the next write that is waited for, and in finish().
    if (safe.type === 'tool_result') return this.writer.append(safe, { soon: true });
    const written = this.writer.append(safe);
    written.catch(() => undefined);
    return undefined;
  }

  /** Flush and mark the run complete (or `incomplete` when it did not reach a terminal state). */
  async finish(end: { finalState: TerminalState; totals: RunTotals } | null): Promise<RunMeta> {
    for (const safe of this.redactor.flush()) this.append(safe)?.catch(() => undefined);
    await this.writer.close();
    return this.store.finishRun(this.meta.id, {
      eventCount: this.writer.count,
      ...(end === null ? { status: 'incomplete' as const } : { finalState: end.finalState, totals: end.totals }),
    });
  }
}
