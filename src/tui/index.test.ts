import { Console } from 'node:console';
import { EventEmitter } from 'node:events';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunEvent } from '../core/events.js';
import { demoEvents } from './test-support/demo-events.js';
import { openTui } from './index.js';

/** A terminal for Ink to draw on: 80×24, records what is written. */
function fakeTerminal(): { stdout: NodeJS.WriteStream; stdin: NodeJS.ReadStream; written: () => string; press: (key: string) => void } {
  let output = '';
  const stdout = Object.assign(new EventEmitter(), {
    columns: 80,
    rows: 24,
    isTTY: true,
    write: (chunk: string) => {
      output += chunk;
      return true;
    },
  });
  let pending: string | null = null;
  const stdin = Object.assign(new EventEmitter(), {
    isTTY: true,
    setRawMode: () => stdin,
    setEncoding: () => stdin,
    resume: () => stdin,
    pause: () => stdin,
    ref: () => stdin,
    unref: () => stdin,
    read: () => {
      const data = pending;
      pending = null;
      return data;
    },
  });
  return {
    stdout: stdout as unknown as NodeJS.WriteStream,
    stdin: stdin as unknown as NodeJS.ReadStream,
    written: () => output,
    press: (key) => {
      pending = key;
      stdin.emit('readable');
    },
  };
}

// The UI routes console output around its frames with console.Console, which vitest's console lacks.
const saved = console.Console;
beforeAll(() => {
  console.Console = Console;
});
afterAll(() => {
  console.Console = saved;
});

describe('openTui', () => {
  it('draws on the alternate screen with mouse reports on, and leaves both with the cursor shown when the user quits', async () => {
    const terminal = fakeTerminal();
    const tui = await openTui({ session: { mode: 'viewing', runId: '01DEMO' }, onCancel: () => undefined, ...terminal, env: { NO_COLOR: '1' } });
    for (const event of await demoEvents()) await tui.event(event);
    tui.end({ exitCode: 0, report: ['done'] });
    await vi.waitFor(() => expect(terminal.written()).toContain('read_file'));
    terminal.press('q');
    await tui.closed;
    const out = terminal.written();
    expect(out.startsWith('\u001b[?1049h')).toBe(true);
    expect(out.lastIndexOf('\u001b[?1049l')).toBeGreaterThan(out.lastIndexOf('read_file'));
    // Mouse reports (buttons and the wheel, in the SGR form) from the start, and off again at the end.
    expect(out.indexOf('\u001b[?1000h\u001b[?1006h')).toBeLessThan(out.indexOf('read_file'));
    expect(out.lastIndexOf('\u001b[?1006l\u001b[?1000l')).toBeGreaterThan(out.lastIndexOf('read_file'));
    // Ink hides the cursor while drawing and shows it again on the way out.
    expect(out.lastIndexOf('\u001b[?25h')).toBeGreaterThan(out.lastIndexOf('\u001b[?25l'));
  });

  it('turns an error inside the UI into one line (exit 1), stops the run, and restores the terminal', async () => {
    const terminal = fakeTerminal();
    const onCancel = vi.fn();
    const tui = await openTui({ session: { mode: 'recording', runId: '01LIVE' }, onCancel, ...terminal, env: {} });
    // An event the UI cannot make sense of (a response without one) makes a component throw.
    await tui.event({ seq: 0, step: 0, t: 0, type: 'llm_response', iteration: 0, attempt: 0, durationMs: 1 } as unknown as RunEvent);
    const error = await tui.closed.then(() => null, (e: unknown) => e as Error & { exitCode: number; hint?: string });
    expect(error?.message).toMatch(/^the terminal UI failed: /);
    expect(error?.message).not.toContain('\n');
    expect(error?.exitCode).toBe(1);
    expect(onCancel).toHaveBeenCalledTimes(1);
    const out = terminal.written();
    expect(out.lastIndexOf('\u001b[?1049l')).toBeGreaterThan(0);
    expect(out.lastIndexOf('\u001b[?1000l')).toBeGreaterThan(out.lastIndexOf('\u001b[?1000h'));
    expect(out).not.toMatch(/\n\s+at /);
  });

  it('leaves the process environment as it found it: the run\'s tools see the same one with the UI as without', async () => {
    const before = { NODE_ENV: process.env.NODE_ENV, CI: process.env.CI };
    delete process.env.NODE_ENV;
    process.env.CI = '1';
    try {
      const terminal = fakeTerminal();
      const tui = await openTui({ session: { mode: 'recording', runId: '01LIVE' }, onCancel: () => undefined, ...terminal, env: {} });
      // While the UI is up (when a recording's tools run): no NODE_ENV, CI as it was.
      expect(process.env.NODE_ENV).toBeUndefined();
      expect(process.env.CI).toBe('1');
      await tui.close();
    } finally {
      for (const [key, value] of Object.entries(before)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  });
});
