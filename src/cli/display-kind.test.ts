import { describe, expect, it } from 'vitest';
import { UsageError } from '../core/errors.js';
import { displayKind, type Terminal } from './display.js';

const terminal = (stdinTTY: boolean, stdoutTTY: boolean, env: NodeJS.ProcessEnv = {}) => (): Terminal => ({ stdinTTY, stdoutTTY, env });
/** A terminal that must not be looked at. */
const untouched = (): Terminal => {
  throw new Error('the terminal was looked at');
};

describe('displayKind', () => {
  it('--json and --quiet never look at the terminal (no node:tty for them)', () => {
    expect(displayKind({ json: true }, {}, untouched)).toBe('json');
    expect(displayKind({ quiet: true }, {}, untouched)).toBe('text');
    expect(displayKind({ tui: false }, {}, untouched)).toBe('text');
    expect(displayKind({}, { interactive: true }, untouched)).toBe('text');
  });

  it('the UI by default only with a terminal on both ends and outside CI', () => {
    expect(displayKind({}, {}, terminal(true, true))).toBe('tui');
    expect(displayKind({}, {}, terminal(true, false))).toBe('text');
    expect(displayKind({}, {}, terminal(false, true))).toBe('text');
    expect(displayKind({}, {}, terminal(true, true, { CI: 'true' }))).toBe('text');
    expect(displayKind({}, {}, terminal(true, true, { CI: '0' }))).toBe('tui');
  });

  it('--tui needs a terminal, and goes neither with --json nor with an interactive session', () => {
    expect(displayKind({ tui: true }, {}, terminal(true, true, { CI: 'true' }))).toBe('tui');
    expect(() => displayKind({ tui: true }, {}, terminal(true, false))).toThrow(/--tui needs a terminal/);
    expect(() => displayKind({ tui: true, json: true }, {}, untouched)).toThrow(UsageError);
    expect(() => displayKind({ tui: true }, { interactive: true }, terminal(true, true))).toThrow(/does not take interactive input/);
  });
});
