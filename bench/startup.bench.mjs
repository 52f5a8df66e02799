// Start-up time of the CLI (BENCHMARKS.md § "Start-up"), budgets: `agentctl --help`, `ls`
// and `show` each take ≤ 1.5× the wall time of `node -e 0`; a replay of the 5-step demo tape file
// (`--no-save --quiet`: no store is opened) ≤ 2.5×.
//
// Every command is a fresh process, timed from spawn to exit. Rounds interleave the commands (so
// load on a shared machine hits them alike); three warm-up rounds fill the compile cache that
// bin/agentctl.js enables, then the median of ROUNDS rounds per command. `ls` runs once against a
// store directory that does not exist (nothing is created) and once against a temp store holding
// one run, the golden demo tape imported with `agentctl import`, as `show` does; the replay reads
// the demo tape file itself.
//
//   node bench/run.mjs startup
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'agentctl.js');
const TAPE = join(ROOT, 'tapes', 'demo-loop.tape.jsonl');
const ROUNDS = Number(process.env.BENCH_STARTUP_ROUNDS ?? 21);
const WARMUP = 3;

function run(args) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, ms: performance.now() - started, output }));
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];

const dir = await mkdtemp(join(tmpdir(), 'agentctl-bench-startup-'));
try {
  const store = join(dir, 'store');
  const imported = await run([BIN, 'import', TAPE, '--store', store]);
  if (imported.code !== 0) throw new Error(`agentctl import failed: ${imported.output}`);

  const commands = [
    { name: 'node -e 0', args: ['-e', '0'] },
    { name: 'agentctl --help', args: [BIN, '--help'], target: 1.5 },
    { name: 'agentctl ls (no store)', args: [BIN, 'ls', '--store', join(dir, 'no-store')], target: 1.5 },
    { name: 'agentctl ls (a store)', args: [BIN, 'ls', '--store', store], target: 1.5 },
    { name: 'agentctl show <run>', args: [BIN, 'show', 'demo', '--store', store], target: 1.5 },
    { name: 'agentctl replay <demo tape>', args: [BIN, 'replay', TAPE, '--no-save', '--quiet', '--store', join(dir, 'no-store')], target: 2.5 },
  ];
  const times = new Map(commands.map((c) => [c.name, []]));
  for (let round = 0; round < WARMUP + ROUNDS; round++) {
    for (const command of commands) {
      const result = await run(command.args);
      if (result.code !== 0) throw new Error(`${command.name} exited ${result.code}: ${result.output}`);
      if (round >= WARMUP) times.get(command.name).push(result.ms);
    }
  }

  const base = median(times.get('node -e 0'));
  const fastestBase = Math.min(...times.get('node -e 0'));
  const fmt = (n, d = 1) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  console.log(`start-up, median of ${ROUNDS} interleaved rounds after ${WARMUP} warm-up rounds, node ${process.version}`);
  const results = [];
  for (const command of commands) {
    const ms = median(times.get(command.name));
    const ratio = ms / base;
    const isBase = command.name === 'node -e 0';
    // The fastest runs too, for context: the work is the same every round, so their ratio is the
    // one least moved by other load on a shared machine. The verdict stays on the medians.
    const fastest = Math.min(...times.get(command.name));
    console.log(
      `  ${command.name.padEnd(28)} ${fmt(ms).padStart(7)} ms (p90 ${fmt(quantile(times.get(command.name), 0.9))}, fastest ${fmt(fastest)})` +
        (isBase ? '' : `  ×${ratio.toFixed(2)} of node -e 0 (fastest ×${(fastest / fastestBase).toFixed(2)})  ${ratio <= command.target ? 'meets' : 'MISSES'} ≤ ${command.target}×`),
    );
    if (!isBase) {
      results.push({
        name: command.name, value: Number(ratio.toFixed(2)), target: command.target, ms: Number(ms.toFixed(1)), nodeMs: Number(base.toFixed(1)),
        fastestRatio: Number((fastest / fastestBase).toFixed(2)),
      });
    }
  }
  console.log(`bench-result ${JSON.stringify({ bench: 'startup', unit: '× node -e 0', target: 1.5, higherIsBetter: false, results })}`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
