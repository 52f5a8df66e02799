import { describe, expect, it } from 'vitest';
import { count } from './plural.js';

describe('count', () => {
  it('is singular for one only', () => {
    expect([0, 1, 2].map((n) => count(n, 'step'))).toEqual(['0 steps', '1 step', '2 steps']);
    expect([1, 3].map((n) => count(n, 'routine pass', 'routine passes'))).toEqual(['1 routine pass', '3 routine passes']);
  });
});
