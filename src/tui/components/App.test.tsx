import chalk from 'chalk';
import { render } from 'ink-testing-library';
import stringWidth from 'string-width';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunEvent } from '../../core/events.js';
import { RunFeed } from '../run-feed.js';
import type { SessionInfo } from '../state/run-model.js';
import { demoEvents } from '../test-support/demo-events.js';
import { colorDisabled } from '../color-setting.js';
import { ThemeContext } from '../theme.js';
import { App } from './App.js';

const session: SessionInfo = { mode: 'viewing', runId: '01M80BD0DH1T99S5EY9167MAX2', name: 'demo' };
let events: RunEvent[];
const mounted: { unmount: () => void }[] = [];

beforeAll(async () => {
  events = await demoEvents();
});
afterEach(() => {
  for (const app of mounted.splice(0)) app.unmount();
});

interface Mount {
  feed?: RunFeed;
  color?: boolean;
  size?: { columns: number; rows: number };
  onQuit?: () => void;
  onCancel?: () => void;
  session?: SessionInfo;
}

function mount(options: Mount = {}): ReturnType<typeof render> & { feed: RunFeed } {
  const feed = options.feed ?? loadedFeed();
  const app = render(
    <ThemeContext.Provider value={{ color: options.color ?? true }}>
      <App
        feed={feed}
        session={options.session ?? session}
        size={options.size ?? { columns: 100, rows: 30 }}
        onQuit={options.onQuit ?? (() => undefined)}
        onCancel={options.onCancel ?? (() => undefined)}
      />
    </ThemeContext.Provider>,
  );
  mounted.push(app);
  return Object.assign(app, { feed });
}

function loadedFeed(ended = true): RunFeed {
  const feed = new RunFeed();
  for (const event of events) feed.push(event);
  if (ended) feed.end({ exitCode: 0, report: ['viewed'] });
  return feed;
}

/** Wait until the latest frame satisfies `test` (the UI takes events in batches, on timers). */
async function frameWhere(app: { lastFrame: () => string | undefined }, test: (frame: string) => boolean): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const frame = app.lastFrame() ?? '';
    if (test(frame)) return frame;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no frame matched; the last one was:\n${app.lastFrame() ?? ''}`);
}

const selectedLine = (frame: string): string => frame.split('\n').find((line) => line.includes('▶')) ?? '';
const COLOR_CODE = /\u001b\[(?:3[0-79]|9[0-7])m/;
const stripAnsi = (text: string): string => text.replace(/\u001b\[[0-9;]*m/g, '');

describe('App', () => {
  it('renders the demo tape: header, every step with its verdict glyph, and the first step in detail', async () => {
    const app = mount();
    const frame = stripAnsi(await frameWhere(app, (f) => f.includes('read_file')));
    expect(frame).toContain('agentctl VIEWING run 01M80BD0DH “demo”');
    expect(frame).toContain('task: The demo service will not start.');
    expect(frame).toContain('ended ERROR · exit 0 · q quits · repetition: the same tool calls');
    const timeline = frame.split('\n').map((line) => line.split('│')[0] ?? '');
    expect(timeline.filter((line) => /^\s*(▶)?\s*\d+ /.test(line)).map((line) => line.replace(/\s+/g, ' ').trim())).toEqual([
      '▶ 0 list_dir ✓',
      '1 read_file ✓',
      '2 read_file ⊘',
      '3 read_file ✗',
      '4 read_file ∞',
    ]);
    expect(frame).toContain('Call list_dir  (call_0_0)');
    expect(frame).toContain('✓ allow  loop_guard/first_attempt');
  });

  it('moves the selection with j, k and G, and shows the selected step', async () => {
    const app = mount();
    await frameWhere(app, (f) => f.includes('read_file'));
    app.stdin.write('j');
    expect(selectedLine(await frameWhere(app, (f) => /▶\s+1 /.test(selectedLine(f))))).toContain('read_file');
    app.stdin.write('G');
    const last = stripAnsi(await frameWhere(app, (f) => /▶\s+4 /.test(selectedLine(f))));
    expect(last).toContain('∞ stuck  repetition/repetition');
    expect(last).toContain('step 4 (5 of 5)');
    app.stdin.write('k');
    await frameWhere(app, (f) => /▶\s+3 /.test(selectedLine(f)));
  });

  it('shows the help with ?, from the key table and the glyph legend, and closes it with any key', async () => {
    const app = mount();
    await frameWhere(app, (f) => f.includes('read_file'));
    app.stdin.write('?');
    const help = stripAnsi(await frameWhere(app, (f) => f.includes('Keys')));
    expect(help).toContain('Tab');
    expect(help).toContain('switch the focus: timeline ⇄ detail');
    expect(help).toContain('∞ stuck: same tool step repeated');
    expect(help).toContain('⊘ skip: duplicate of an earlier success');
    app.stdin.write('x');
    await frameWhere(app, (f) => !f.includes('Keys') && f.includes('▶'));
  });

  it('cycles the filter with f and names it', async () => {
    const app = mount();
    await frameWhere(app, (f) => f.includes('read_file'));
    app.stdin.write('f');
    app.stdin.write('f');
    const frame = stripAnsi(await frameWhere(app, (f) => f.includes('Steps 2/5 [blocks+skips]')));
    expect(frame).not.toMatch(/list_dir\s+✓/);
    expect(selectedLine(frame)).toMatch(/▶\s+2 /);
  });

  it('without colour still shows every verdict, and no colour codes at all', async () => {
    const level = chalk.level;
    chalk.level = 3;
    try {
      const coloured = mount({ color: true });
      expect(await frameWhere(coloured, (f) => f.includes('read_file'))).toMatch(COLOR_CODE);
      const plain = mount({ color: false });
      const frame = await frameWhere(plain, (f) => f.includes('read_file'));
      expect(frame).not.toMatch(COLOR_CODE);
      for (const glyph of ['✓', '⊘', '✗', '∞', '▶']) expect(frame).toContain(glyph);
    } finally {
      chalk.level = level;
    }
  });

  it('draws at most rows − 1 lines, none wider than the terminal, at 80×24 and after a resize', async () => {
    const app = mount({ size: { columns: 80, rows: 24 } });
    const check = (frame: string, columns: number, rows: number): void => {
      const lines = stripAnsi(frame).split('\n');
      expect(lines.length).toBeLessThanOrEqual(rows - 1);
      for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(columns);
    };
    check(await frameWhere(app, (f) => f.includes('read_file')), 80, 24);
    app.rerender(
      <ThemeContext.Provider value={{ color: true }}>
        <App feed={app.feed} session={session} size={{ columns: 120, rows: 40 }} onQuit={() => undefined} onCancel={() => undefined} />
      </ThemeContext.Provider>,
    );
    check(await frameWhere(app, (f) => stripAnsi(f).split('\n').some((line) => stringWidth(line) > 80)), 120, 40);
  });

  it('shows the steps read so far with "reading tape… N steps", then the whole run once it is in', async () => {
    const feed = new RunFeed();
    const app = mount({ feed });
    const step2 = events.findIndex((e) => e.step === 2);
    for (const event of events.slice(0, step2)) feed.push(event);
    const reading = stripAnsi(await frameWhere(app, (f) => f.includes('reading tape… 2 steps')));
    expect(selectedLine(reading)).toMatch(/▶\s+0 /);
    expect(reading).toContain('Steps (2)');
    for (const event of events.slice(step2)) feed.push(event);
    feed.end({ exitCode: 0, report: ['viewed'] });
    const all = stripAnsi(await frameWhere(app, (f) => f.includes('ended ERROR')));
    expect(all).not.toContain('reading tape');
    expect(all).toContain('Steps (5)');
    expect(selectedLine(all)).toMatch(/▶\s+0 /);
  });

  it('quits at once when the run is over, and stops a live run first', async () => {
    const onQuit = vi.fn();
    const ended = mount({ onQuit });
    await frameWhere(ended, (f) => f.includes('q quits'));
    ended.stdin.write('q');
    await vi.waitFor(() => expect(onQuit).toHaveBeenCalledTimes(1));

    const feed = new RunFeed();
    for (const event of events.slice(0, 20)) feed.push(event);
    const onLiveQuit = vi.fn();
    const onCancel = vi.fn();
    const live = mount({ feed, onQuit: onLiveQuit, onCancel, session: { mode: 'recording', runId: '01LIVE' } });
    await frameWhere(live, (f) => f.includes('read_file'));
    live.stdin.write('\u0003');
    await vi.waitFor(() => expect(onCancel).toHaveBeenCalledTimes(1));
    expect(stripAnsi(await frameWhere(live, (f) => f.includes('stopping the run')))).toContain('stopping the run');
    expect(onLiveQuit).not.toHaveBeenCalled();
    feed.end({ exitCode: 130, report: ['CANCELLED'] });
    await vi.waitFor(() => expect(onLiveQuit).toHaveBeenCalledTimes(1));
  });
});

describe('colorDisabled', () => {
  it('turns colour off for NO_COLOR (any value but empty) and terminals without colour', () => {
    const tty = { isTTY: true, hasColors: () => true };
    expect(colorDisabled({ NO_COLOR: '1' }, tty)).toBe(true);
    expect(colorDisabled({ NO_COLOR: '' }, tty)).toBe(false);
    expect(colorDisabled({}, tty)).toBe(false);
    expect(colorDisabled({}, { isTTY: true, hasColors: () => false })).toBe(true);
    expect(colorDisabled({ FORCE_COLOR: '1' }, { isTTY: true, hasColors: () => false })).toBe(false);
  });
});
