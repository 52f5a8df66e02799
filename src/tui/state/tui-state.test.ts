import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../core/events.js';
import { demoEvents, demoReplay } from '../test-support/demo-events.js';
import { visibleRows } from './filters.js';
import type { KeyAction } from './keymap.js';
import { openingLine, scrollToShow } from './detail-scroll.js';
import { layoutFor } from './layout.js';
import type { SessionInfo } from './run-model.js';
import type { Mark } from './step-row.js';
import { initialState, selectedDetail, tuiReducer, type TuiAction, type TuiState } from './tui-state.js';

const SIZE = { columns: 100, rows: 30 };
const viewing: SessionInfo = { mode: 'viewing', runId: '01DEMO', name: 'demo' };

function load(events: readonly RunEvent[], session: SessionInfo = viewing): TuiState {
  return tuiReducer(initialState(session, SIZE), { type: 'events', events });
}

function press(state: TuiState, ...actions: KeyAction[]): TuiState {
  return actions.reduce((s, action) => tuiReducer(s, { type: 'key', action }), state);
}

function apply(state: TuiState, ...actions: TuiAction[]): TuiState {
  return actions.reduce(tuiReducer, state);
}

const verdictsOf = (marks: readonly Mark[]): string[] => marks.map((m) => (m.kind === 'verdict' ? m.verdict : m.kind === 'divergence' ? `divergence:${m.expected ? 'expected' : 'unexpected'}` : 'changed'));
const shown = (s: TuiState): number[] => visibleRows(s.model.rows, s.view.filter).map((i) => s.model.rows[i]?.step ?? -1);
const selectedStep = (state: TuiState): number | undefined => state.model.rows[state.view.selected]?.step;
const detailText = (state: TuiState): string => selectedDetail(state).map((l) => l.text.trim()).join(' ');
/** The detail lines drawn: from the scroll position, as many as the body has rows. */
const onScreen = (state: TuiState): string[] => {
  const top = state.view.detailScroll;
  return selectedDetail(state).slice(top, top + layoutFor(state.view.size).bodyRows).map((l) => l.text);
};

describe('step rows from events', () => {
  it('shows the demo loop as allowed → skipped → blocked → stuck, one glyph per call and per step-level stop', async () => {
    const state = load(await demoEvents());
    const rows = state.model.rows;
    expect(rows.map((r) => r.step)).toEqual([0, 1, 2, 3, 4]);
    expect(rows.map((r) => r.action)).toEqual(['list_dir .', ...Array<string>(4).fill('read_file config/server.json')]);
    expect(rows.map((r) => verdictsOf(r.marks))).toEqual([['allow'], ['allow'], ['skip'], ['block'], ['stuck']]);
    expect(state.model.end?.state).toBe('ERROR');
    expect(state.model.state).toBe('ERROR');
  });

  it('gives the same rows whether the events come in one batch or one at a time (live)', async () => {
    const events = await demoEvents();
    const batched = load(events);
    const live = events.reduce((s, event) => tuiReducer(s, { type: 'events', events: [event] }), initialState(viewing, SIZE));
    expect(live.model.rows.map((r) => [r.step, r.action, verdictsOf(r.marks), r.events.length])).toEqual(
      batched.model.rows.map((r) => [r.step, r.action, verdictsOf(r.marks), r.events.length]),
    );
    // Rows a later batch does not touch are shared, not rebuilt.
    const more = tuiReducer(batched, { type: 'events', events: [] });
    expect(more.model.rows[0]).toBe(batched.model.rows[0]);
  });

  it('puts the run\'s end on the step it closes, not on a row of its own', async () => {
    const events = (await demoEvents()).filter((e) => e.step <= 1 && e.type !== 'run_end');
    const t = 0;
    events.push(
      { seq: 100, step: 2, t, type: 'state', from: 'RUNNING', to: 'MAX_STEPS', reason: 'reached the limit of 2 steps' },
      { seq: 101, step: 2, t, type: 'run_end', state: 'MAX_STEPS', reason: 'reached the limit of 2 steps', totals: { steps: 2, llmCalls: 2, toolCalls: 2, inputTokens: 0, outputTokens: 0, cost: 0 } },
    );
    for (const state of [load(events), events.reduce((s, e) => tuiReducer(s, { type: 'events', events: [e] }), initialState(viewing, SIZE))]) {
      expect(state.model.rows.map((r) => r.step)).toEqual([0, 1]);
      expect(state.model.rows[1]?.events.at(-1)?.type).toBe('run_end');
      expect(state.model.end?.state).toBe('MAX_STEPS');
    }
  });

  it('tells a text answer, a model error with its retry, and a wait for the model apart', () => {
    const base = { t: 0 };
    const events: RunEvent[] = [
      { ...base, seq: 0, step: 0, type: 'llm_request', iteration: 0, hash: 'h', prefix: 0, append: [{ role: 'user', content: 'hi' }], model: 'm', stream: false, tools: [] },
      { ...base, seq: 1, step: 0, type: 'llm_error', iteration: 0, attempt: 0, kind: 'recoverable', status: 429, message: 'rate limited', retryAfterMs: 2000, retryInMs: 2000 },
      {
        ...base, seq: 2, step: 0, type: 'llm_response', iteration: 0, attempt: 1, durationMs: 12,
        response: { message: { role: 'assistant', content: 'The port is 8080.' }, finishReason: 'stop', usage: { inputTokens: 5, outputTokens: 6 } },
      },
      { ...base, seq: 3, step: 1, type: 'llm_request', iteration: 1, hash: 'h2', prefix: 2, append: [], model: 'm', stream: false, tools: [] },
    ];
    const state = load(events);
    expect(state.model.rows.map((r) => r.action)).toEqual(['“The port is 8080.”', 'waiting for the model…']);
    expect(state.model.waiting).toEqual({ for: 'model' });
    const detail = detailText(state);
    expect(detail).toContain('Attempt 1 failed (429), recoverable, retry in 2000 ms (Retry-After 2000 ms)');
    expect(detail).toContain('Response: stop, 5 in / 6 out tokens, 12\u00a0ms, attempt 2');
  });

  it('marks a patched step and its expected divergence', async () => {
    const events = await demoReplay({ patches: ['2=The port is 8080.'] });
    const state = load(events, { mode: 'replaying', runId: '01DEMO', patched: [2] });
    const row = state.model.rows[2];
    expect(row?.patched).toBe(true);
    expect(row?.action).toBe('“The port is 8080.”');
    expect(row?.divergence).toBe('expected');
    expect(state.model.firstDivergence).toMatchObject({ step: 2, kind: 'patched', expected: true });
    expect(state.model.rows.slice(0, 2).every((r) => r.divergence === 'none')).toBe(true);
  });

  it('marks a what-if decision change on its row and shows it as recorded → now', async () => {
    const events = await demoReplay({ overrides: ['guardrails.identicalCallBlock=2'] });
    let state = load(events, { mode: 'what-if', runId: '01DEMO' });
    const row = state.model.rows[2];
    expect(row?.changedDecisions).toBe(1);
    expect(verdictsOf(row?.marks ?? [])).toEqual(['block', 'changed', 'divergence:expected']);
    state = press(state, 'nextDivergence');
    expect(selectedStep(state)).toBe(2);
    const lines = selectedDetail(state);
    const anchor = lines.findIndex((l) => l.anchor === 'divergence');
    expect(lines[anchor]?.text).toContain('Decision changed (expected)');
    expect(lines[anchor + 1]?.text.trim()).toBe('recorded: allow (2 of 3) → now: block (2 of 2)');
    // `d` scrolls the detail to the divergence and what it says.
    expect(onScreen(state)).toContain(lines[anchor + 1]?.text);
  });
});

describe('navigation', () => {
  it('moves the selection with the keys, within the rows', async () => {
    let state = load(await demoEvents());
    expect(selectedStep(state)).toBe(0);
    state = press(state, 'up');
    expect(selectedStep(state)).toBe(0);
    state = press(state, 'down', 'down');
    expect(selectedStep(state)).toBe(2);
    state = press(state, 'last');
    expect(selectedStep(state)).toBe(4);
    state = press(state, 'down');
    expect(selectedStep(state)).toBe(4);
    state = press(state, 'pageUp');
    expect(selectedStep(state)).toBe(0);
    state = press(state, 'pageDown');
    expect(selectedStep(state)).toBe(4);
    state = press(state, 'first');
    expect(selectedStep(state)).toBe(0);
  });

  it('follows the newest step of a live recording until the user moves, and space resumes following', async () => {
    const events = await demoEvents();
    const recording: SessionInfo = { mode: 'recording', runId: '01LIVE' };
    const byStep = (step: number): RunEvent[] => events.filter((e) => e.step === step);
    let state = apply(initialState(recording, SIZE), { type: 'events', events: byStep(0) }, { type: 'events', events: byStep(1) });
    expect(state.view.follow).toBe(true);
    expect(selectedStep(state)).toBe(1);
    state = press(state, 'up');
    expect(state.view.follow).toBe(false);
    state = apply(state, { type: 'events', events: byStep(2) });
    expect(selectedStep(state)).toBe(0);
    state = press(state, 'toggleFollow');
    expect(state.view.follow).toBe(true);
    expect(selectedStep(state)).toBe(2);
    state = apply(state, { type: 'events', events: byStep(3) });
    expect(selectedStep(state)).toBe(3);
  });

  it('opens a replay or a view on its first step', async () => {
    const state = load(await demoEvents(), { mode: 'replaying', runId: '01DEMO' });
    expect(state.view.follow).toBe(false);
    expect(selectedStep(state)).toBe(0);
  });

  it('keeps the selected row inside the drawn window of a long timeline', async () => {
    const events = await demoEvents();
    // 60 copies of the demo's steps, renumbered: a timeline longer than the screen.
    const long: RunEvent[] = [];
    for (let copy = 0; copy < 60; copy++) for (const e of events) long.push({ ...e, step: e.step + copy * 5 });
    let state = load(long);
    const height = 30 - 1 - 4 - 1 - 1;
    state = press(state, 'last');
    expect(state.view.timelineTop).toBe(300 - height);
    state = press(state, 'first');
    expect(state.view.timelineTop).toBe(0);
    state = press(state, ...Array<KeyAction>(height).fill('down'));
    expect(state.view.timelineTop).toBe(1);
  });

  it('scrolls the detail when it has the focus, and Enter expands long text', async () => {
    let state = load(await demoEvents());
    state = apply(state, { type: 'resize', size: { columns: 80, rows: 12 } });
    state = press(state, 'down', 'down', 'switchPane');
    expect(state.view.focus).toBe('detail');
    const collapsed = selectedDetail(state).length;
    const opened = state.view.detailScroll;
    state = press(state, 'down', 'down');
    expect(state.view.detailScroll).toBe(opened + 2);
    expect(selectedStep(state)).toBe(2);
    state = press(state, 'last');
    expect(state.view.detailScroll).toBe(collapsed - (12 - 1 - 4 - 1 - 1));
    state = press(state, 'toggleExpand');
    expect(selectedDetail(state).length).toBeGreaterThan(collapsed);
    expect(selectedDetail(state).some((l) => l.text.includes('more line'))).toBe(false);
    state = press(state, 'first');
    expect(state.view.detailScroll).toBe(0);
  });

  it('scrolls the help with the moving keys and closes it with any other key; quitting is asked for by q and Ctrl-C alike', async () => {
    let state = load(await demoEvents());
    state = press(state, 'help');
    expect(state.view.help).toBe(true);
    state = press(state, 'down', 'down', 'up');
    expect(state.view).toMatchObject({ help: true, helpScroll: 1 });
    expect(selectedStep(state)).toBe(0);
    state = press(state, 'cycleFilter');
    expect(state.view).toMatchObject({ help: false, filter: 'all' });
    expect(press(state, 'help', 'back').view.help).toBe(false);
    expect(apply(press(state, 'help'), { type: 'otherKey' }).view.help).toBe(false);
    expect(press(state, 'quit').view.quitting).toBe(true);
    expect(press(state, 'interrupt').view.quitting).toBe(true);
  });
});

describe('where the detail opens', () => {
  const SMALL = { columns: 80, rows: 24 };
  const at80 = (events: readonly RunEvent[], session: SessionInfo = viewing): TuiState =>
    apply(initialState(session, SMALL), { type: 'events', events });
  const BLOCK = /^ {2}✗ block {2}loop_guard\/identical_call_block$/;

  it('opens a step on its first decision other than allow, its call above it; a step with only allows at its top', async () => {
    let state = at80(await demoEvents());
    expect(state.view.detailScroll).toBe(0);
    expect(onScreen(state)[0]).toBe('Step 0');
    state = press(state, 'down');
    expect(state.view.detailScroll).toBe(0);
    state = press(state, 'down', 'down');
    expect(selectedStep(state)).toBe(3);
    // At 80×24 the block is far below the first screen of the step's lines.
    expect(selectedDetail(state).findIndex((l) => BLOCK.test(l.text))).toBeGreaterThan(layoutFor(SMALL).bodyRows);
    const shown = onScreen(state);
    expect(shown.some((l) => BLOCK.test(l))).toBe(true);
    expect(shown).toContain('Call read_file  (call_3_0)');
    // k back to the skip: that step opens on its skip too.
    state = press(state, 'up');
    expect(onScreen(state).some((l) => /^ {2}⊘ skip {2}replay_control\/duplicate_success$/.test(l))).toBe(true);
  });

  it('keeps a live step on its decision as the decision arrives, unless the user scrolled the detail', async () => {
    const events = await demoEvents();
    const recording: SessionInfo = { mode: 'recording', runId: '01LIVE' };
    const upTo3 = events.filter((e) => e.step <= 3);
    const one = (s: TuiState, e: RunEvent): TuiState => tuiReducer(s, { type: 'events', events: [e] });
    const live = upTo3.reduce(one, at80([], recording));
    expect(selectedStep(live)).toBe(3);
    expect(onScreen(live).some((l) => BLOCK.test(l))).toBe(true);

    // The same, but the user scrolled the detail before the block came: it stays where they put it.
    const before = upTo3.findIndex((e) => e.type === 'guardrail' && e.verdict === 'block');
    let scrolled = upTo3.slice(0, before).reduce(one, at80([], recording));
    scrolled = press(scrolled, 'switchPane', 'down', 'down', 'down');
    expect(scrolled.view.detailScroll).toBe(3);
    scrolled = upTo3.slice(before).reduce(one, scrolled);
    expect(scrolled.view.detailScroll).toBe(3);
  });

  it('opens again on the decision after a resize and Enter', async () => {
    /** Where the selected step's detail opens at the state's size and expansion. */
    const opening = (s: TuiState): number => {
      const lines = selectedDetail(s);
      const { bodyRows } = layoutFor(s.view.size);
      return Math.min(scrollToShow(lines, openingLine(lines), bodyRows), Math.max(0, lines.length - bodyRows));
    };
    let state = press(at80(await demoEvents()), 'down', 'down', 'down');
    state = apply(state, { type: 'resize', size: { columns: 120, rows: 30 } });
    expect(onScreen(state).some((l) => BLOCK.test(l))).toBe(true);
    expect(state.view.detailScroll).toBe(opening(state));
    state = apply(state, { type: 'resize', size: { columns: 80, rows: 16 } });
    const collapsed = state.view.detailScroll;
    state = press(state, 'toggleExpand');
    expect(state.view.expanded).toBe(true);
    expect(state.view.detailScroll).toBe(opening(state));
    expect(state.view.detailScroll).not.toBe(collapsed);
    expect(onScreen(state).some((l) => BLOCK.test(l))).toBe(true);
  });

  it('d opens a step on its divergence, not on an earlier decision', async () => {
    // The demo's step 2 (a skip) with a divergence at its end: the two are screens apart at 80×12.
    const events = (await demoEvents()).filter((e) => e.step <= 2 && e.type !== 'run_end');
    const last = events[events.length - 1] as RunEvent;
    events.push({ seq: last.seq + 1, step: 2, t: last.t, type: 'divergence', iteration: 2, kind: 'event', expected: false, message: 'the tool output differs' });
    let state = apply(initialState(viewing, { columns: 80, rows: 12 }), { type: 'events', events });
    state = press(state, 'nextDivergence');
    expect(selectedStep(state)).toBe(2);
    expect(onScreen(state).some((l) => l.includes('≠ Divergence (unexpected, event)'))).toBe(true);
    expect(onScreen(state).some((l) => l.includes('⊘ skip'))).toBe(false);
  });
});

describe('filters', () => {
  it('cycles all → decisions that were not allow → blocks and skips → divergences → all', async () => {
    let state = load(await demoEvents());
    state = press(state, 'cycleFilter');
    expect(state.view.filter).toBe('decisions');
    expect(shown(state)).toEqual([2, 3, 4]);
    expect(selectedStep(state)).toBe(2);
    state = press(state, 'cycleFilter');
    expect(state.view.filter).toBe('blocks');
    expect(shown(state)).toEqual([2, 3]);
    state = press(state, 'last');
    expect(selectedStep(state)).toBe(3);
    state = press(state, 'cycleFilter');
    expect(state.view.filter).toBe('divergences');
    expect(shown(state)).toEqual([]);
    expect(state.view.notice).toContain('no step matches');
    state = press(state, 'cycleFilter');
    expect(state.view.filter).toBe('all');
    expect(shown(state)).toEqual([0, 1, 2, 3, 4]);
  });

  it('keeps only the changed and diverging steps of a what-if under the divergence filter', async () => {
    let state = load(await demoReplay({ overrides: ['guardrails.identicalCallBlock=2'] }), { mode: 'what-if', runId: '01DEMO' });
    state = press(state, 'cycleFilter', 'cycleFilter', 'cycleFilter');
    expect(state.view.filter).toBe('divergences');
    expect(shown(state)).toEqual([2]);
  });
});

describe('search', () => {
  const type = (text: string): TuiAction[] => [...text].map((c) => ({ type: 'searchType', text: c }) as const);

  it('finds steps by their text and walks the matches with n and N', async () => {
    let state = load(await demoEvents());
    state = press(state, 'search');
    expect(state.view.search.editing).toBe(true);
    state = apply(state, ...type('SERVER.JSONx'), { type: 'searchErase' }, { type: 'searchSubmit' });
    expect(state.view.search).toEqual({ editing: false, draft: '', query: 'SERVER.JSON' });
    expect(selectedStep(state)).toBe(1);
    expect(state.view.notice).toBe('“SERVER.JSON”: match 1 of 4');
    state = press(state, 'nextMatch');
    expect(selectedStep(state)).toBe(2);
    state = press(state, 'prevMatch', 'prevMatch');
    expect(selectedStep(state)).toBe(4);
  });

  it('scrolls the detail to the first line that shows the match', async () => {
    let state = apply(initialState(viewing, { columns: 80, rows: 24 }), { type: 'events', events: await demoEvents() });
    state = apply(state, { type: 'key', action: 'search' }, ...type('Blocked'), { type: 'searchSubmit' });
    expect(selectedStep(state)).toBe(3);
    const lines = selectedDetail(state);
    const first = lines.findIndex((l) => /blocked/i.test(l.text));
    expect(first).toBeGreaterThan(layoutFor(state.view.size).bodyRows);
    expect(onScreen(state)).toContain(lines[first]?.text);
    // n: the next matching step, on its match.
    state = press(state, 'nextMatch');
    expect(selectedStep(state)).toBe(4);
    expect(onScreen(state).some((l) => /blocked/i.test(l))).toBe(true);
  });

  it('expands the detail when the match is in text cut while collapsed', async () => {
    let state = apply(initialState(viewing, { columns: 80, rows: 24 }), { type: 'events', events: await demoEvents() });
    state = apply(state, { type: 'key', action: 'search' }, ...type('a different tool'), { type: 'searchSubmit' });
    expect(selectedStep(state)).toBe(3);
    expect(state.view.expanded).toBe(true);
    expect(onScreen(state).join(' ')).toMatch(/a\s+different\s+tool/);
  });

  it('searches tool output, and says when nothing matches', async () => {
    let state = load(await demoEvents());
    state = apply(state, { type: 'key', action: 'search' }, ...type('"port": 8080'), { type: 'searchSubmit' });
    expect(selectedStep(state)).toBe(1);
    state = apply(state, { type: 'key', action: 'search' }, ...type('no such text'), { type: 'searchSubmit' });
    expect(state.view.notice).toBe('no match for “no such text”');
    expect(selectedStep(state)).toBe(1);
    state = apply(state, { type: 'key', action: 'search' }, ...type('abc'), { type: 'searchCancel' });
    expect(state.view.search.query).toBe('no such text');
  });
});
