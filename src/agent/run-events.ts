/**
 * Turns event bodies into RunEvents: assigns `seq` in order and `t` from the injected clock, and
 * keeps `type, seq, step, t` first so every line of `--json` and of a tape reads the same way.
 */
import type { Clock } from '../core/clock.js';
import type { RunEvent, RunEventInput } from '../core/events.js';

export class EventStamper {
  private seq = 0;
  private readonly start: number;

  constructor(private readonly clock: Clock) {
    this.start = clock.now();
  }

  /** Milliseconds since the run started, to 0.01 ms. */
  elapsed(): number {
    return Math.round((this.clock.now() - this.start) * 100) / 100;
  }

  stamp(input: RunEventInput): RunEvent {
    const head = { type: input.type, seq: this.seq++, step: input.step, t: this.elapsed() };
    return Object.assign(head, input) as RunEvent;
  }
}
