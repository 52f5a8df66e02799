/**
 * The keys as a user types them: the key table (Esc goes back, q quits), input split into presses
 * (several keys in one read, mouse reports), the reducer reading each press in the state the one
 * before left, keys typed before the first step, and what the footer and the help show.
 */
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../core/events.js';
import { VERDICT_MEANING } from '../../core/verdict-glyphs.js';
import { demoEvents } from '../test-support/demo-events.js';
import { footerText } from './footer-text.js';
import { helpLines, LEGEND } from './help-lines.js';
import { pressesOf, type Press } from './key-presses.js';
import { actionFor, footerHints, HELP_ROWS, KEY_BINDINGS, type KeyPress } from './keymap.js';
import type { SessionInfo } from './run-model.js';
import { cells } from './text.js';
import { initialState, selectedDetail, tuiReducer, type TuiAction, type TuiState } from './tui-state.js';

const SIZE = { columns: 100, rows: 30 };
const viewing: SessionInfo = { mode: 'viewing', runId: '01DEMO', name: 'demo' };
const recording: SessionInfo = { mode: 'recording', runId: '01LIVE' };

function load(events: readonly RunEvent[], session: SessionInfo = viewing): TuiState {
  return tuiReducer(initialState(session, SIZE), { type: 'events', events });
}

/** What the terminal sent, as Ink hands it over (text and key flags), through to the reducer. */
function typed(state: TuiState, input: string, key: KeyPress = {}): TuiState {
  return pressesOf(input, key).reduce((s, press) => tuiReducer(s, { type: 'press', press }), state);
}

const apply = (state: TuiState, ...actions: TuiAction[]): TuiState => actions.reduce(tuiReducer, state);
const selectedStep = (state: TuiState): number | undefined => state.model.rows[state.view.selected]?.step;
/** Presses written short: the character, ^ and a letter for Ctrl, ⏎ ⇥ ⌫ for Enter, Tab, Backspace. */
const keys = (presses: Press[]): string[] =>
  presses.map((p) => {
    if (p.kind !== 'key') return p.kind;
    if (p.key.return === true) return '⏎';
    if (p.key.tab === true) return '⇥';
    if (p.key.delete === true || p.key.backspace === true) return '⌫';
    return p.key.ctrl === true ? `^${p.input}` : p.input;
  });

describe('the key table', () => {
  it('Esc goes back and never quits; q and Ctrl-C quit', () => {
    expect(actionFor('', { escape: true, meta: true })).toBe('back');
    expect(actionFor('q', {})).toBe('quit');
    expect(actionFor('c', { ctrl: true })).toBe('interrupt');
  });

  it('binds Ctrl-d / Ctrl-u, h / l and the side arrows; Ctrl and Alt do not fall through to plain letters', () => {
    expect(actionFor('d', { ctrl: true })).toBe('halfPageDown');
    expect(actionFor('u', { ctrl: true })).toBe('halfPageUp');
    expect(actionFor('d', {})).toBe('nextDivergence');
    expect([actionFor('h', {}), actionFor('', { leftArrow: true }), actionFor('l', {}), actionFor('', { rightArrow: true })]).toEqual([
      'focusTimeline',
      'focusTimeline',
      'focusDetail',
      'focusDetail',
    ]);
    expect(actionFor('j', { ctrl: true })).toBeNull();
    expect(actionFor('j', { meta: true })).toBeNull();
    expect([actionFor('y', {}), actionFor('w', {})]).toEqual(['copy', 'writeFile']);
  });

  it('the help lists every binding exactly once', () => {
    const listed = HELP_ROWS.flatMap((row) => row.actions);
    expect([...listed].sort()).toEqual(KEY_BINDINGS.map((b) => b.action).sort());
  });
});

describe('input split into presses', () => {
  it('splits keys that arrive in one read: jjj, /Blocked⏎, g⏎, a Ctrl key and Backspace among text', () => {
    expect(keys(pressesOf('jjj', {}))).toEqual(['j', 'j', 'j']);
    expect(keys(pressesOf('/Blocked\r', {}))).toEqual(['/', 'B', 'l', 'o', 'c', 'k', 'e', 'd', '⏎']);
    expect(keys(pressesOf('g\r', {}))).toEqual(['g', '⏎']);
    expect(keys(pressesOf('j\u0004k\u007f\t\n', {}))).toEqual(['j', '^d', 'k', '⌫', '⇥', '⏎']);
    expect(pressesOf('j\u0004', {})[1]).toEqual({ kind: 'key', input: 'd', key: { ctrl: true } });
  });

  it('passes one key with its flags as it came', () => {
    expect(pressesOf('', { upArrow: true })).toEqual([{ kind: 'key', input: '', key: { upArrow: true } }]);
    expect(pressesOf('d', { ctrl: true })).toEqual([{ kind: 'key', input: 'd', key: { ctrl: true } }]);
  });

  it('reads SGR mouse reports: the wheel with its cell, anything else as no key', () => {
    expect(pressesOf('[<65;50;10M', {})).toEqual([{ kind: 'wheel', direction: 1, column: 50, row: 10 }]);
    expect(pressesOf('\u001b[<64;3;7M', {})).toEqual([{ kind: 'wheel', direction: -1, column: 3, row: 7 }]);
    // With Ctrl held (16) it is still the wheel; a click, a release and a stray control character are nothing.
    expect(pressesOf('[<81;3;7M', {})).toEqual([{ kind: 'wheel', direction: 1, column: 3, row: 7 }]);
    expect(pressesOf('[<0;3;7M', {})).toEqual([{ kind: 'none' }]);
    expect(pressesOf('[<0;3;7m', {})).toEqual([{ kind: 'none' }]);
    expect(pressesOf('[<65;3;7m', {})).toEqual([{ kind: 'none' }]);
    expect(pressesOf('a\u0000', {})[1]).toEqual({ kind: 'none' });
  });
});

describe('presses in the reducer', () => {
  it('a search typed and submitted in one read selects the match', async () => {
    const state = typed(load(await demoEvents()), '/Blocked\r');
    expect(state.view.search).toEqual({ editing: false, draft: '', query: 'Blocked' });
    expect(selectedStep(state)).toBe(3);
    expect(state.view.notice).toMatch(/^“Blocked”: match 1 of \d+$/);
  });

  it('g and Enter in one read select the first step and expand it', async () => {
    const state = typed(typed(load(await demoEvents()), 'G'), 'g\r');
    expect(selectedStep(state)).toBe(0);
    expect(state.view.expanded).toBe(true);
  });

  it('mouse reports never reach the search text', async () => {
    let state = typed(load(await demoEvents()), '/ab');
    state = typed(state, '[<65;50;10M');
    state = typed(state, '[<0;50;10M');
    expect(state.view.search).toMatchObject({ editing: true, draft: 'ab' });
    expect(selectedStep(state)).toBe(0);
  });

  it('Esc goes back one level at a time: help, search, expansion, detail focus — and never quits', async () => {
    const esc = (s: TuiState): TuiState => typed(s, '', { escape: true, meta: true });
    let state = load(await demoEvents());
    state = typed(state, '\r');
    state = typed(state, '', { tab: true });
    state = typed(state, '?');
    expect(state.view).toMatchObject({ help: true, expanded: true, focus: 'detail' });
    state = esc(state);
    expect(state.view).toMatchObject({ help: false, expanded: true, focus: 'detail' });
    state = typed(state, '/x');
    state = esc(state);
    expect(state.view.search).toMatchObject({ editing: false, draft: '' });
    expect(state.view).toMatchObject({ expanded: true, focus: 'detail' });
    state = esc(state);
    expect(state.view).toMatchObject({ expanded: false, focus: 'detail' });
    state = esc(state);
    expect(state.view).toMatchObject({ expanded: false, focus: 'timeline' });
    state = esc(state);
    expect(state.view.notice).toBe('Esc goes back; q quits');
    expect(state.view.quitting).toBe(false);
    expect(state.view.outbox.pending).toEqual([]);
  });

  it('Esc does not stop a live run; q asks to, once per press', async () => {
    const events = await demoEvents();
    let state = load(events.slice(0, 20), recording);
    state = typed(state, '', { escape: true, meta: true });
    expect(state.view).toMatchObject({ quitting: false, outbox: { pending: [] } });
    state = typed(state, 'q');
    state = typed(state, 'q');
    expect(state.view.quitting).toBe(true);
    expect(state.view.outbox.pending).toEqual([
      { id: 1, kind: 'cancel' },
      { id: 2, kind: 'cancel' },
    ]);
    state = apply(state, { type: 'handled', id: 1 }, { type: 'handled', id: 2 });
    expect(state.view.outbox.pending).toEqual([]);
    // Ctrl-C while the help is open stops the run too.
    const helpOpen = typed(load(events.slice(0, 20), recording), '?');
    expect(typed(helpOpen, 'c', { ctrl: true }).view).toMatchObject({ quitting: true, outbox: { pending: [{ id: 1, kind: 'cancel' }] } });
  });

  it('h / l and the side arrows move the focus; Ctrl-d / Ctrl-u move half a page in either pane', async () => {
    const events = await demoEvents();
    const long: RunEvent[] = [];
    for (let copy = 0; copy < 10; copy++) for (const e of events) long.push({ ...e, step: e.step + copy * 5 });
    let state = load(long);
    const half = Math.floor((30 - 1 - 4 - 1 - 1) / 2);
    state = typed(state, 'd', { ctrl: true });
    expect(selectedStep(state)).toBe(half);
    state = typed(state, 'u', { ctrl: true });
    expect(selectedStep(state)).toBe(0);
    state = typed(state, 'l');
    expect(state.view.focus).toBe('detail');
    state = typed(state, '', { leftArrow: true });
    expect(state.view.focus).toBe('timeline');
    state = typed(state, '', { rightArrow: true });
    state = apply(state, { type: 'resize', size: { columns: 80, rows: 12 } });
    state = typed(state, 'd', { ctrl: true });
    expect(state.view.detailScroll).toBe(Math.floor((12 - 1 - 4 - 1 - 1) / 2));
    expect(selectedStep(state)).toBe(0);
  });

  it('the wheel moves the selection over the timeline and scrolls the detail over the detail', async () => {
    let state = load(await demoEvents());
    state = apply(state, { type: 'resize', size: { columns: 80, rows: 12 } });
    state = typed(state, '[<65;5;8M');
    expect(selectedStep(state)).toBe(1);
    state = typed(state, '[<64;5;8M');
    expect(selectedStep(state)).toBe(0);
    state = typed(state, '[<65;60;8M');
    expect(selectedStep(state)).toBe(0);
    expect(state.view.detailScroll).toBe(3);
    expect(selectedDetail(state).length).toBeGreaterThan(3);
  });

  it('keys typed before the first step wait for it, in order; q does not wait', async () => {
    const events = await demoEvents();
    let state = initialState(viewing, SIZE);
    state = typed(state, 'jjj');
    state = typed(state, '[<65;60;8M');
    expect(state.view.held).toHaveLength(3);
    // Nothing happens until the steps are in; then they apply as if typed after.
    expect(apply(state, { type: 'releaseHeld' })).toBe(state);
    state = apply(state, { type: 'events', events }, { type: 'releaseHeld' });
    expect(selectedStep(state)).toBe(3);
    expect(state.view.held).toEqual([]);
    expect(state.view.detailScroll).toBe(0);

    // Keys that come after the steps but before the waiting ones are applied wait behind them.
    let late = typed(initialState(viewing, SIZE), 'jj');
    late = apply(late, { type: 'events', events });
    late = typed(late, 'k');
    expect(late.view.held).toHaveLength(3);
    expect(selectedStep(apply(late, { type: 'releaseHeld' }))).toBe(1);

    const live = typed(typed(initialState(recording, SIZE), 'j'), 'q');
    expect(live.view).toMatchObject({ quitting: true, held: [], outbox: { pending: [{ id: 1, kind: 'cancel' }] } });
  });

  it('y and w ask for the selected step to be copied or written', async () => {
    let state = typed(load(await demoEvents()), 'jjyw');
    expect(state.view.outbox.pending).toEqual([
      { id: 1, kind: 'copy', row: 2 },
      { id: 2, kind: 'write', row: 2 },
    ]);
    state = apply(state, { type: 'handled', id: 1, notice: 'copied' });
    expect(state.view.notice).toBe('copied');
    expect(state.view.outbox).toEqual({ seq: 2, pending: [{ id: 2, kind: 'write', row: 2 }] });
    expect(typed(initialState(viewing, SIZE), 'y').view.outbox.pending).toEqual([]);
  });
});

describe('the footer', () => {
  it('at 80 columns shows q, ?, /, f and d with the status, and leaves out whole hints only', () => {
    const line = footerText(80, 'lines 12–28 of 140');
    for (const hint of ['q quit', '? help', '/ search', 'f filter', 'd divergence']) expect(line).toContain(hint);
    expect(line.startsWith('lines 12–28 of 140 │ ')).toBe(true);
    expect(cells(line)).toBeLessThanOrEqual(80);
    const shown = line.split(' │ ')[1]?.split(' · ') ?? [];
    expect(shown).toEqual(footerHints().slice(0, shown.length));
  });

  it('drops the status before an essential hint, and never cuts a hint', () => {
    for (const width of [40, 52, 60, 70, 80, 100, 200]) {
      const line = footerText(width, 'following · lines 100–117 of 2000');
      expect(cells(line), `${width}`).toBeLessThanOrEqual(width);
      const hints = (line.includes(' │ ') ? (line.split(' │ ')[1] ?? '') : line).split(' · ');
      for (const hint of hints) expect(footerHints(), `${width}: ${line}`).toContain(hint);
    }
    expect(footerText(40, 'following')).toBe('q quit · ? help · / search · f filter');
    // A status never takes the place of an essential hint, even when it would fit beside the rest.
    expect(footerText(45, 'x')).toBe('q quit · ? help · / search · f filter');
    expect(footerText(200, '')).toBe(footerHints().join(' · '));
  });
});

describe('the help', () => {
  it.each([40, 80, 120])('at %i columns fits the width and wraps every glyph meaning instead of cutting it', (width) => {
    const lines = helpLines(width);
    for (const line of lines) expect(cells(`${line.glyph?.text ?? ''}${line.text}`)).toBeLessThanOrEqual(width);
    const text = lines.map((l) => `${l.glyph?.text ?? ''}${l.text}`).join('\n').replace(/\s+/g, ' ');
    expect(text).not.toContain('…');
    for (const meaning of Object.values(VERDICT_MEANING)) expect(text).toContain(meaning);
    for (const entry of LEGEND) expect(text).toContain(`${entry.glyph} ${entry.text}`);
    for (const row of HELP_ROWS) expect(text).toContain(row.help);
  });

  it('scrolls with the moving keys and stops at its end', async () => {
    let state = typed(load(await demoEvents()), '?');
    state = apply(state, { type: 'resize', size: { columns: 80, rows: 24 } });
    state = typed(state, 'G');
    const height = 24 - 1 - 4 - 1 - 1 + 1;
    expect(state.view.helpScroll).toBe(helpLines(80).length - height);
    state = typed(state, 'jj');
    expect(state.view.helpScroll).toBe(helpLines(80).length - height);
    state = typed(state, 'u', { ctrl: true });
    expect(state.view.helpScroll).toBe(helpLines(80).length - height - Math.floor(height / 2));
    state = typed(state, 'g');
    expect(state.view).toMatchObject({ help: true, helpScroll: 0 });
  });
});
