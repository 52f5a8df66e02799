// Opening a long run in the terminal UI, from the command line, as a user waits for it (BENCHMARKS.md
// § "Terminal UI"). Budget: a 10,000-step tape shows its first screen — the header and timeline rows
// of steps — in < 1 s from pressing Enter, for `agentctl view` and `agentctl replay`.
//
// The real binary (bin/agentctl.js) in a real terminal: a tmux server of its own, one 80×24 window
// running `bash --norc`; the command line is typed into it and Enter pressed, as a person does, and
// the clock starts at Enter. The screen is then read with `tmux capture-pane` every POLL_MS until it
// shows, in order:
//   - the first frame: anything drawn on the UI's alternate screen;
//   - the first screen: a timeline row of a step (the figure the budget is on);
//   - everything in: the run's ending in the header (`ended COMPLETED`: the whole tape read for
//     `view`, the whole replay done — and saved, unless --no-save — for `replay`).
// Each run is a new process; `q` quits it and the prompt is awaited before the next one. The tape is
// the synthetic run of bench/tui-tape.mjs (131,209 events at 10,000 steps, a 42 MB file). Two kinds
// of run, alternated:
//   - cold: the cache of checked tapes (`$AGENTCTL_CACHE`) empty, so the whole tape is checked as it is
//     read — the first time a user opens this file;
//   - cached: the same cache after a cold run, so the checks are skipped — a file opened before.
// One `--help` first fills Node's compile cache (Node ≥ 22), as any earlier use of agentctl has. The
// file is in the page cache (it was just written); polling tmux costs a few ms of CPU each POLL_MS.
// BENCH_TUI_OPEN_BINS compares builds (a before and an after) in one run, their launches interleaved
// so that load on a shared machine falls on each alike: a comma-separated list of bin/agentctl.js
// paths of other checkouts, each built.
//
//   node bench/run.mjs tui-open                               (about 2 minutes a build)
//   BENCH_TUI_OPEN_STEPS=10000 BENCH_TUI_OPEN_RUNS=5 node bench/tui-open.bench.mjs
//   BENCH_TUI_OPEN_COMMANDS='view,replay --no-save' node bench/tui-open.bench.mjs
//   BENCH_TUI_OPEN_BINS=/tmp/before/bin/agentctl.js,bin/agentctl.js node bench/tui-open.bench.mjs
import { execFile, execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { recordTape } from './tui-tape.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BINS = (process.env.BENCH_TUI_OPEN_BINS ?? join(ROOT, 'bin', 'agentctl.js')).split(',').map((bin) => resolve(bin));
const STEPS = Number(process.env.BENCH_TUI_OPEN_STEPS ?? 10_000);
const RUNS = Number(process.env.BENCH_TUI_OPEN_RUNS ?? 3);
/** Which of `view`, `replay` (saving the run: its store writes take most of its time) and `replay --no-save`. */
const COMMANDS = process.env.BENCH_TUI_OPEN_COMMANDS?.split(',') ?? null;
const TARGET_MS = 1000;
const POLL_MS = 20;
const WAIT_MS = 120_000;
const PROMPT = 'bench$';

const fmt = (ms) => (ms / 1000).toFixed(2);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

try {
  execFileSync('tmux', ['-V'], { stdio: 'ignore' });
} catch {
  console.error('bench: tui-open needs tmux (apt-get install tmux / brew install tmux)');
  process.exit(1);
}

const socket = `agentctl-bench-${process.pid}`;
const tmux = (...args) =>
  new Promise((resolve, reject) => {
    execFile('tmux', ['-L', socket, ...args], { encoding: 'utf8' }, (error, stdout, stderr) => (error === null ? resolve(stdout) : reject(new Error(`tmux ${args[0]}: ${stderr || error.message}`))));
  });
const screen = async () => {
  const [text, alternate] = await Promise.all([tmux('capture-pane', '-p', '-t', 'b'), tmux('display-message', '-p', '-t', 'b', '#{alternate_on}')]);
  return { text, alternate: alternate.trim() === '1' };
};

/** Poll until `ready(screen)`; the time it first held. */
async function until(ready, what) {
  const deadline = performance.now() + WAIT_MS;
  for (;;) {
    const s = await screen();
    if (ready(s)) return performance.now();
    if (performance.now() > deadline) throw new Error(`no ${what} within ${WAIT_MS} ms; the screen:\n${s.text}`);
    await sleep(POLL_MS);
  }
}

const atPrompt = (s) => !s.alternate && s.text.trimEnd().split('\n').at(-1) === PROMPT;
const drawn = (s) => s.alternate && s.text.trim() !== '';
// A timeline row: the selection marker or blanks, the step number, the tool it called.
const stepRow = /^\S?\s+\d+\s+read_file/m;
const shows = (s) => s.alternate && stepRow.test(s.text);
const ended = (s) => s.alternate && s.text.includes('ended COMPLETED');

async function type(line) {
  await tmux('send-keys', '-t', 'b', '-l', line);
  const started = performance.now();
  await tmux('send-keys', '-t', 'b', 'Enter');
  return started;
}

/** One launch: ms from Enter to the first frame, to the first screen of steps, to everything in. */
async function openOnce(command, cacheDir) {
  const started = await type(`AGENTCTL_CACHE=${cacheDir} ${command}`);
  const frame = await until(drawn, 'frame');
  const first = await until(shows, 'timeline row');
  const all = await until(ended, 'ending');
  await tmux('send-keys', '-t', 'b', 'q');
  await until(atPrompt, 'prompt');
  return { frame: frame - started, first: first - started, all: all - started };
}

const dir = await mkdtemp(join(tmpdir(), 'agentctl-bench-tui-open-'));
try {
  const tape = join(dir, 'big.tape.jsonl');
  await recordTape(tape, STEPS);
  const store = join(dir, 'store');
  const shell = `env -u CI -u CONTINUOUS_INTEGRATION -u NODE_ENV -u NO_COLOR PS1='${PROMPT} ' HISTFILE=/dev/null bash --norc --noprofile`;
  await tmux('-f', '/dev/null', 'new-session', '-d', '-s', 'b', '-x', '80', '-y', '24', '-c', ROOT, shell);
  await until(atPrompt, 'prompt');
  for (const bin of BINS) {
    await type(`node ${bin} --help > /dev/null`);
    await until(atPrompt, 'prompt');
  }
  const commands = [
    { name: 'view', args: `view ${tape}` },
    { name: 'replay', args: `--store ${store} replay ${tape}` },
    { name: 'replay --no-save', args: `replay ${tape} --no-save` },
  ].filter((c) => COMMANDS === null || COMMANDS.includes(c.name));
  console.log(`agentctl view / replay of a ${STEPS.toLocaleString('en-US')}-step tape in tmux at 80×24, node ${process.version}; seconds from Enter (median of ${RUNS}; runs in brackets)`);
  const results = [];
  for (const { name, args } of commands) {
    // Per build, cold and cached launches; each round runs every build once, cold then cached.
    const runs = BINS.map(() => ({ cold: [], cached: [] }));
    for (let i = 0; i < RUNS; i++) {
      for (const [b, bin] of BINS.entries()) {
        const cache = join(dir, `cache-${name.replace(/\W+/g, '-')}-${b}-${i}`);
        runs[b].cold.push(await openOnce(`node ${bin} ${args}`, cache));
        runs[b].cached.push(await openOnce(`node ${bin} ${args}`, cache));
      }
    }
    for (const [b, bin] of BINS.entries()) {
      const label = BINS.length === 1 ? name : `${name} (${bin})`;
      for (const [kind, list] of Object.entries(runs[b])) {
        const col = (key) => `${fmt(median(list.map((r) => r[key])))} (${list.map((r) => fmt(r[key])).join(', ')})`;
        const first = median(list.map((r) => r.first));
        console.log(`  ${label} ${kind.padEnd(6)} first frame ${col('frame')}; first screen of steps ${col('first')}; everything in ${col('all')}  ${first < TARGET_MS ? 'meets' : 'MISSES'} < ${fmt(TARGET_MS)} s`);
        results.push({ name: `${label} ${STEPS} steps, ${kind}: first screen of steps`, value: Math.round(first), target: TARGET_MS });
        results.push({ name: `${label} ${STEPS} steps, ${kind}: everything in`, value: Math.round(median(list.map((r) => r.all))) });
      }
    }
  }
  console.log(`bench-result ${JSON.stringify({ bench: 'tui-open', unit: 'ms', higherIsBetter: false, results })}`);
} finally {
  // tmux leaves its socket file behind.
  const socketPath = await tmux('display-message', '-p', '#{socket_path}').catch(() => '');
  await tmux('kill-server').catch(() => undefined);
  if (socketPath.trim() !== '') await rm(socketPath.trim(), { force: true });
  await rm(dir, { recursive: true, force: true });
}
