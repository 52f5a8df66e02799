import { describe, expect, it } from 'vitest';
import type { RunEvent } from './events.js';
import { countSteps } from './steps.js';

/** Events of the given types and steps (only the fields countSteps reads). */
const events = (...spec: [RunEvent['type'], number][]): RunEvent[] => spec.map(([type, step], seq) => ({ type, step, seq }) as RunEvent);

describe('countSteps', () => {
  it('counts each step number once, and not one that holds only what closes the step before', () => {
    expect(countSteps([])).toBe(0);
    expect(countSteps(events(['run_start', 0], ['llm_request', 0], ['checkpoint', 0], ['llm_request', 1], ['state', 2], ['run_end', 2]))).toBe(2);
    expect(countSteps(events(['run_start', 0], ['llm_request', 0], ['checkpoint', 1], ['llm_request', 2]))).toBe(2);
    // Waiting for the next message opens no step; the message that comes does.
    expect(countSteps(events(['run_start', 0], ['llm_request', 0], ['state', 1], ['user_message', 1], ['llm_request', 1]))).toBe(2);
    // A first step is one whatever it holds.
    expect(countSteps(events(['state', 0]))).toBe(1);
  });
});
