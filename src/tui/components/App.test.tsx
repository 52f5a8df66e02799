import chalk from 'chalk';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { render } from 'ink-testing-library';
import stringWidth from 'string-width';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunEvent } from '../../core/events.js';
import { RunFeed } from '../run-feed.js';
import type { SessionInfo } from '../state/run-model.js';
import { demoEvents, demoReplay } from '../test-support/demo-events.js';
import { colorDisabled } from '../color-setting.js';
import { stepOutput, type StepOutput } from '../step-output.js';
import { ThemeContext } from '../theme.js';
import type { DetailLine } from '../state/detail-lines.js';
import { searchPattern } from '../state/filters.js';
import { App } from './App.js';
import { StepDetail } from './StepDetail.js';

const session: SessionInfo = { mode: 'viewing', runId: '01M80BD0DH1T99S5EY9167MAX2', name: 'demo' };
let events: RunEvent[];
const mounted: { unmount: () => void }[] = [];
let dir: string;
/** What the UI wrote to the terminal outside its frames (the clipboard's escape sequences). */
let terminalWrites: string[] = [];
let output: StepOutput;

beforeAll(async () => {
  events = await demoEvents();
  dir = await mkdtemp(join(tmpdir(), 'agentctl-app-'));
  // Files go to a temp dir, named in notices as the UI names the current directory (a long temp path would be clipped).
  output = stepOutput({ write: (data: string) => terminalWrites.push(data) }, dir, '.');
});
afterEach(() => {
  for (const app of mounted.splice(0)) app.unmount();
  terminalWrites = [];
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Mount {
  feed?: RunFeed;
  color?: boolean;
  size?: { columns: number; rows: number };
  onQuit?: () => void;
  onCancel?: () => void;
  session?: SessionInfo;
  interrupted?: boolean;
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
        output={output}
        interrupted={options.interrupted ?? false}
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
      '▶ 0 list_dir . ✓',
      '1 read_file config/server.json ✓',
      '2 read_file config/server.json ⊘',
      '3 read_file config/server.json ✗',
      '4 read_file config/server.json ∞',
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

  it('at 80×24 opens the demo\'s step 3 on its block, and shows the step\'s figures beside the run\'s', async () => {
    const app = mount({ size: { columns: 80, rows: 24 } });
    await frameWhere(app, (f) => f.includes('read_file'));
    app.stdin.write('jjj');
    const frame = stripAnsi(await frameWhere(app, (f) => /▶\s+3 /.test(selectedLine(f))));
    expect(frame).toContain('✗ block  loop_guard/identical_call_block');
    expect(frame).toContain('Call read_file  (call_3_0)');
    expect(frame.split('\n')[2]).toBe('step 3 (4 of 5) · tokens 153 in/23 out $0.0000 · run 697 $0.0000');
  });

  it('keeps the glyphs of every row in one column when one row has more (a patched step: P and its divergence)', async () => {
    const feed = new RunFeed();
    for (const event of await demoReplay({ patches: ['2=The port is 8080.'] })) feed.push(event);
    feed.end({ exitCode: 0, report: ['replayed'] });
    const app = mount({ feed, session: { mode: 'replaying', runId: '01M80BD0DH1T99S5EY9167MAX2', patched: [2] } });
    const frame = stripAnsi(await frameWhere(app, (f) => f.includes('P≈')));
    const rows = frame.split('\n').map((line) => line.split('│')[0] ?? '').filter((line) => /^(▶| ) +\d+ /.test(line));
    expect(rows.length).toBeGreaterThan(2);
    // The glyph group starts in the same column on every row: after the action's padding.
    const starts = rows.map((line) => [...line.trimEnd()].length - [...(/\S+$/.exec(line.trimEnd())?.[0] ?? '')].length);
    expect(new Set(starts).size).toBe(1);
    expect(rows.find((line) => /^ +2 /.test(line))).toMatch(/“The port is 8080\.” +P≈$/);
  });

  it('shows the help with ?, from the key table and the glyph legend, scrolls it with G, and closes it with any other key', async () => {
    const app = mount();
    await frameWhere(app, (f) => f.includes('read_file'));
    app.stdin.write('?');
    const help = stripAnsi(await frameWhere(app, (f) => f.includes('Keys')));
    expect(help).toContain('Tab');
    expect(help).toContain('switch the focus: timeline ⇄ detail');
    expect(help).toMatch(/help 1–24 of \d+/);
    app.stdin.write('G');
    // The last line of the help is the last one shown.
    const bottom = stripAnsi(await frameWhere(app, (f) => /help \d+–(\d+) of \1\b/.test(stripAnsi(f))));
    expect(bottom).toContain('∞ stuck: same tool step repeated');
    expect(bottom).toContain('⊘ skip: duplicate of an earlier success');
    app.stdin.write('x');
    await frameWhere(app, (f) => !f.includes('Glyphs') && f.includes('▶'));
  });

  it('takes keys that arrive in one write one by one: /Blocked⏎ searches, jj moves twice', async () => {
    const app = mount();
    await frameWhere(app, (f) => f.includes('read_file'));
    app.stdin.write('/Blocked\r');
    const found = stripAnsi(await frameWhere(app, (f) => f.includes('“Blocked”: match 1 of')));
    expect(selectedLine(found)).toMatch(/▶\s+3 /);
    app.stdin.write('gjj');
    await frameWhere(app, (f) => /▶\s+2 /.test(selectedLine(f)));
  });

  it('keeps keys typed before the first step and applies them when it comes', async () => {
    const feed = new RunFeed();
    const app = mount({ feed });
    await frameWhere(app, (f) => f.includes('Steps (0)'));
    app.stdin.write('jj');
    for (const event of events) feed.push(event);
    feed.end({ exitCode: 0, report: ['viewed'] });
    await frameWhere(app, (f) => /▶\s+2 /.test(selectedLine(f)));
  });

  it('Esc goes back and does not quit; q does', async () => {
    const onQuit = vi.fn();
    const app = mount({ onQuit });
    await frameWhere(app, (f) => f.includes('q quits'));
    app.stdin.write('?');
    await frameWhere(app, (f) => f.includes('Keys'));
    app.stdin.write('\u001b');
    await frameWhere(app, (f) => !f.includes('Keys') && f.includes('▶'));
    app.stdin.write('\u001b');
    await frameWhere(app, (f) => f.includes('Esc goes back; q quits'));
    expect(onQuit).not.toHaveBeenCalled();
    app.stdin.write('q');
    await vi.waitFor(() => expect(onQuit).toHaveBeenCalledTimes(1));
  });

  it('y copies the selected step to the clipboard (OSC 52) and w writes it to a new file', async () => {
    const app = mount();
    await frameWhere(app, (f) => f.includes('read_file'));
    app.stdin.write('j');
    await frameWhere(app, (f) => /▶\s+1 /.test(selectedLine(f)));
    app.stdin.write('y');
    await frameWhere(app, (f) => f.includes('copied step 1 to the clipboard'));
    const copied = terminalWrites.map((w) => /^\u001b\]52;c;([A-Za-z0-9+/=]+)\u0007$/.exec(w)?.[1]).filter((b) => b !== undefined);
    expect(copied).toHaveLength(1);
    const text = Buffer.from(copied[0] ?? '', 'base64').toString('utf8');
    expect(text.startsWith('Step 1\n')).toBe(true);
    expect(text).toContain('"port": 8080');
    expect(text).not.toContain('\u001b');
    app.stdin.write('w');
    const file = join(dir, 'agentctl-step-01M80BD0DH1T99S5EY9167MAX2-1.txt');
    await frameWhere(app, (f) => stripAnsi(f).includes('wrote step 1 to ./agentctl-step-01M80BD0DH1T99S5EY9167MAX2-1.txt'));
    expect(await readFile(file, 'utf8')).toBe(text);
  });

  it('cycles the filter with f and names it', async () => {
    const app = mount();
    await frameWhere(app, (f) => f.includes('read_file'));
    app.stdin.write('f');
    app.stdin.write('f');
    const frame = stripAnsi(await frameWhere(app, (f) => f.includes('Steps 2/5 [blocks+skips]')));
    expect(frame).not.toMatch(/list_dir \.\s+✓/);
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
        <App
          feed={app.feed}
          session={session}
          size={{ columns: 120, rows: 40 }}
          onQuit={() => undefined}
          onCancel={() => undefined}
          output={output}
        />
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

describe('App opened after a Ctrl-C (typed while it started)', () => {
  it('does not stop the run a second time, and closes once it has stopped', async () => {
    const feed = new RunFeed();
    for (const event of events.slice(0, 20)) feed.push(event);
    const onQuit = vi.fn();
    const onCancel = vi.fn();
    const app = mount({ feed, onQuit, onCancel, session: { mode: 'recording', runId: '01LIVE' }, interrupted: true });
    expect(stripAnsi(await frameWhere(app, (f) => f.includes('read_file')))).toContain('stopping the run');
    feed.end({ exitCode: 130, report: ['CANCELLED'] });
    await vi.waitFor(() => expect(onQuit).toHaveBeenCalledTimes(1));
    expect(onCancel).not.toHaveBeenCalled();
  });
});

describe('StepDetail', () => {
  it('shows each match of the search in inverse video, with colour off too', () => {
    const level = chalk.level;
    chalk.level = 0;
    try {
      const lines: DetailLine[] = [
        { text: '  ✗ block  loop_guard/identical_call_block', tone: 'block' },
        { text: '    Blocked: it was blocked.', tone: 'normal' },
      ];
      const detail = (highlight: RegExp | null): string => {
        const app = render(
          <ThemeContext.Provider value={{ color: false }}>
            <StepDetail lines={lines} scroll={0} height={2} width={50} highlight={highlight} />
          </ThemeContext.Provider>,
        );
        mounted.push(app);
        return app.lastFrame() ?? '';
      };
      const frame = detail(searchPattern('BLOCKED'));
      expect(frame).not.toMatch(COLOR_CODE);
      expect(frame.split('\n').map((line) => line.trimEnd())).toEqual([
        '  ✗ block  loop_guard/identical_call_block',
        '    \u001b[7mBlocked\u001b[27m: it was \u001b[7mblocked\u001b[27m.',
      ]);
      expect(detail(null)).not.toContain('\u001b[');
    } finally {
      chalk.level = level;
    }
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
