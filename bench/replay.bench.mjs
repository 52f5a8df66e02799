// Replay of a long tape (BENCHMARKS.md § "Replay"), budget: a 10,000-step tape replays in < 1 s wall
// time including process start, with memory flat in tape length.
//
// The tapes are real recordings, made through the library: runLoop from ../dist with a scripted
// in-process LlmClient that asks for N distinct `read_file` calls (one per step, a different line
// each time) and then answers, and a tiny ToolHost (the real registry's specs and definitions, an
// executor that answers at once). Every event the loop yields is streamed into a tape file with
// writeTapeFile, so the tape has exactly the events a recorded run has. Then the real binary replays
// it: `node bin/agentctl.js replay <tape> --no-save --quiet`, timed from spawn to exit, peak RSS from
// /usr/bin/time -v when there is one.
//
// Interleaved with it, per size: the same run replayed from the store, with `--json`, the tape file
// replayed again once agentctl has checked it (its cache of checked tapes, AGENTCTL_CACHE, lets a
// later read skip the checks; every other replay here runs with the cache off, so it checks every
// line as a first read does), the parse floor (a process that reads and JSON.parses every line),
// and the tape reader alone (the events read and checked as a replay reads them, nothing run). Per-step costs are the slopes between
// 1,000 and 10,000 steps (the fastest run of each: the work is deterministic, slower runs are the
// machine's noise), as ratios to the floor's slope (the targets in BENCHMARKS.md); the reader's share says
// how much of a replayed step is reading the tape and how much is the loop and the comparison. The
// slopes from 5,000 to 10,000 steps are printed too, as context: past V8's warm-up of the replay's
// code, which goes on well beyond the first 1,000 steps.
//
// Generation is time-boxed (BENCH_REPLAY_MAX_GEN_S, default 90 s): a size that the loop cannot even
// record in that time is reported as not measured, with a projection from the sizes that were.
//
//   node bench/run.mjs replay
//   BENCH_REPLAY_STEPS=1000,10000 node bench/replay.bench.mjs
import { spawn } from 'node:child_process';
import { existsSync, openSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ulid } from 'ulid';
import { parseConfig } from '../dist/agent/load-config.js';
import { runLoop } from '../dist/agent/loop.js';
import { buildRegistry } from '../dist/agent/tool-registry.js';
import { ManualClock, seededRandom } from '../dist/core/clock.js';
import { TAPE_VERSION } from '../dist/core/run-meta.js';
import { writeTapeFile } from '../dist/tape/tape-file.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'agentctl.js');
const TARGET_MS = 1000;
const TARGET_STEPS = 10_000;
/** The parse floor: a process that reads a tape and JSON.parses every line (argv[1]: the tape). */
const PARSE_FLOOR =
  "const rl = require('node:readline').createInterface({ input: require('node:fs').createReadStream(process.argv[1]), crlfDelay: Infinity });" +
  " rl.on('line', (line) => { if (line !== '') JSON.parse(line); });";

/**
 * The tape reader alone (argv[1]: the tape): what a file replay reads its events through — lines,
 * JSON.parse, each event's check and the whole tape's checks (request hashes, order, end) — and
 * nothing else. What the replay costs beyond it is the loop and the comparison.
 */
const READER =
  `import(${JSON.stringify(new URL('../dist/tape/tape-file.js', import.meta.url).href)}).then(async ({ openTapeFile }) => {` +
  ' const tape = await openTapeFile(process.argv[1]); for await (const batch of tape.batches()) void batch; });';

/** A scripted model: its call i (from 0) is answered with `reply(i)`, and once `steps` calls are made, with `answer()`. */
export function scriptedModel(steps, reply, answer) {
  let k = 0;
  return {
    async complete() {
      const i = k++;
      return i >= steps ? answer() : reply(i);
    },
  };
}

/** The scripted model: step k asks for line k of a source file; after `steps` steps it answers. */
function scriptedLlm(steps) {
  return scriptedModel(
    steps,
    (i) => ({
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: `call_${i}`, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: 'src/generated.ts', offset: i, limit: 1 }) } }],
      },
      finishReason: 'tool_calls',
      usage: { inputTokens: 40, outputTokens: 18 },
    }),
    () => ({ message: { role: 'assistant', content: `Read ${steps} lines; nothing else to do.` }, finishReason: 'stop', usage: { inputTokens: 40, outputTokens: 9 } }),
  );
}

/** The real registry's specs and definitions (so a replay rebuilds the same requests), a fake executor. */
function tinyToolHost(registry, outputBytes) {
  const line = (n) => `export const v${n} = ${n}; // line ${n + 1}\n`;
  const output = (n) => {
    let text = line(n);
    for (let i = 1; text.length < outputBytes; i++) text += line(n + i);
    return text;
  };
  return {
    lookup: (name) => registry.spec(name),
    definitions: () => registry.definitions(),
    execute: async (_call, args) => ({ status: 'ok', output: output(args.offset), durationMs: 0.05 }),
    policies: [],
  };
}

/**
 * Record a synthetic `steps`-step run into the tape file `path`; each tool output is about
 * `outputBytes` long (default: one short line). Stops early (the tape is then incomplete) when
 * generation takes longer than `maxSeconds`. Returns what was done, byte counts and the time taken.
 */
export async function recordSyntheticTape(path, steps, { maxSeconds = Infinity, outputBytes = 0, config: extra = {} } = {}) {
  const config = parseConfig({ model: 'bench-model', tools: ['read_file'], seed: 7, limits: { maxSteps: steps + 5 }, ...extra }, 'bench config');
  const { registry } = await buildRegistry(config, ROOT);
  const clock = new ManualClock(0);
  const deps = { llm: scriptedLlm(steps), tools: tinyToolHost(registry, outputBytes), clock, random: seededRandom(config.seed) };
  const task = `read src/generated.ts line by line (${steps} lines)`;
  const loop = runLoop({ task, config }, deps);
  const started = performance.now();
  const outcome = { completed: false, stepsReached: 0, events: 0, result: null };
  const counts = { responseBytes: 0, appendBytes: 0, bytesByType: {} };
  async function* events() {
    for (let next = await loop.next(); ; next = await loop.next()) {
      if (next.done) {
        outcome.completed = true;
        outcome.result = next.value;
        return;
      }
      const event = next.value;
      outcome.events++;
      outcome.stepsReached = event.step;
      const bytes = Buffer.byteLength(JSON.stringify(event)) + 1;
      counts.bytesByType[event.type] = (counts.bytesByType[event.type] ?? 0) + bytes;
      if (event.type === 'llm_response') counts.responseBytes += Buffer.byteLength(JSON.stringify(event.response));
      if (event.type === 'llm_request') counts.appendBytes += Buffer.byteLength(JSON.stringify(event.append));
      yield event;
      if ((performance.now() - started) / 1000 > maxSeconds) {
        await loop.return(undefined);
        return;
      }
    }
  }
  const meta = {
    id: ulid(), kind: 'record', name: `synthetic-${steps}`, createdAt: new Date().toISOString(), task,
    model: config.model, config: { ...config }, seed: config.seed, status: 'complete', tapeVersion: TAPE_VERSION,
  };
  await writeTapeFile(path, meta, events());
  const seconds = (performance.now() - started) / 1000;
  const bytes = (await stat(path)).size;
  return { ...outcome, ...counts, seconds, bytes };
}

/**
 * Run a command to completion: wall ms from spawn to exit, peak RSS (MB) when /usr/bin/time is there.
 * `discardStdout`: the command writes straight to /dev/null (for output too large to collect).
 */
export function timed(args, { cwd = ROOT, discardStdout = false, env: extraEnv = {} } = {}) {
  const useTime = existsSync('/usr/bin/time');
  const [command, argv] = useTime ? ['/usr/bin/time', ['-v', process.execPath, ...args]] : [process.execPath, args];
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const env = { ...process.env, ...extraEnv };
    for (const key of Object.keys(env)) if (key.startsWith('OPENAI_')) delete env[key];
    const child = spawn(command, argv, { cwd, env, stdio: ['ignore', discardStdout ? openSync('/dev/null', 'w') : 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - started;
      const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
      resolve({ code, ms, rssMB: rss ? Number(rss[1]) / 1024 : null, stdout, stderr });
    });
  });
}

/** Least-squares fit of log(y) = a + b·log(x): the growth exponent b and a projection at `at`. */
function powerFit(points, at) {
  const xs = points.map((p) => Math.log(p[0]));
  const ys = points.map((p) => Math.log(p[1]));
  const n = points.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i] - mx) * (ys[i] - my);
    den += (xs[i] - mx) ** 2;
  }
  const b = den === 0 ? 1 : num / den;
  return { exponent: b, projected: Math.exp(my + b * (Math.log(at) - mx)) };
}

/**
 * What each round measures for a size, in this order: [key, what it is, the command's arguments,
 * options]. `firstRead` runs check every line (AGENTCTL_CACHE off), `checkedBefore` runs take the
 * tape as checked before (the cache made by the size's warm-up replay).
 */
function variantsOf(p) {
  const firstRead = { env: { AGENTCTL_CACHE: 'off' } };
  const checkedBefore = { env: { AGENTCTL_CACHE: p.cache } };
  return [
    ['replayMs', 'replay', [BIN, 'replay', p.tape, '--no-save', '--quiet'], firstRead],
    ['storeMs', 'store replay', [BIN, '--store', p.store, 'replay', p.runId, '--no-save', '--quiet'], firstRead],
    ['trustedMs', 'replay of a checked tape', [BIN, 'replay', p.tape, '--no-save', '--quiet'], checkedBefore],
    ['floorMs', 'the parse floor', ['-e', PARSE_FLOOR, p.tape], {}],
    ['readerMs', 'the tape reader', ['--input-type=module', '-e', READER, p.tape], {}],
    // Every event as NDJSON, written to /dev/null (the bench process does not read it).
    ['jsonMs', '--json replay', [BIN, 'replay', p.tape, '--no-save', '--json'], { discardStdout: true, ...firstRead }],
    ['trustedJsonMs', '--json replay of a checked tape', [BIN, 'replay', p.tape, '--no-save', '--json'], { discardStdout: true, ...checkedBefore }],
  ];
}

/** The median of some numbers (the lower middle one of an even count). */
function median(xs) {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

/** The first and third quartiles (nearest rank). */
function quartiles(xs) {
  const sorted = [...xs].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
  return [at(0.25), at(0.75)];
}

async function main() {
  const sizes = (process.env.BENCH_REPLAY_STEPS ?? '100,250,500,1000,5000,10000').split(',').map(Number);
  const maxGen = Number(process.env.BENCH_REPLAY_MAX_GEN_S ?? 90);
  const dir = await mkdtemp(join(tmpdir(), 'agentctl-bench-replay-'));
  const fmt = (n, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  const rows = [];
  try {
    const baseline = [];
    for (let i = 0; i < 5; i++) baseline.push((await timed(['-e', '0'])).ms);
    baseline.sort((a, b) => a - b);
    const nodeMs = baseline[2];
    console.log(`replay of a synthetic N-step tape (one distinct read_file per step), node ${process.version}; node -e 0: ${fmt(nodeMs, 1)} ms`);
    // Every size's tape (and the same run in a store) is made first; then rounds, each of which
    // replays every size with every variant, so that the runs a ratio is taken from are made
    // minutes apart at most and a shared machine's slow swings (its speed can move by half
    // within an hour) hit the small and the large tapes alike.
    const prepared = [];
    for (const steps of sizes) {
      const measured = [...rows, ...prepared].filter((r) => r.genSeconds !== undefined);
      if (measured.length >= 2) {
        const gen = powerFit(measured.map((r) => [r.steps, r.genSeconds]), steps).projected;
        if (gen > maxGen) {
          console.log(`  ${fmt(steps).padStart(6)} steps: not recorded — projected generation time ${fmt(gen)} s exceeds ${maxGen} s`);
          rows.push({ steps, replayMs: null, reason: `generation projected at ${fmt(gen)} s` });
          continue;
        }
      }
      const tape = join(dir, `synthetic-${steps}.tape.jsonl`);
      const gen = await recordSyntheticTape(tape, steps, { maxSeconds: maxGen });
      if (!gen.completed) {
        console.log(`  ${fmt(steps).padStart(6)} steps: not recorded — the loop reached step ${fmt(gen.stepsReached)} in ${fmt(gen.seconds)} s (limit ${maxGen} s)`);
        rows.push({ steps, replayMs: null, reason: `generation stopped at step ${gen.stepsReached} after ${fmt(gen.seconds)} s` });
        await rm(tape, { force: true });
        continue;
      }
      // The same run in the store, to replay it from there too.
      const store = join(dir, `store-${steps}`);
      const imported = await timed([BIN, '--store', store, 'import', tape]);
      const runId = /imported (\S+)/.exec(imported.stdout)?.[1];
      if (imported.code !== 0 || runId === undefined) throw new Error(`import of ${steps} steps: exit ${imported.code}\n${imported.stderr}`);
      // The first replay of a size also warms the compile cache and checks the tape for the
      // "checked before" runs. Rounds: nine for the sizes the per-step slopes are taken from
      // (1,000 steps and up), three for the smaller ones, one when a replay takes several seconds
      // (noise is small next to it then).
      const cache = join(dir, `cache-${steps}`);
      const warm = await timed([BIN, 'replay', tape, '--no-save', '--quiet'], { env: { AGENTCTL_CACHE: cache } });
      const slopeSize = steps >= 1000 || sizes.indexOf(steps) >= sizes.length - 2;
      const rounds = warm.ms > 5000 ? 1 : slopeSize ? 9 : 3;
      prepared.push({ steps, gen, genSeconds: gen.seconds, tape, store, runId, cache, rounds, runs: {}, rss: [] });
    }

    const lastRound = Math.max(0, ...prepared.map((p) => p.rounds));
    for (let round = 0; round < lastRound; round++) {
      for (const p of prepared) {
        if (round >= p.rounds) continue;
        for (const [key, what, args, options] of variantsOf(p)) {
          const r = await timed(args, options);
          if (r.code !== 0) throw new Error(`${what} of ${p.steps} steps: exit ${r.code}\n${r.stdout ?? ''}\n${r.stderr}`);
          if (key === 'replayMs') {
            if (!r.stdout.includes('reproduced')) throw new Error(`replay of ${p.steps} steps did not reproduce its tape:\n${r.stdout}`);
            p.rss.push(r.rssMB);
          }
          (p.runs[key] ??= []).push(r.ms);
        }
      }
    }

    for (const p of prepared) {
      const { steps, gen, runs } = p;
      const keys = Object.keys(runs);
      const row = {
        steps, events: gen.events, tapeBytes: gen.bytes, genSeconds: gen.seconds, rssMB: p.rss.every((x) => x !== null) ? median(p.rss) : null,
        // Each variant's runs in round order, for the per-round slopes.
        byRound: runs,
        // The fastest run of each, for the per-step slopes as measured so far: the work is
        // deterministic, so a slower run is the shared machine's noise.
        fastest: Object.fromEntries(keys.map((k) => [k, Math.min(...runs[k])])),
        ...Object.fromEntries(keys.map((k) => [k, median(runs[k])])),
      };
      row.replayMinMs = row.fastest.replayMs;
      rows.push(row);
      console.log(
        `  ${fmt(steps).padStart(6)} steps: replay ${fmt(row.replayMs).padStart(7)} ms (min ${fmt(row.replayMinMs)}), checked before ${fmt(row.trustedMs)} ms, from the store ${fmt(row.storeMs)} ms, ` +
          `--json ${fmt(row.jsonMs)} ms (checked before ${fmt(row.trustedJsonMs)} ms), parse floor ${fmt(row.floorMs)} ms, tape reader ${fmt(row.readerMs)} ms, ` +
          `peak RSS ${row.rssMB === null ? '?' : fmt(row.rssMB, 1)} MB, tape ${fmt(gen.bytes / 1e6, 1)} MB / ${fmt(gen.events)} events, recorded in ${fmt(gen.seconds, 1)} s (${runs.replayMs.length} rounds)`,
      );
    }
    rows.sort((a, b) => a.steps - b.steps);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }

  const measured = rows.filter((r) => r.replayMs !== null);
  const results = measured.map((r) => ({
    name: `${r.steps} steps`, value: Math.round(r.replayMs), steps: r.steps, rssMB: r.rssMB === null ? null : Number(r.rssMB.toFixed(1)),
    tapeBytes: r.tapeBytes, events: r.events, recordSeconds: Number(r.genSeconds.toFixed(2)), storeMs: Math.round(r.storeMs), jsonMs: Math.round(r.jsonMs), parseFloorMs: Math.round(r.floorMs),
    readerMs: Math.round(r.readerMs), checkedBeforeMs: Math.round(r.trustedMs), checkedBeforeJsonMs: Math.round(r.trustedJsonMs),
  }));
  const ratios = [];
  if (measured.length >= 2) {
    // Per-step cost: the slope between 1,000 and 10,000 steps (or the two largest sizes measured;
    // start-up cancels out), against the slope of the parse floor measured in the same run (the
    // targets: ≤ 3×, ≤ 4× with --json; store no slower than file).
    const bySteps = (n) => measured.find((r) => r.steps === n);
    const [a, b] = bySteps(1000) !== undefined && bySteps(TARGET_STEPS) !== undefined ? [bySteps(1000), bySteps(TARGET_STEPS)] : measured.slice(-2);
    const slopeOf = (from, to) => (key) => ((to.fastest[key] - from.fastest[key]) / (to.steps - from.steps)) * 1000;
    const slope = slopeOf(a, b);
    const [replay, store, json, floor, reader] = [slope('replayMs'), slope('storeMs'), slope('jsonMs'), slope('floorMs'), slope('readerMs')];
    const [trusted, trustedJson] = [slope('trustedMs'), slope('trustedJsonMs')];
    console.log(
      `  per step (${fmt(a.steps)} → ${fmt(b.steps)}, fastest runs): replay ${fmt(replay, 1)} µs, from the store ${fmt(store, 1)} µs, --json ${fmt(json, 1)} µs, parse floor ${fmt(floor, 1)} µs → ` +
        `replay ${fmt(replay / floor, 2)}× the floor (target ≤ 3×), --json ${fmt(json / floor, 2)}× (target ≤ 4×), store/file ${fmt(store / replay, 2)}`,
    );
    console.log(
      `  a tape checked before (its checks skipped, its bytes verified): replay ${fmt(trusted, 1)} µs = ${fmt(trusted / floor, 2)}× the floor, ` +
        `--json ${fmt(trustedJson, 1)} µs = ${fmt(trustedJson / floor, 2)}×`,
    );
    console.log(
      `  of a replay's step: the tape reader (lines, parse, checks) ${fmt(reader, 1)} µs = ${fmt(reader / floor, 2)}× the floor; ` +
        `the loop and the comparison the other ${fmt(replay - reader, 1)} µs = ${fmt((replay - reader) / floor, 2)}×`,
    );
    ratios.push(
      { name: 'replay / parse floor', value: Number((replay / floor).toFixed(2)), target: 3, replayUsPerStep: Number(replay.toFixed(1)), floorUsPerStep: Number(floor.toFixed(1)) },
      { name: 'replay --json / parse floor', value: Number((json / floor).toFixed(2)), target: 4, jsonUsPerStep: Number(json.toFixed(1)) },
      { name: 'replay of a tape checked before / parse floor', value: Number((trusted / floor).toFixed(2)), target: 3, replayUsPerStep: Number(trusted.toFixed(1)) },
      { name: 'replay --json of a tape checked before / parse floor', value: Number((trustedJson / floor).toFixed(2)), target: 4, jsonUsPerStep: Number(trustedJson.toFixed(1)) },
      { name: 'store replay / file replay', value: Number((store / replay).toFixed(2)), target: 1, storeUsPerStep: Number(store.toFixed(1)) },
      { name: 'tape reader / parse floor (context)', value: Number((reader / floor).toFixed(2)), readerUsPerStep: Number(reader.toFixed(1)) },
    );
    // The same ratios round by round: each round's slope from its own runs of the two sizes, against
    // that round's parse floor, then the median over the rounds and its quartiles. The fastest runs
    // above can come from moments minutes apart; a round's runs are made one after another.
    const rounds = Math.min(a.byRound.replayMs.length, b.byRound.replayMs.length);
    if (rounds >= 3) {
      const roundSlopes = (key) => Array.from({ length: rounds }, (_, i) => ((b.byRound[key][i] - a.byRound[key][i]) / (b.steps - a.steps)) * 1000);
      const floors = roundSlopes('floorMs');
      const over = (key, by = floors) => roundSlopes(key).map((x, i) => x / by[i]);
      const shown = (xs) => {
        const [q1, q3] = quartiles(xs);
        return `${fmt(median(xs), 2)}× (${fmt(q1, 2)}–${fmt(q3, 2)})`;
      };
      const perRound = {
        replay: over('replayMs'), json: over('jsonMs'), trusted: over('trustedMs'), trustedJson: over('trustedJsonMs'), store: over('storeMs', roundSlopes('replayMs')),
      };
      console.log(
        `  round by round (${rounds} rounds, median and quartiles of each round's ratio; floor ${fmt(median(floors), 1)} µs a step): replay ${shown(perRound.replay)}, --json ${shown(perRound.json)}, ` +
          `checked before ${shown(perRound.trusted)}, --json checked before ${shown(perRound.trustedJson)}, store/file ${shown(perRound.store)}`,
      );
      const entry = (name, xs, target) => {
        const [q1, q3] = quartiles(xs);
        return { name: `${name} (median of ${rounds} rounds)`, value: Number(median(xs).toFixed(2)), target, q1: Number(q1.toFixed(2)), q3: Number(q3.toFixed(2)) };
      };
      ratios.push(
        entry('replay / parse floor', perRound.replay, 3),
        entry('replay --json / parse floor', perRound.json, 4),
        entry('replay of a tape checked before / parse floor', perRound.trusted, 3),
        entry('replay --json of a tape checked before / parse floor', perRound.trustedJson, 4),
        entry('store replay / file replay', perRound.store, 1),
      );
    }
    // Context, not a target: the same slopes over the second half of the longest tape. V8 is still
    // compiling and re-compiling the replay's code (and deciding which allocations go straight to the
    // old generation) for thousands of steps after the first 1,000, so the 1,000 → 10,000 slope
    // carries part of that warm-up; this one is closer to what each further step costs.
    const late = measured.filter((r) => r.steps > b.steps / 4 && r.steps < b.steps).at(-1);
    if (late !== undefined && late.steps > a.steps) {
      const warm = slopeOf(late, b);
      const [wReplay, wTrusted, wJson, wTrustedJson, wFloor] = [warm('replayMs'), warm('trustedMs'), warm('jsonMs'), warm('trustedJsonMs'), warm('floorMs')];
      console.log(
        `  after warm-up (${fmt(late.steps)} → ${fmt(b.steps)}, context): parse floor ${fmt(wFloor, 1)} µs; replay ${fmt(wReplay, 1)} µs = ${fmt(wReplay / wFloor, 2)}×, ` +
          `checked before ${fmt(wTrusted, 1)} µs = ${fmt(wTrusted / wFloor, 2)}×, --json ${fmt(wJson, 1)} µs = ${fmt(wJson / wFloor, 2)}×, ` +
          `--json checked before ${fmt(wTrustedJson, 1)} µs = ${fmt(wTrustedJson / wFloor, 2)}×`,
      );
      ratios.push(
        { name: `replay / parse floor after warm-up, ${late.steps} → ${b.steps} (context)`, value: Number((wReplay / wFloor).toFixed(2)), replayUsPerStep: Number(wReplay.toFixed(1)), floorUsPerStep: Number(wFloor.toFixed(1)) },
        { name: 'replay of a tape checked before / parse floor after warm-up (context)', value: Number((wTrusted / wFloor).toFixed(2)), replayUsPerStep: Number(wTrusted.toFixed(1)) },
        { name: 'replay --json / parse floor after warm-up (context)', value: Number((wJson / wFloor).toFixed(2)), jsonUsPerStep: Number(wJson.toFixed(1)) },
      );
    }
  }
  const atTarget = measured.find((r) => r.steps === TARGET_STEPS);
  if (atTarget === undefined && measured.length >= 2) {
    // Growth speeds up with length, so project from the two largest sizes (the local exponent); an
    // exponent still rising makes this a lower bound.
    const top = measured.slice(-2);
    const time = powerFit(top.map((r) => [r.steps, r.replayMs]), TARGET_STEPS);
    const tape = powerFit(top.map((r) => [r.steps, r.tapeBytes]), TARGET_STEPS);
    const overall = powerFit(measured.map((r) => [r.steps, r.replayMs]), TARGET_STEPS);
    console.log(
      `  replay time ∝ N^${overall.exponent.toFixed(2)} over ${measured[0].steps}–${top[1].steps} steps, N^${time.exponent.toFixed(2)} from ${top[0].steps} to ${top[1].steps}; ` +
        `tape bytes ∝ N^${tape.exponent.toFixed(2)}. Projected at ${fmt(TARGET_STEPS)} steps: ≥ ~${fmt(time.projected / 1000)} s, ~${fmt(tape.projected / 1e9, 1)} GB ` +
        `(budget < 1 s): ${time.projected < TARGET_MS ? 'meets' : 'MISSES'}`,
    );
    results.push({ name: `${TARGET_STEPS} steps (projected, not run)`, value: Math.round(time.projected), projected: true, timeExponent: Number(time.exponent.toFixed(2)) });
  }
  if (measured.length >= 2 && measured.every((r) => r.rssMB !== null)) {
    const first = measured[0];
    const last = measured.at(-1);
    console.log(`  peak RSS ${fmt(first.rssMB, 1)} MB at ${first.steps} steps → ${fmt(last.rssMB, 1)} MB at ${last.steps} steps (×${(last.rssMB / first.rssMB).toFixed(2)} for ×${last.steps / first.steps} steps)`);
  }
  console.log(`bench-result ${JSON.stringify({ bench: 'replay', unit: 'ms', target: TARGET_MS, higherIsBetter: false, results })}`);
  if (ratios.length > 0) console.log(`bench-result ${JSON.stringify({ bench: 'replay-per-step', unit: '×', higherIsBetter: false, results: ratios })}`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
