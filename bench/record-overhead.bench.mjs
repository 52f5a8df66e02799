// Recording overhead per LLM call (BENCHMARKS.md § "Recording overhead"), budget: the
// loop's wait on the recorder per call, at p50 and at p99, ≤ 2× the disk's own single-fdatasync
// p50/p99 of 1 KB measured in the same run.
//
// A local OpenAI-compatible HTTP server (node:http on 127.0.0.1) answers at once: a distinct
// read_file call per step, then a final answer. The same loop — runLoop from ../dist with the real
// OpenAiLlm client and a ToolHost whose executor answers at once — runs either unrecorded (events
// are consumed and dropped) or recorded, the way `agentctl record` does it: every event through
// RunRecorder.write into a TapeStore (LevelDB in a temp dir, behind the run's write-ahead journal:
// LLM responses fdatasync'd there before the loop goes on, src/tape/journal.ts). Runs alternate
// between the two so that machine load hits both alike. The process's helper threads (V8's workers,
// the thread pool) run at the lowest priority, as in `agentctl record` (src/cli/helper-threads.ts),
// for both variants.
//
// 60 runs of 20 calls: 1,200 recorded calls (the disk floor gets 2,400 samples). With 600 calls the
// p99 would be the 6th-slowest call, and one slow sync more or less would move it by a factor of two.
//
// Two figures per LLM call (one loop iteration):
//   - write wait: the time the loop spends awaiting RunRecorder.write for that iteration's events
//     (the overhead itself, measured directly);
//   - iteration time, recorded vs unrecorded (the same overhead seen end to end, with the noise of
//     the HTTP round trip in it).
// The write wait is also split by what was awaited (the synced LLM response, the rest).
//
// The floor set by the disk: after each pair of runs a child process appends 1 KB to a file in the
// same temp dir and fdatasyncs it, FLOOR_PER_ROUND times, with synchronous calls (no event loop, no
// thread pool: the disk's own cost). Interleaved with the runs, so it sees the same machine load.
//
// The same child then makes FLOOR_PER_ROUND more of those syncs one at a time, each after the disk
// was left idle as long as the recorder leaves it between its syncs (the median time from one synced
// reply to the next in the recorded runs so far): the spaced floor, context, not the budget: a sync
// that comes alone can cost a little more than one that follows another at once, which the tight
// loop of the disk floor would hide (BENCHMARKS.md, "Recording overhead").
//
// Context too: the in-loop floor. The unrecorded loop itself appends 1 KB to a file and
// fdatasyncs it (the same system calls) at each model reply — where the recorder syncs — and that
// time is left out of its iteration times. It is what one durable write costs at that point of a
// running loop (event loop and HTTP active, the process not in a tight loop of syncs), which can be
// well above the child's floor on a busy machine (BENCHMARKS.md, "Recording overhead").
//
//   node bench/run.mjs record-overhead
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { closeSync, fdatasyncSync, openSync, writeSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseConfig } from '../dist/agent/load-config.js';
import { runLoop } from '../dist/agent/loop.js';
import { buildRegistry } from '../dist/agent/tool-registry.js';
import { lowerHelperThreads } from '../dist/cli/helper-threads.js';
import { seededRandom, systemClock } from '../dist/core/clock.js';
import { createRedactor } from '../dist/core/redact.js';
import { OpenAiLlm } from '../dist/llm/openai-llm.js';
import { RunRecorder } from '../dist/tape/run-recorder.js';
import { TapeStore } from '../dist/tape/tape-store.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TARGET_RATIO = 2;
const STEPS = Number(process.env.BENCH_RECORD_STEPS ?? 20);
const RUNS = Number(process.env.BENCH_RECORD_RUNS ?? 60);
const WARMUP = 3;
const FLOOR_PER_ROUND = Number(process.env.BENCH_RECORD_FLOOR ?? 40);

/** The scripted server: the number of assistant messages in the request says which step it is. */
function startServer(steps) {
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const request = JSON.parse(body);
      const step = request.messages.filter((m) => m.role === 'assistant').length;
      const message =
        step < steps
          ? {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: `call_${step}`, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: 'src/main.ts', offset: step * 40, limit: 40 }) } }],
          }
          : { role: 'assistant', content: 'Read the whole file.' };
      const text = JSON.stringify({
        id: `chatcmpl-${step}`, object: 'chat.completion', created: 1_700_000_000, model: request.model,
        choices: [{ index: 0, message, finish_reason: step < steps ? 'tool_calls' : 'stop', logprobs: null }],
        usage: { prompt_tokens: 100 + step * 60, completion_tokens: 20, total_tokens: 120 + step * 60 },
      });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function toolHost(registry) {
  return {
    lookup: (name) => registry.spec(name),
    definitions: () => registry.definitions(),
    execute: async (_call, args) => ({ status: 'ok', output: `// lines ${args.offset + 1}-${args.offset + 40} of src/main.ts\n${'const x = 1;\n'.repeat(40)}`, durationMs: 0.05 }),
    policies: [],
  };
}

/**
 * One run; returns per-iteration times and (recorded) per-iteration write waits, in ms. Unrecorded,
 * with `probeFd`: the in-loop floor, a 1 KB append+fdatasync at each reply (left out of the iteration time).
 */
async function oneRun({ baseURL, config, registry, store, probeFd }) {
  const llm = new OpenAiLlm({ baseURL, apiKey: 'not-needed' });
  const deps = { llm, tools: toolHost(registry), clock: systemClock, random: seededRandom(config.seed) };
  const task = 'read src/main.ts page by page';
  const recorder = store === undefined
    ? undefined
    : await RunRecorder.start(store, { kind: 'record', task, model: config.model, config: { ...config }, seed: config.seed }, createRedactor({}));
  const iterations = [];
  const waits = [];
  const responseWaits = [];
  const inLoop = [];
  /** From the end of one synced reply to the start of the next: how long the recorder leaves the disk idle. */
  const syncGaps = [];
  let lastSynced = null;
  const probeBlock = Buffer.alloc(1024, 120);
  let iterationStart = null;
  let wait = 0;
  const loop = runLoop({ task, config }, deps);
  let result;
  for (let next = await loop.next(); ; next = await loop.next()) {
    if (next.done) {
      result = next.value;
      break;
    }
    const event = next.value;
    if (event.type === 'llm_request') {
      const now = performance.now();
      if (iterationStart !== null) {
        iterations.push(now - iterationStart);
        waits.push(wait);
      }
      iterationStart = now;
      wait = 0;
    }
    if (probeFd !== undefined && event.type === 'llm_response') {
      const before = performance.now();
      writeSync(probeFd, probeBlock);
      fdatasyncSync(probeFd);
      const took = performance.now() - before;
      inLoop.push(took);
      iterationStart += took;
    }
    if (recorder !== undefined) {
      const before = performance.now();
      await recorder.write(event);
      const after = performance.now();
      const took = after - before;
      wait += took;
      if (event.type === 'llm_response') {
        responseWaits.push(took);
        if (lastSynced !== null) syncGaps.push(before - lastSynced);
        lastSynced = after;
      }
    }
  }
  if (recorder !== undefined) await recorder.finish({ finalState: result.state, totals: result.totals });
  if (result.state !== 'COMPLETED') throw new Error(`run ended ${result.state}: ${result.reason}`);
  return { iterations, waits, responseWaits, inLoop, syncGaps };
}

/**
 * What one durable append costs the disk: 1 KB appended to a file and fdatasync'd, `n` times, in a
 * child process. `direct`: synchronous system calls, the disk's own cost. `node`: the same through
 * fs.promises (write, then datasync, each a trip through libuv's thread pool), which is what any
 * Node program pays for it; context for the first. `spaced`: direct syncs one at a time, `gapMs` apart
 * (the disk idle in between), as the recorder makes them.
 */
function syncFloor(path, n, gapMs) {
  const child = `
    const { openSync, writeSync, fdatasyncSync, closeSync } = require('node:fs');
    const { open } = require('node:fs/promises');
    const { performance } = require('node:perf_hooks');
    const [path, n, gapMs] = [process.argv[1], Number(process.argv[2]), Number(process.argv[3])];
    const block = Buffer.alloc(1024, 120);
    const idle = new Int32Array(new SharedArrayBuffer(4));
    (async () => {
      const direct = [];
      const node = [];
      const spaced = [];
      const fd = openSync(path, 'a');
      const file = await open(path + '.node', 'a');
      for (let i = 0; i < n; i++) {
        let before = performance.now();
        writeSync(fd, block);
        fdatasyncSync(fd);
        direct.push(performance.now() - before);
        before = performance.now();
        await file.write(block);
        await file.datasync();
        node.push(performance.now() - before);
      }
      const alone = openSync(path + '.spaced', 'a');
      for (let i = 0; i < n; i++) {
        Atomics.wait(idle, 0, 0, gapMs);
        const before = performance.now();
        writeSync(alone, block);
        fdatasyncSync(alone);
        spaced.push(performance.now() - before);
      }
      closeSync(fd);
      closeSync(alone);
      await file.close();
      process.stdout.write(JSON.stringify({ direct, node, spaced }));
    })();
  `;
  return JSON.parse(execFileSync(process.execPath, ['-e', child, path, String(n), String(gapMs)], { encoding: 'utf8' }));
}

const quantile = (xs, q) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
};

const dir = await mkdtemp(join(tmpdir(), 'agentctl-bench-record-'));
const server = await startServer(STEPS);
const store = await TapeStore.open(join(dir, 'store'));
// As `agentctl record` does once its store is open.
const lowered = lowerHelperThreads();
const probeFd = openSync(join(dir, 'in-loop-probe'), 'a');
try {
  const baseURL = `http://127.0.0.1:${server.address().port}/v1`;
  const config = parseConfig({ model: 'bench-model', tools: ['read_file'], limits: { maxSteps: STEPS + 5 } }, 'bench config');
  const { registry } = await buildRegistry(config, ROOT);
  const plain = { iterations: [], waits: [] };
  const recorded = { iterations: [], waits: [], responseWaits: [] };
  const floor = { direct: [], node: [], inLoop: [], spaced: [] };
  const gaps = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const a = await oneRun({ baseURL, config, registry, probeFd });
    const b = await oneRun({ baseURL, config, registry, store });
    gaps.push(...b.syncGaps);
    const f = syncFloor(join(dir, 'fsync-probe'), FLOOR_PER_ROUND, quantile(gaps, 0.5));
    if (i < WARMUP) continue;
    plain.iterations.push(...a.iterations);
    recorded.iterations.push(...b.iterations);
    recorded.waits.push(...b.waits);
    recorded.responseWaits.push(...b.responseWaits);
    floor.direct.push(...f.direct);
    floor.node.push(...f.node);
    floor.spaced.push(...f.spaced);
    floor.inLoop.push(...a.inLoop);
  }
  const fmt = (n) => n.toFixed(3);
  const q = (xs) => ({ p50: quantile(xs, 0.5), p90: quantile(xs, 0.9), p99: quantile(xs, 0.99), max: Math.max(...xs) });
  const w = q(recorded.waits);
  const ip = q(plain.iterations);
  const ir = q(recorded.iterations);
  const rw = q(recorded.responseWaits);
  const f = q(floor.direct);
  const fn = q(floor.node);
  const fl = q(floor.inLoop);
  const fs = q(floor.spaced);
  const s50 = w.p50 / fs.p50;
  const s99 = w.p99 / fs.p99;
  const r50 = w.p50 / f.p50;
  const r99 = w.p99 / f.p99;
  const meets = (r) => (r <= TARGET_RATIO ? 'meets' : 'MISSES');
  console.log(`recording overhead per LLM call: ${RUNS} runs × ${STEPS} steps per variant (${recorded.waits.length} calls), node ${process.version}`);
  console.log(`  helper threads at the lowest priority, as in agentctl record: ${lowered}${lowered === 0 ? ' (not done on this platform)' : ''}`);
  console.log(`  write wait per call (recorded)   p50 ${fmt(w.p50)} ms  p90 ${fmt(w.p90)} ms  p99 ${fmt(w.p99)} ms  max ${fmt(w.max)} ms`);
  console.log(`    of which the synced response  p50 ${fmt(rw.p50)} ms  p90 ${fmt(rw.p90)} ms  p99 ${fmt(rw.p99)} ms  max ${fmt(rw.max)} ms`);
  console.log(`  disk floor: 1 KB write+fdatasync p50 ${fmt(f.p50)} ms  p90 ${fmt(f.p90)} ms  p99 ${fmt(f.p99)} ms  max ${fmt(f.max)} ms  (${floor.direct.length} samples, system calls)`);
  console.log(`    the same through fs.promises   p50 ${fmt(fn.p50)} ms  p90 ${fmt(fn.p90)} ms  p99 ${fmt(fn.p99)} ms  max ${fmt(fn.max)} ms  (thread pool)`);
  console.log(`  wait / disk floor                p50 ${r50.toFixed(2)}×  ${meets(r50)} ≤ ${TARGET_RATIO}×   p99 ${r99.toFixed(2)}×  ${meets(r99)} ≤ ${TARGET_RATIO}×`);
  console.log(`  spaced floor: one sync at a time, ${fmt(quantile(gaps, 0.5))} ms apart (the recorder's median gap)  p50 ${fmt(fs.p50)} ms  p90 ${fmt(fs.p90)} ms  p99 ${fmt(fs.p99)} ms  max ${fmt(fs.max)} ms  (${floor.spaced.length} samples)`);
  console.log(`  wait / spaced floor (context)    p50 ${s50.toFixed(2)}×  p99 ${s99.toFixed(2)}×`);
  console.log(`  wait / fs.promises floor         p50 ${(w.p50 / fn.p50).toFixed(2)}×  p99 ${(w.p99 / fn.p99).toFixed(2)}×`);
  console.log(`  in-loop floor (context): 1 KB write+fdatasync by the unrecorded loop at each reply  p50 ${fmt(fl.p50)} ms  p90 ${fmt(fl.p90)} ms  p99 ${fmt(fl.p99)} ms  (${floor.inLoop.length} samples)`);
  console.log(`  wait / in-loop floor             p50 ${(w.p50 / fl.p50).toFixed(2)}×  p99 ${(w.p99 / fl.p99).toFixed(2)}×`);
  console.log(`  iteration, unrecorded            p50 ${fmt(ip.p50)} ms  p90 ${fmt(ip.p90)} ms  p99 ${fmt(ip.p99)} ms  max ${fmt(ip.max)} ms`);
  console.log(`  iteration, recorded              p50 ${fmt(ir.p50)} ms  p90 ${fmt(ir.p90)} ms  p99 ${fmt(ir.p99)} ms  max ${fmt(ir.max)} ms`);
  console.log(`  recorded − unrecorded            p50 ${fmt(ir.p50 - ip.p50)} ms  p99 ${fmt(ir.p99 - ip.p99)} ms`);
  const round = (n) => Number(n.toFixed(3));
  const results = [
    { name: 'write wait p50 / fdatasync p50', value: round(r50), waitP50: round(w.p50), floorP50: round(f.p50), calls: recorded.waits.length },
    { name: 'write wait p99 / fdatasync p99', value: round(r99), waitP99: round(w.p99), floorP99: round(f.p99), max: round(w.max) },
    { name: 'write wait p50 / fs.promises write+datasync p50', value: round(w.p50 / fn.p50), floorP50: round(fn.p50) },
    { name: 'write wait p99 / fs.promises write+datasync p99', value: round(w.p99 / fn.p99), floorP99: round(fn.p99) },
  ];
  console.log(`bench-result ${JSON.stringify({ bench: 'record-overhead', unit: '× fdatasync', target: TARGET_RATIO, higherIsBetter: false, results })}`);
  // Context, not budget items: the end-to-end difference, the synced response and the disk itself.
  const detail = [
    { name: 'iteration p99 difference', value: round(ir.p99 - ip.p99), p50Difference: round(ir.p50 - ip.p50), unrecordedP99: round(ip.p99) },
    { name: 'synced response write p99', value: round(rw.p99), p50: round(rw.p50) },
    { name: 'disk floor, 1 KB write+fdatasync p99', value: round(f.p99), p50: round(f.p50), samples: floor.direct.length },
    { name: 'spaced 1 KB write+fdatasync p99', value: round(fs.p99), p50: round(fs.p50), samples: floor.spaced.length, gapMs: round(quantile(gaps, 0.5)), waitRatioP50: round(s50), waitRatioP99: round(s99) },
    { name: 'fs.promises 1 KB write+datasync p99', value: round(fn.p99), p50: round(fn.p50), samples: floor.node.length },
    { name: 'in-loop 1 KB write+fdatasync p99', value: round(fl.p99), p50: round(fl.p50), samples: floor.inLoop.length },
  ];
  console.log(`bench-result ${JSON.stringify({ bench: 'record-overhead-detail', unit: 'ms', results: detail })}`);
} finally {
  await store.close();
  closeSync(probeFd);
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
}
