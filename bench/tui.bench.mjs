// Terminal UI on a long run, in this process (BENCHMARKS.md § "Terminal UI"), budgets: a key press
// re-renders in < 50 ms, and memory is bounded by the events, not by rendered text. How long a long
// tape takes to open from the command line, as a user waits for it, is bench/tui-open.bench.mjs;
// the open figures here are its parts inside the UI.
//
// The events are real: the synthetic N-step run of bench/tui-tape.mjs (recorded through the
// library, streamed into a tape file) read back with openTapeFile, as `agentctl view` reads a
// tape. A second event set is a what-if replay of that tape (replayRun with `--set
// guardrails.identicalCallBlock=2`): the same events plus `decision` divergences, so the
// divergence filter and `d` have work.
//
// What is measured, at each size:
//   - reducer: tuiReducer(initialState(…), {type:'events', events}) — all events in one batch, as
//     the UI takes a finished run — and each key action on the built state (median, p95);
//   - memory: heap used (after a full GC) by the events as read, and what the UI state adds on top,
//     in bytes per event; then what a mounted UI adds after the key presses, and how much of that
//     is React's development build keeping a performance.measure() per component render (below);
//   - open, in parts: the compiled App (dist/tui/components/App.js) mounted with Ink's `render`, the
//     options of src/tui/run-tui.tsx (maxFps 30, not debug), on a fake TTY stdout (80×24 and
//     120×40) that records when each frame is written; time to the first frame that shows the whole
//     run (the header's "(1 of <rows>)") once every event is in the feed. Two ways: events in the
//     feed before mounting (the UI drains them in its first effect), and pushed just after mounting
//     (the UI takes them after its 33 ms batching delay); the what-if events the second way. Plus
//     loading the UI's modules (Ink, React, yoga, the components) from node_modules, timed once
//     (cold) at the start of this process — the CLI loads its own bundle of them instead
//     (scripts/bundle-cli.mjs), timed as part of bench/tui-open.bench.mjs;
//   - key: time from stdin.write(key) on a fake TTY stdin to the next frame written, for j, G/g, f,
//     d and a `/` search submitted with Enter, over BENCH_TUI_PRESSES presses each.
//
// Why not `debug: true`: Ink's debug mode writes every render unthrottled, which is not what a user
// gets. The real UI runs with Ink's frame throttle (leading and trailing edge, one frame per 34 ms
// at maxFps 30): a key pressed when no frame went out in the last 34 ms is drawn at once (the
// leading edge), faster typing is coalesced into 30 frames a second. Key presses here are spaced
// 40 ms after the previous frame, so each one is drawn on the leading edge and its time is the
// work the key causes (input parsing, reducer, React render, Ink layout and output) — not the
// throttle's wait. Open times do include the throttle: the first frame (an empty UI) goes out on
// the leading edge, and the frame with the events waits for the trailing edge when it is ready
// sooner than 34 ms later; that wait is what a user sees, so it is part of the figure.
//
// React: the CLI loads the UI with NODE_ENV=production unless the user's environment sets it (see
// src/tui/index.ts), so this benchmark does the same before loading Ink and React (the header line
// says which build ran). `NODE_ENV=development node bench/run.mjs tui` shows the difference.
//
//   node bench/run.mjs tui                                   (about 4½ minutes)
//   BENCH_TUI_STEPS=1000,10000 BENCH_TUI_PRESSES=200 node --expose-gc bench/tui.bench.mjs
import { EventEmitter } from 'node:events';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { replayRun } from '../dist/replay/replay-run.js';
import { openTapeFile } from '../dist/tape/tape-file.js';
import { RunFeed } from '../dist/tui/run-feed.js';
import { initialState, tuiReducer } from '../dist/tui/state/tui-state.js';
import { recordTape } from './tui-tape.mjs';

const SIZES = (process.env.BENCH_TUI_STEPS ?? '1000,10000').split(',').map(Number);
const PRESSES = Number(process.env.BENCH_TUI_PRESSES ?? 100);
const TERMINALS = [
  { columns: 80, rows: 24 },
  { columns: 120, rows: 40 },
];
const KEY_TARGET_MS = 50;
/** Ink's throttle at maxFps 30 is 34 ms; a press this long after the last frame is drawn on the leading edge. */
const KEY_GAP_MS = 40;
const OPEN_RUNS = 3;

// Ink decides once, when it is first imported, whether it runs under CI (then it draws nothing
// until exit); src/tui/index.ts clears these for the same reason.
delete process.env.CI;
delete process.env.CONTINUOUS_INTEGRATION;

// A full GC before each heap reading: --expose-gc (bench/run.mjs passes it), or the V8 flag set now.
if (typeof globalThis.gc !== 'function') {
  setFlagsFromString('--expose-gc');
  globalThis.gc = runInNewContext('gc');
}
const heapUsed = () => {
  globalThis.gc();
  globalThis.gc();
  return process.memoryUsage().heapUsed;
};

const fmt = (n, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const quantile = (xs, q) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};
const median = (xs) => quantile(xs, 0.5);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ── the UI's modules, loaded cold (what `agentctl view` pays after reading the tape) ──────────────
process.env.NODE_ENV ??= 'production';
const loadStarted = performance.now();
const { render } = await import('ink');
const { createElement: h } = await import('react');
const { App } = await import('../dist/tui/components/App.js');
const { ThemeContext } = await import('../dist/tui/theme.js');
const { stepOutput } = await import('../dist/tui/step-output.js');
const uiLoadMs = performance.now() - loadStarted;
// A terminal with colour (the bench's own stdout is a pipe, where chalk would pick none).
(await import('chalk')).default.level = 2;

// ── the events ─────────────────────────────────────────────────────────────────────────────────────

async function readTape(path) {
  const tape = await openTapeFile(path);
  const events = [];
  for await (const event of tape.events()) events.push(event);
  return { meta: tape.meta, events };
}

async function whatIfEvents(path) {
  const tape = await openTapeFile(path);
  const replay = replayRun({ source: { meta: tape.meta, label: path, events: () => tape.events() }, overrides: ['guardrails.identicalCallBlock=2'] });
  const events = [];
  for (let next = await replay.next(); !next.done; next = await replay.next()) events.push(next.value);
  return events;
}

/** Timeline rows the UI makes of `events` (the header says "(1 of <rows>)" once it has them all). */
const rowCounts = new WeakMap();
function rowCount(events) {
  if (!rowCounts.has(events)) rowCounts.set(events, tuiReducer(initialState({ mode: 'viewing', runId: null }, KEY_SIZE), { type: 'events', events }).model.rows.length);
  return rowCounts.get(events);
}

// ── the reducer alone ──────────────────────────────────────────────────────────────────────────────

const KEY_SIZE = TERMINALS[1];

function buildState(session, events, size = KEY_SIZE) {
  return tuiReducer(initialState(session, size), { type: 'events', events });
}

/** Per-call times (ms) of `n` reducer calls; `step` takes the state and returns [state, action] to time. */
function timeReducer(state, n, step) {
  const times = [];
  let current = state;
  for (let i = 0; i < n; i++) {
    const [from, action] = step(current, i);
    const started = performance.now();
    current = tuiReducer(from, action);
    times.push(performance.now() - started);
  }
  return times;
}

const typed = (state, text) => {
  const editing = tuiReducer(state, { type: 'key', action: 'search' });
  return tuiReducer(editing, { type: 'searchType', text });
};

/** What each measured key does to the reducer: j, G/g alternately, f, d, and a submitted search. */
const REDUCER_KEYS = [
  { name: 'j (down)', step: (s) => [s, { type: 'key', action: 'down' }] },
  { name: 'G/g (last/first)', step: (s, i) => [s, { type: 'key', action: i % 2 === 0 ? 'last' : 'first' }] },
  { name: 'f (filter)', step: (s) => [s, { type: 'key', action: 'cycleFilter' }] },
  { name: 'd (divergence)', step: (s) => [s, { type: 'key', action: 'nextDivergence' }] },
  { name: '/ search, a hit', step: (s) => [typed(s, 'Blocked'), { type: 'searchSubmit' }] },
  { name: '/ search, no match', step: (s) => [typed(s, 'no step says this'), { type: 'searchSubmit' }] },
];

// ── Ink on fake terminals ──────────────────────────────────────────────────────────────────────────

/** A TTY stdout that keeps only the last frame and the time each write came. */
class FakeStdout extends EventEmitter {
  isTTY = true;
  frames = 0;
  lastFrame = '';
  waiter = null;
  constructor({ columns, rows }) {
    super();
    this.columns = columns;
    this.rows = rows;
  }
  write = (data) => {
    // Ink also writes cursor and synchronized-update sequences; a frame is the long write.
    if (typeof data !== 'string' || data.length < 200) return true;
    const at = performance.now();
    this.frames++;
    this.lastFrame = data;
    if (this.waiter !== null && this.waiter.test(data)) {
      const { resolve } = this.waiter;
      this.waiter = null;
      resolve(at);
    }
    return true;
  };
  /** Resolves with the time of the next frame that passes `test`. */
  nextFrame(test = () => true, timeoutMs = 10_000) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no frame within ${timeoutMs} ms`)), timeoutMs);
      this.waiter = { test, resolve: (at) => (clearTimeout(timer), resolve(at)) };
    });
  }
}

/** A TTY stdin as ink-testing-library makes it: `write` delivers a key press. */
class FakeStdin extends EventEmitter {
  isTTY = true;
  data = null;
  write(data) {
    this.data = data;
    this.emit('readable');
    this.emit('data', data);
  }
  read() {
    const { data } = this;
    this.data = null;
    return data;
  }
  setEncoding() {}
  setRawMode() {}
  resume() {}
  pause() {}
  ref() {}
  unref() {}
}

/** Mount the UI as src/tui/run-tui.tsx does (patchConsole off: this process prints its results). */
function mount(feed, session, terminal, stdout = new FakeStdout(terminal)) {
  const stdin = new FakeStdin();
  const stderr = new FakeStdout(terminal);
  // `y` and `w` are not pressed here: the clipboard is the fake terminal, files would go to the temp dir.
  const output = stepOutput(stdout, tmpdir());
  const tree = h(ThemeContext.Provider, { value: { color: true } }, h(App, { feed, session, onQuit: () => undefined, onCancel: () => undefined, output }));
  const started = performance.now();
  // Ink reports how long turning the laid-out tree into the frame's text took (its `renderTime`).
  const onRender = ({ renderTime }) => (stdout.inkRenderMs = renderTime);
  const instance = render(tree, { stdin, stdout, stderr, exitOnCtrlC: false, patchConsole: false, maxFps: 30, onRender });
  return { instance, stdout, stdin, started };
}

const shows = (rows) => (frame) => frame.includes(` of ${rows})`);

/** ms from mounting to the first frame with the whole run; `view`: push the events after mounting. */
async function openOnce(session, events, terminal, { view }) {
  const rows = rowCount(events);
  const feed = new RunFeed();
  const ending = { exitCode: 0, report: [`${events.length} events`] };
  const fill = () => {
    for (const event of events) feed.push(event);
    feed.end(ending);
  };
  if (!view) fill();
  // render() draws its first frame synchronously, so the wait for the full frame is set up first.
  const stdout = new FakeStdout(terminal);
  const frame = stdout.nextFrame(shows(rows));
  const ui = mount(feed, session, terminal, stdout);
  if (view) fill();
  const at = await frame;
  ui.instance.unmount();
  ui.instance.cleanup();
  performance.clearMeasures();
  performance.clearMarks();
  return at - ui.started;
}

/** Key press → next frame, `n` times; `before(i)` may press keys first (not timed). */
async function pressTimes(ui, n, key, before) {
  const times = [];
  const inkTimes = [];
  for (let i = 0; i < n; i++) {
    if (before !== undefined) await before(i);
    await sleep(KEY_GAP_MS);
    const next = ui.stdout.nextFrame();
    const started = performance.now();
    ui.stdin.write(typeof key === 'function' ? key(i) : key);
    times.push((await next) - started);
    inkTimes.push(ui.stdout.inkRenderMs);
  }
  return { times, inkTimes };
}

async function press(ui, key, timeoutMs) {
  await sleep(KEY_GAP_MS);
  const next = ui.stdout.nextFrame(undefined, timeoutMs);
  ui.stdin.write(key);
  await next;
}

const UI_KEYS = [
  { name: 'j (down)', key: 'j' },
  { name: 'G/g (last/first)', key: (i) => (i % 2 === 0 ? 'G' : 'g') },
  { name: 'f (filter)', key: 'f' },
  { name: 'd (divergence)', key: 'd' },
  {
    name: '/ search + Enter',
    key: '\r',
    // `/`, then the query (one write, as a paste: Ink hands it over whole), each drawn; then Enter is
    // timed: the search over every step.
    before: async (ui) => {
      await press(ui, '/');
      await press(ui, 'Blocked');
    },
  },
];

async function keyTimes(session, events, terminal, n) {
  const feed = new RunFeed();
  for (const event of events) feed.push(event);
  feed.end({ exitCode: 0, report: [] });
  const ui = mount(feed, session, terminal);
  await ui.stdout.nextFrame(shows(rowCount(events)));
  await sleep(100);
  const out = [];
  for (const k of UI_KEYS) {
    const { times, inkTimes } = await pressTimes(ui, n, k.key, k.before === undefined ? undefined : () => k.before(ui));
    out.push({ name: k.name, times, inkTimes });
    // Back to all steps (f cycles through four filters) and the first step, between kinds of key.
    if (k.key === 'f') for (let i = n % 4; i % 4 !== 0; i++) await press(ui, 'f');
    await press(ui, 'g', 500).catch(() => undefined); // no frame when already there
  }
  const heapMounted = heapUsed();
  // React's development build records a performance.measure() per component render, and Node keeps
  // every one in its performance timeline until cleared: count them and what they hold, then drop
  // them so that each measurement starts afresh.
  const measures = performance.getEntriesByType('measure').length;
  performance.clearMeasures();
  performance.clearMarks();
  const heapCleared = heapUsed();
  ui.instance.unmount();
  ui.instance.cleanup();
  return { keys: out, heapMounted, measures, measuresBytes: heapMounted - heapCleared };
}

// ── main ───────────────────────────────────────────────────────────────────────────────────────────

const dir = await mkdtemp(join(tmpdir(), 'agentctl-bench-tui-'));
const summary = [];
const memory = [];
try {
  // As in the CLI: production unless the environment said otherwise.
  const reactBuild = process.env.NODE_ENV === 'production' ? 'production' : 'development';
  console.log(
    `terminal UI on a synthetic N-step run, node ${process.version}, React ${reactBuild} build (NODE_ENV=${process.env.NODE_ENV ?? ''}); ` +
      `loading the UI (ink, react, yoga, App) from node_modules: ${fmt(uiLoadMs)} ms (cold, once per process; the CLI loads its bundle of them)`,
  );
  for (const steps of SIZES) {
    const path = join(dir, `tui-${steps}.tape.jsonl`);
    let started = performance.now();
    await recordTape(path, steps);
    const recordS = (performance.now() - started) / 1000;
    const tapeBytes = (await stat(path)).size;

    const heap0 = heapUsed();
    started = performance.now();
    const { meta, events } = await readTape(path);
    const readMs = performance.now() - started;
    const heapEvents = heapUsed();
    const view = { mode: 'viewing', runId: meta.id, name: meta.name, source: path };
    let state = buildState(view, events);
    const heapState = heapUsed();
    const rows = state.model.rows.length;
    const eventBytes = (heapEvents - heap0) / events.length;
    const stateBytes = (heapState - heapEvents) / events.length;
    state = null;

    started = performance.now();
    const whatIf = await whatIfEvents(path);
    const whatIfS = (performance.now() - started) / 1000;
    const whatIfSession = { mode: 'what-if', runId: meta.id, source: path };
    const divergences = whatIf.filter((e) => e.type === 'divergence').length;
    const skips = events.filter((e) => e.type === 'guardrail' && e.verdict === 'skip').length;
    const blocks = events.filter((e) => e.type === 'guardrail' && e.verdict === 'block').length;
    console.log(
      `\n${fmt(steps)} steps: ${fmt(rows)} rows, ${fmt(events.length)} events (${skips} skips, ${blocks} blocks), tape ${fmt(tapeBytes / 1e6, 1)} MB ` +
        `(recorded in ${fmt(recordS, 1)} s, read in ${fmt(readMs)} ms); what-if replay: ${fmt(whatIf.length)} events, ${divergences} decision divergences (${fmt(whatIfS, 1)} s)`,
    );

    // Reducer: the whole run in one batch (median of 5), then each key on the built what-if state.
    const builds = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      buildState(view, events);
      builds.push(performance.now() - t);
    }
    console.log(`  reducer, all events in one batch: ${fmt(median(builds), 1)} ms (min ${fmt(Math.min(...builds), 1)}); per key on the what-if state (${KEY_SIZE.columns}×${KEY_SIZE.rows}), ${PRESSES * 2} calls each:`);
    const built = buildState(whatIfSession, whatIf);
    for (const k of REDUCER_KEYS) {
      const times = timeReducer(built, PRESSES * 2, k.step);
      console.log(`    ${k.name.padEnd(20)} median ${fmt(median(times), 3).padStart(7)} ms, p95 ${fmt(quantile(times, 0.95), 3).padStart(7)} ms`);
    }
    console.log(`  memory: events as read ${fmt(eventBytes)} B/event; the UI state on top ${fmt(stateBytes)} B/event (${fmt((heapState - heapEvents) / 1e6, 1)} MB)`);

    // Open, on each terminal size: events in the feed before mounting, and pushed just after mounting.
    for (const terminal of TERMINALS) {
      for (const [label, events_, session, asView] of [
        ['view, events before mount', events, view, false],
        ['view, pushed after mounting', events, view, true],
        ['what-if, pushed after mounting', whatIf, whatIfSession, true],
      ]) {
        const times = [];
        for (let i = 0; i < OPEN_RUNS; i++) times.push(await openOnce(session, events_, terminal, { view: asView }));
        const ms = median(times);
        const line = `  open ${terminal.columns}×${terminal.rows}, ${label.padEnd(30)} ${fmt(ms).padStart(5)} ms (runs: ${times.map((t) => fmt(t)).join(', ')})`;
        if (asView && session === view) {
          // Parts of opening a run whose events are all in; the budget is on the whole, from the shell (tui-open.bench.mjs).
          summary.push({ name: `mount → full frame, ${steps} steps in the feed, ${terminal.columns}x${terminal.rows}`, value: Math.round(ms), uiLoadMs: Math.round(uiLoadMs), events: events.length });
        }
        console.log(line);
      }
    }

    // Keys, through Ink, on the what-if events (divergences for `d`).
    for (const terminal of TERMINALS) {
      const heapBefore = heapUsed();
      const { keys, heapMounted, measures, measuresBytes } = await keyTimes(whatIfSession, whatIf, terminal, PRESSES);
      const kept = measures === 0 ? '' : `, of which ${fmt(measuresBytes / 1e6, 1)} MB in ${fmt(measures)} performance measures`;
      console.log(`  keys ${terminal.columns}×${terminal.rows}, press → frame, ${PRESSES} presses each (UI mounted, after the presses: +${fmt((heapMounted - heapBefore) / 1e6, 1)} MB heap${kept}):`);
      for (const { name, times, inkTimes } of keys) {
        const p95 = quantile(times, 0.95);
        console.log(
          `    ${name.padEnd(20)} median ${fmt(median(times), 1).padStart(6)} ms, p95 ${fmt(p95, 1).padStart(6)} ms, max ${fmt(Math.max(...times), 1).padStart(6)} ms ` +
            `(Ink's output step: median ${fmt(median(inkTimes), 1)} ms)  ${p95 < KEY_TARGET_MS ? 'meets' : 'MISSES'} < ${KEY_TARGET_MS} ms`,
        );
        if (steps === SIZES.at(-1)) summary.push({ name: `key ${name} at ${steps} steps ${terminal.columns}x${terminal.rows}, p95`, value: Number(p95.toFixed(1)), target: KEY_TARGET_MS });
      }
    }
    memory.push({ name: `UI state at ${steps} steps`, value: Math.round(stateBytes), events: events.length, eventBytes: Math.round(eventBytes) });
    await rm(path, { force: true });
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
console.log(`bench-result ${JSON.stringify({ bench: 'tui', unit: 'ms', higherIsBetter: false, results: summary })}`);
console.log(`bench-result ${JSON.stringify({ bench: 'tui-memory', unit: 'B/event', higherIsBetter: false, results: memory })}`);
// Ink leaves signal-exit and stdin hooks behind; nothing else is pending.
process.exit(0);
