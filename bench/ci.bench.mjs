// `agentctl ci` over a corpus (BENCHMARKS.md § "CI regression replays"). Budgets: 1,000 ten-step
// tapes in under 15 s on 2 cores, process start included (the project's own budget: under 8 s); one 10,000-step tape
// within 1.2× of `agentctl replay` of the same tape. Measured against what a CI script without
// `agentctl ci` would do — `agentctl replay` once per tape — in the same run.
//
// The tapes are synthetic recordings made through the library (see replay.bench.mjs): a loop that
// reads one distinct line per step. The 1,000 small tapes differ by seed. `agentctl replay` per tape
// is timed on a sample and projected to the whole corpus (1,000 processes would take minutes).
//
//   node bench/run.mjs ci
//   BENCH_CI_TAPES=200 BENCH_CI_LONG=2000 node bench/ci.bench.mjs
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordSyntheticTape, timed } from './replay.bench.mjs';

const BIN = join(new URL('..', import.meta.url).pathname, 'bin', 'agentctl.js');
const TAPES = Number(process.env.BENCH_CI_TAPES ?? 1000);
const STEPS = 10;
const LONG = Number(process.env.BENCH_CI_LONG ?? 10_000);
const SAMPLE = Math.min(40, TAPES);
const TARGET_S = 15;
const TARGET_LONG_RATIO = 1.2;
const fmt = (n, digits = 2) => n.toFixed(digits);

const dir = await mkdtemp(join(tmpdir(), 'agentctl-bench-ci-'));
try {
  const corpus = join(dir, 'corpus');
  await mkdir(corpus);
  const generated = performance.now();
  for (let i = 0; i < TAPES; i++) {
    await recordSyntheticTape(join(corpus, `run-${String(i).padStart(4, '0')}.tape.jsonl`), STEPS, { config: { seed: i } });
  }
  const long = join(dir, 'long.tape.jsonl');
  await recordSyntheticTape(long, LONG);
  console.log(`agentctl ci, node ${process.version}, ${availableParallelism()} cores; ${TAPES} tapes of ${STEPS} steps and one of ${LONG} generated in ${fmt((performance.now() - generated) / 1000, 1)} s`);

  // Warm the file cache and the compile cache once; then measure.
  await timed([BIN, 'ci', corpus, '--reporter', 'json:' + join(dir, 'warm.json')]);
  const runs = [];
  for (let i = 0; i < 3; i++) {
    const run = await timed([BIN, 'ci', corpus, '--reporter', 'json:' + join(dir, 'ci.json')]);
    if (run.code !== 0) throw new Error(`agentctl ci exited ${run.code}: ${run.stdout}${run.stderr}`);
    runs.push(run.ms);
  }
  const ciSeconds = Math.min(...runs) / 1000;

  const sample = [];
  for (let i = 0; i < SAMPLE; i++) {
    const run = await timed([BIN, 'replay', join(corpus, `run-${String(i).padStart(4, '0')}.tape.jsonl`), '--no-save', '--quiet', '--no-tui']);
    if (run.code !== 0) throw new Error(`agentctl replay exited ${run.code}: ${run.stderr}`);
    sample.push(run.ms);
  }
  const perTape = sample.reduce((a, b) => a + b, 0) / sample.length;
  const replaySeconds = (perTape * TAPES) / 1000;
  console.log(`  ${TAPES} tapes: agentctl ci ${fmt(ciSeconds)} s (best of 3: ${runs.map((ms) => fmt(ms / 1000)).join(', ')}), ${fmt((ciSeconds * 1000) / TAPES, 2)} ms per tape;`);
  console.log(`    agentctl replay once per tape: ${fmt(perTape, 0)} ms each → ${fmt(replaySeconds, 1)} s for the corpus (×${fmt(replaySeconds / ciSeconds, 1)} the time of ci)`);

  const ciLong = [];
  const replayLong = [];
  for (let i = 0; i < 3; i++) {
    const c = await timed([BIN, 'ci', long, '--reporter', 'json:' + join(dir, 'long.json')]);
    if (c.code !== 0) throw new Error(`agentctl ci (long) exited ${c.code}: ${c.stdout}`);
    ciLong.push(c.ms);
    const r = await timed([BIN, 'replay', long, '--no-save', '--quiet', '--no-tui']);
    if (r.code !== 0) throw new Error(`agentctl replay (long) exited ${r.code}: ${r.stderr}`);
    replayLong.push(r.ms);
  }
  const ratio = Math.min(...ciLong) / Math.min(...replayLong);
  console.log(`  one ${LONG}-step tape: ci ${fmt(Math.min(...ciLong) / 1000)} s, replay ${fmt(Math.min(...replayLong) / 1000)} s → ×${fmt(ratio)} (budget ×${TARGET_LONG_RATIO})`);

  const results = [
    { name: `${TAPES} × ${STEPS}-step tapes, agentctl ci`, value: Number(fmt(ciSeconds)), target: TARGET_S, unit: 's' },
    { name: `${TAPES} × ${STEPS}-step tapes, agentctl replay per tape (projected)`, value: Number(fmt(replaySeconds, 1)), unit: 's', info: true },
    { name: `one ${LONG}-step tape, ci ÷ replay`, value: Number(fmt(ratio)), target: TARGET_LONG_RATIO, unit: '×' },
  ];
  console.log(`bench-result ${JSON.stringify({ bench: 'ci', unit: 's', target: TARGET_S, higherIsBetter: false, results })}`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
