// Tape size of a long run (BENCHMARKS.md § "Tape size"), budget: a tape grows linearly with steps
// and is ≤ 1.5× the bytes of the model's responses plus the new messages of each request.
//
// The runs are the synthetic recordings of replay.bench.mjs (one distinct read_file per step, real
// loop, real tape writer). "Payload" is what a tape cannot do without: the JSON of every
// `llm_response.response`, plus the JSON of every request's new messages (`llm_request.append`: the
// delta since the previous request). The ratio is tape bytes / payload bytes; bytes per step at
// growing lengths show whether growth is linear. Two workloads: one-line tool outputs (~40 bytes,
// where per-event metadata dominates) and ~2 KB outputs (a page of a source file, closer to a real
// agent's reads).
//
//   node bench/run.mjs tape-size
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordSyntheticTape } from './replay.bench.mjs';

const TARGET_RATIO = 1.5;
const SIZES = (process.env.BENCH_TAPE_STEPS ?? '100,200,400,800').split(',').map(Number);
const WORKLOADS = [
  { name: 'one-line outputs', outputBytes: 0 },
  { name: '2 KB outputs', outputBytes: 2048 },
];

const fmt = (n, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const dir = await mkdtemp(join(tmpdir(), 'agentctl-bench-tape-size-'));
const results = [];
const largest = new Map();
try {
  console.log(`tape size of a synthetic N-step run (one distinct read_file per step), node ${process.version}`);
  for (const workload of WORKLOADS) for (const steps of SIZES) {
    if (steps === SIZES[0]) console.log(` ${workload.name}:`);
    const run = await recordSyntheticTape(join(dir, `synthetic-${steps}.tape.jsonl`), steps, { outputBytes: workload.outputBytes });
    await rm(join(dir, `synthetic-${steps}.tape.jsonl`), { force: true });
    const payload = run.responseBytes + run.appendBytes;
    const ratio = run.bytes / payload;
    const withoutCheckpoints = run.bytes - (run.bytesByType.checkpoint ?? 0);
    console.log(
      `  ${fmt(steps).padStart(5)} steps: tape ${fmt(run.bytes / 1e6, 2).padStart(7)} MB (${fmt(run.bytes / steps).padStart(7)} B/step), ` +
        `payload ${fmt(payload / 1e6, 2)} MB (${fmt(payload / steps)} B/step) → ×${ratio.toFixed(2)} ${ratio <= TARGET_RATIO ? 'meets' : 'MISSES'} ≤ ${TARGET_RATIO}×; ` +
        `without checkpoint events ×${(withoutCheckpoints / payload).toFixed(2)}`,
    );
    results.push({
      name: `${workload.name}, ${steps} steps`, value: Number(ratio.toFixed(2)), steps, tapeBytes: run.bytes, payloadBytes: payload,
      bytesPerStep: Math.round(run.bytes / steps), ratioWithoutCheckpoints: Number((withoutCheckpoints / payload).toFixed(2)),
    });
    largest.set(workload.name, { steps, run });
  }
  for (const [name, { steps, run }] of largest) {
    console.log(`  where the bytes go, ${name}, ${fmt(steps)} steps:`);
    const entries = Object.entries(run.bytesByType).sort((a, b) => b[1] - a[1]);
    for (const [type, bytes] of entries) {
      console.log(`    ${type.padEnd(13)} ${fmt(bytes).padStart(13)} B  ${fmt((100 * bytes) / run.bytes, 1).padStart(5)} %  ${fmt(bytes / steps).padStart(8)} B/step`);
    }
  }
  for (const workload of WORKLOADS) {
    const rows = results.filter((r) => r.name.startsWith(`${workload.name},`));
    if (rows.length < 2) continue;
    const first = rows[0];
    const last = rows.at(-1);
    const exponent = Math.log(last.tapeBytes / first.tapeBytes) / Math.log(last.steps / first.steps);
    console.log(`  ${workload.name}: from ${first.steps} to ${last.steps} steps, tape bytes ∝ N^${exponent.toFixed(2)} (linear would be N^1.00)`);
  }
  console.log(`bench-result ${JSON.stringify({ bench: 'tape-size', unit: '× payload', target: TARGET_RATIO, higherIsBetter: false, results })}`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
