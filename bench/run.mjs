// Runs every bench/*.bench.mjs, one after another, each in its own Node process so that one
// benchmark's JIT state and heap do not colour the next. Output passes straight through; lines of
// the form `bench-result {json}` are collected into a summary at the end. Exit code 1 if any
// benchmark process failed. Benchmarks import ../dist, so this builds nothing: `npm run build` first.
//
// The result line a benchmark may print (see BENCHMARKS.md):
//   bench-result {"bench":"name","unit":"ops/s","target":200000,"higherIsBetter":true,
//                 "results":[{"name":"variant","value":123456, ...anything else}]}
//
// `target` may also be given per result (it then wins over the report's), for a benchmark that
// measures against more than one budget.
//
//   node bench/run.mjs              every benchmark
//   node bench/run.mjs guardrails   only those whose file name contains "guardrails"
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
/** Node options a benchmark needs (tui: a full GC before each heap reading). */
const NODE_FLAGS = { 'tui.bench.mjs': ['--expose-gc'] };
const filters = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.mjs'))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();

if (!existsSync(join(here, '..', 'dist', 'index.js'))) {
  console.error('bench: dist/index.js not found; run `npm run build` first');
  process.exit(1);
}
if (files.length === 0) {
  console.error(`bench: no benchmark matches ${filters.join(' ')}`);
  process.exit(1);
}

/** Run one benchmark file; resolve with its exit code and the results it reported. */
function run(file) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...(NODE_FLAGS[file] ?? []), join(here, file)], { stdio: ['ignore', 'pipe', 'inherit'] });
    const results = [];
    let pending = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (line.startsWith('bench-result ')) results.push(JSON.parse(line.slice('bench-result '.length)));
        else console.log(line);
      }
    });
    child.on('close', (code) => {
      if (pending !== '') console.log(pending);
      resolve({ file, code: code ?? 1, results });
    });
  });
}

const outcomes = [];
for (const file of files) {
  console.log(`\n▶ ${file}`);
  outcomes.push(await run(file));
}

console.log('\nsummary');
for (const { file, code, results } of outcomes) {
  if (code !== 0) {
    console.log(`  ${file}: FAILED (exit ${code})`);
    continue;
  }
  if (results.length === 0) console.log(`  ${file}: ok (no result line)`);
  for (const report of results) {
    for (const r of report.results ?? []) {
      console.log(`  ${report.bench}/${r.name}: ${r.value.toLocaleString('en-US')} ${report.unit}${verdict(report, r)}`);
    }
  }
}
function verdict(report, result) {
  const target = typeof result.target === 'number' ? result.target : report.target;
  if (typeof target !== 'number') return '';
  const higher = report.higherIsBetter !== false;
  const met = higher ? result.value >= target : result.value <= target;
  return `  ${met ? 'meets' : 'MISSES'} target ${higher ? '≥' : '≤'} ${target.toLocaleString('en-US')}`;
}

process.exitCode = outcomes.some((o) => o.code !== 0) ? 1 : 0;
