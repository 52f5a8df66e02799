import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../core/events.js';
import { RunFeed, TURN_MS } from './run-feed.js';

const event = (seq: number): RunEvent => ({ type: 'state', seq, step: 0, t: 0, from: null, to: 'RUNNING', reason: 'task received' });

describe('RunFeed', () => {
  it('asks a producer that has gone TURN_MS without the UI taking its events for a turn of the event loop', async () => {
    let now = 0;
    const feed = new RunFeed(() => now);
    feed.push(event(0));
    expect(feed.turn()).toBeUndefined();
    now = TURN_MS - 1;
    expect(feed.turn()).toBeUndefined();
    now = TURN_MS;
    // The turn ends after the event loop has gone round: what was queued for it before has run.
    let ran = false;
    setImmediate(() => (ran = true));
    const turn = feed.turn();
    expect(turn).toBeInstanceOf(Promise);
    expect(ran).toBe(false);
    await turn;
    expect(ran).toBe(true);
    // After the turn the producer may go on for another TURN_MS.
    expect(feed.turn()).toBeUndefined();
    now += TURN_MS;
    expect(feed.turn()).toBeInstanceOf(Promise);
  });

  it('counts a drain by the UI as its turn', () => {
    let now = 0;
    const feed = new RunFeed(() => now);
    feed.push(event(0));
    now = 5 * TURN_MS;
    expect(feed.drain().events).toHaveLength(1);
    expect(feed.turn()).toBeUndefined();
    now += TURN_MS;
    expect(feed.turn()).toBeInstanceOf(Promise);
  });
});
