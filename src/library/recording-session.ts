/**
 * One run being recorded from outside the built-in loop: by a recording `fetch` (the library),
 * by `agentctl proxy`, by recordTool, or by a library replay that goes on live. It creates the run
 * at its first event, stamps events in the order they are written (calls may overlap), gives each
 * model call its iteration, keeps the totals, and ends the run once.
 *
 * Iterations: every new request starts the next one; a request equal to one that just failed (same
 * hash — a client's retry) is the next attempt of that iteration instead.
 */
import { ulid } from 'ulid';
import { EventStamper } from '../agent/run-events.js';
import { systemClock, type Clock } from '../core/clock.js';
import type { RunEventInput, RunTotals } from '../core/events.js';
import type { LlmResponse } from '../core/llm.js';
import type { Redactor } from '../core/redact.js';
import type { RunMeta, RunSource } from '../core/run-meta.js';
import type { TerminalState } from '../core/states.js';
import { RunRecorder } from '../tape/run-recorder.js';
import type { TapeStore } from '../tape/tape-store.js';

export interface SessionOptions {
  store: TapeStore;
  /** Close the store when the run ends (it was opened for this run). */
  ownsStore: boolean;
  redact: Redactor;
  source: RunSource;
  runName?: string;
  task?: string;
  clock?: Clock;
  /** For a replay recorded as it goes: the run it replays. */
  parentId?: string;
}

export interface FinishOptions {
  /** Default COMPLETED. */
  state?: TerminalState;
  /** Default 'finished by the caller'. */
  reason?: string;
}

/** A model call's place in the run. */
export interface CallSlot {
  iteration: number;
  attempt: number;
  /** Clock time the request went out. */
  started: number;
}

export class RecordingSession {
  readonly runId = ulid();
  readonly clock: Clock;
  private recorder: Promise<RunRecorder> | undefined;
  private stamper: EventStamper | undefined;
  private tail: Promise<void> = Promise.resolve();
  private finished: Promise<RunMeta> | undefined;
  private nextIteration = 0;
  private lastStep = 0;
  /** Set when run_end is about to be written. */
  private ending = false;
  /** Calls that are ending (a stream the client stopped reading): finish() waits for them. */
  private readonly windingUp = new Set<Promise<void>>();
  /** Writes of callers that cannot wait for them (writeDetached), until they settle. */
  private readonly detached = new Set<Promise<void>>();
  /** The first of those that failed: finish() fails with it. */
  private detachedFailure: { error: unknown } | undefined;
  /** Chunks of streams under way, by iteration and attempt. */
  private readonly streams = new Map<string, RunEventInput[]>();
  /** The highest step of any event written (run_end goes there). */
  private maxStep = 0;
  /** Calls that failed, by request hash: a retry of the same request is their next attempt. */
  private readonly failed = new Map<string, CallSlot>();
  /** recordTool calls so far, by tool name. */
  private readonly toolCalls = new Map<string, number>();
  readonly totals: RunTotals = { steps: 0, llmCalls: 0, toolCalls: 0, inputTokens: 0, outputTokens: 0, cost: 0 };

  constructor(private readonly options: SessionOptions) {
    this.clock = options.clock ?? systemClock;
  }

  get isFinished(): boolean {
    return this.finished !== undefined;
  }

  /** The step recordTool files a tool call under: the model call that asked for it. */
  get currentStep(): number {
    return this.lastStep;
  }

  /**
   * A new recordTool call's id, `name:n`, unique in the run. The count is the run's, not a wrapper's:
   * agent code makes a wrapper per agent run (or per turn), and the calls of many wrappers of one tool
   * overlap in one recording; ids counted per wrapper would repeat, and a replay could not tell whose
   * result is whose. (`name:n` with n a number never equals another name's id: n holds no colon.)
   */
  toolCallId(name: string): string {
    const n = this.toolCalls.get(name) ?? 0;
    this.toolCalls.set(name, n + 1);
    return `${name}:${n}`;
  }

  /** The run's meta once created (at the first event). */
  async meta(): Promise<RunMeta> {
    return (await this.start({ model: 'unknown' })).meta;
  }

  /** Create the run at its first event, when its model and endpoint are known. */
  start(first: { model: string; baseUrl?: string }): Promise<RunRecorder> {
    this.recorder ??= (async () => {
      const { store, redact, source } = this.options;
      const recorder = await RunRecorder.start(
        store,
        {
          id: this.runId,
          kind: this.options.parentId === undefined ? 'record' : 'replay',
          source,
          task: this.options.task ?? (source === 'proxy' ? 'proxy run' : 'library run'),
          model: first.model,
          ...(first.baseUrl === undefined || first.baseUrl === '' ? {} : { baseUrl: first.baseUrl }),
          config: {},
          seed: 0,
          ...(this.options.runName === undefined ? {} : { name: this.options.runName }),
          ...(this.options.parentId === undefined ? {} : { parentId: this.options.parentId }),
        },
        redact,
      );
      this.stamper = new EventStamper(this.clock);
      await recorder.write(this.stamper.stamp({ type: 'run_start', step: 0, task: recorder.meta.task, model: first.model, seed: 0, config: {} }));
      return recorder;
    })();
    return this.recorder;
  }

  /** The slot of a new request (or of a retry of one that failed). */
  slot(hash: string): CallSlot {
    const retry = this.failed.get(hash);
    this.failed.delete(hash);
    const slot = retry === undefined
      ? { iteration: this.nextIteration++, attempt: 0, started: this.clock.now() }
      : { iteration: retry.iteration, attempt: retry.attempt + 1, started: this.clock.now() };
    this.totals.llmCalls++;
    return slot;
  }

  /** The call failed: a retry of the same request continues it. */
  failedCall(hash: string, slot: CallSlot): void {
    this.failed.set(hash, slot);
  }

  /** The call got its answer. */
  answered(slot: CallSlot, response: LlmResponse): void {
    this.lastStep = Math.max(this.lastStep, slot.iteration);
    this.totals.steps++;
    this.totals.toolCalls += response.message.tool_calls?.length ?? 0;
    this.totals.inputTokens += response.usage.inputTokens;
    this.totals.outputTokens += response.usage.outputTokens;
  }

  /**
   * Write one event after every event written before it; resolves when it is as durable as its type
   * requires (a response is synced before the caller sees it).
   */
  write(event: RunEventInput, options: { afterIo?: boolean } = {}): Promise<void> {
    if (this.recorder === undefined) return Promise.reject(new Error('agentctl: event before the run started'));
    // Once the run is ending, what a call still under way (a stream nobody reads) would add is not
    // part of it: nothing may follow run_end.
    if (this.ending && event.type !== 'run_end') return Promise.resolve();
    this.maxStep = Math.max(this.maxStep, event.step);
    if (event.type !== 'llm_chunk') return this.append([event], options.afterIo === true);
    // A stream's chunks are held until its terminal chunk, then written together: overlapping streams
    // do not interleave, so each is redacted as one text (a key split across its chunks is found).
    const key = `${event.iteration}:${event.attempt}`;
    const held = this.streams.get(key) ?? [];
    held.push(event);
    this.streams.set(key, held);
    if (!event.chunk.finished) return Promise.resolve();
    this.streams.delete(key);
    return this.append(held);
  }

  /**
   * Write an event for a caller that cannot wait for it (a synchronous one: the guardrails' decisions),
   * in its place among the others; the run is created if it was not. A failure rejects the promise
   * returned and is finish()'s to throw, so the run never ends looking whole without it.
   */
  writeDetached(event: RunEventInput): Promise<void> {
    this.start({ model: 'unknown' }).catch(() => undefined);
    const done = this.write(event);
    const settled = done.then(
      () => undefined,
      (error: unknown) => {
        this.detachedFailure ??= { error };
      },
    );
    this.detached.add(settled);
    void settled.then(() => this.detached.delete(settled));
    return done;
  }

  /**
   * Stamp and write events one after another, after everything before them. `afterIo`: only once
   * the event loop has turned, so the I/O the caller starts next (a call upstream) goes out before
   * this write's work is done; the event keeps its place in the run all the same.
   */
  private append(events: readonly RunEventInput[], afterIo = false): Promise<void> {
    const recorder = this.recorder as Promise<RunRecorder>;
    const done = this.tail.then(async () => {
      if (afterIo) await new Promise((resolve) => setImmediate(resolve));
      const rec = await recorder;
      for (const event of events) await rec.write((this.stamper as EventStamper).stamp(event));
    });
    // The chain goes on after a failed write; the failure reaches this write's caller.
    this.tail = done.catch(() => undefined);
    return done;
  }

  /** The chunks of streams that never ended (a process going away, a client that never read on). */
  private flushStreams(): Promise<void> {
    const held = [...this.streams.values()].flat();
    this.streams.clear();
    return held.length === 0 ? Promise.resolve() : this.append(held);
  }

  /** Write `run_end`, mark the run complete, close an owned store. Idempotent. */
  finish(end: FinishOptions = {}): Promise<RunMeta> {
    this.finished ??= (async () => {
      try {
        await this.start({ model: 'unknown' });
        await Promise.all([...this.windingUp]);
        await Promise.all([...this.detached]);
        if (this.detachedFailure !== undefined) throw this.detachedFailure.error;
        await this.flushStreams();
        this.ending = true;
        const state = end.state ?? 'COMPLETED';
        const totals = { ...this.totals };
        await this.write({ type: 'run_end', step: this.maxStep, state, reason: end.reason ?? 'finished by the caller', totals });
        return await (await (this.recorder as Promise<RunRecorder>)).finish({ finalState: state, totals });
      } finally {
        if (this.options.ownsStore) await this.options.store.close();
      }
    })();
    return this.finished;
  }

  /** A call that is being wound up: finish() writes run_end only after it. */
  track(done: Promise<void>): void {
    this.windingUp.add(done);
    void done.finally(() => this.windingUp.delete(done));
  }
}

/** A base URL as it may be recorded: no credentials, no query. */
export function recordableUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    parsed.search = '';
    parsed.hash = '';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return '';
  }
}
