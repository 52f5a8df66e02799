import type { RunEvent } from '../../src/core/events.js';

/** Behaviour only: what the determinism contract says must be identical (no timing, numbering or divergence reports). */
export function behaviour(events: readonly RunEvent[]): unknown[] {
  return events
    .filter((e) => e.type !== 'divergence')
    .map((e) => {
      const copy: Record<string, unknown> = { ...e };
      delete copy['seq'];
      delete copy['t'];
      delete copy['durationMs'];
      return copy;
    });
}
