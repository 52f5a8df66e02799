// Instructions a replay executes per step, counted, not timed: for telling whether a change to the
// replay's code made it do less work when wall time on a shared machine is too noisy to say
// (BENCHMARKS.md, "Counting instructions"). Not one of `npm run bench`'s benchmarks: the targets
// are wall-time ratios, which bench/replay.bench.mjs measures.
//
// Each run is a process under valgrind's callgrind with Node's --single-threaded (V8 then compiles
// and collects garbage on the main thread, so all of a run's work is counted in one place, the same
// on every run: two runs of the same build agree to ~0.1 %). Per-step figures are slopes between
// two tape sizes, as in the replay bench, so start-up cancels out; the parse floor is the replay
// bench's (read and JSON.parse every line), counted the same way. Valgrind hides some CPU features
// (sha-256 runs without the SHA instructions, say), so ratios here are not the wall-time ratios.
//
//   node bench/instructions.mjs                       this checkout: replay --quiet and --json, first read and checked before
//   node bench/instructions.mjs --base ../other       the same for another built checkout too, and the difference
//   node bench/instructions.mjs --steps 1000,5000 --variants quiet
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { recordSyntheticTape } from './replay.bench.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PARSE_FLOOR =
  "const rl = require('node:readline').createInterface({ input: require('node:fs').createReadStream(process.argv[1]), crlfDelay: Infinity });" +
  " rl.on('line', (line) => { if (line !== '') JSON.parse(line); });";
/** What a variant adds to `replay <tape> --no-save`, and whether the tape counts as checked before. */
const VARIANTS = {
  quiet: { flags: ['--quiet'], checked: false },
  json: { flags: ['--json'], checked: false },
  'checked-quiet': { flags: ['--quiet'], checked: true },
  'checked-json': { flags: ['--json'], checked: true },
};

function usage(message) {
  console.error(`bench/instructions: ${message}`);
  console.error('usage: node bench/instructions.mjs [--steps 1000,10000] [--variants quiet,json,checked-quiet,checked-json] [--base <built checkout>]');
  process.exit(2);
}

const { values } = parseArgs({
  options: { steps: { type: 'string', default: '1000,10000' }, variants: { type: 'string', default: Object.keys(VARIANTS).join(',') }, base: { type: 'string' } },
});
const sizes = values.steps.split(',').map(Number);
if (sizes.length !== 2 || !sizes.every((n) => Number.isInteger(n) && n > 0) || sizes[0] >= sizes[1]) usage('--steps takes two step counts, the smaller first');
const variants = values.variants.split(',');
for (const v of variants) if (!(v in VARIANTS)) usage(`unknown variant '${v}'`);
const builds = [['this checkout', ROOT]];
if (values.base !== undefined) {
  const base = resolve(values.base);
  if (!existsSync(join(base, 'bin', 'agentctl.js')) || !existsSync(join(base, 'dist', 'cli-bundle'))) usage(`${base} is not a built agentctl checkout (no bin/agentctl.js or dist/cli-bundle)`);
  builds.push([`base (${values.base})`, base]);
}

/** Run `node --single-threaded ...args` under callgrind; resolve with the instructions it executed. */
function counted(args, env, dir) {
  return new Promise((done, fail) => {
    const prefix = join(dir, `cg-${Math.random().toString(36).slice(2)}`);
    const child = spawn('valgrind', ['--tool=callgrind', `--callgrind-out-file=${prefix}.%p`, process.execPath, '--single-threaded', ...args], {
      env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.on('error', fail);
    child.on('close', async (code) => {
      const files = (await readdir(dir)).filter((f) => join(dir, f).startsWith(`${prefix}.`));
      let total = 0;
      for (const f of files) {
        const text = await readFile(join(dir, f), 'utf8');
        total += Number(/^summary: (\d+)/m.exec(text)?.[1] ?? NaN);
        await rm(join(dir, f));
      }
      if (code !== 0 || !(total > 0)) fail(new Error(`${args.join(' ')}: exit ${code}\n${stderr.slice(-2000)}`));
      else done(total);
    });
  });
}

/** Run the jobs, `width` at a time. */
async function pool(jobs, width) {
  const results = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < jobs.length; i = next++) results[i] = await jobs[i]();
  };
  await Promise.all(Array.from({ length: width }, worker));
  return results;
}

const probe = spawn('valgrind', ['--version'], { stdio: 'ignore' });
const hasValgrind = await new Promise((done) => {
  probe.on('error', () => done(false));
  probe.on('close', (code) => done(code === 0));
});
if (!hasValgrind) {
  console.error('bench/instructions: valgrind is not installed (apt-get install valgrind); nothing counted');
  process.exit(2);
}

const dir = await mkdtemp(join(tmpdir(), 'agentctl-bench-instructions-'));
try {
  const tapes = {};
  for (const steps of sizes) {
    tapes[steps] = join(dir, `synthetic-${steps}.tape.jsonl`);
    await recordSyntheticTape(tapes[steps], steps);
  }
  // Each build checks the tapes once into its own cache, for the "checked before" variants.
  for (const [b, [, root]] of builds.entries()) {
    for (const steps of sizes) {
      await new Promise((done, fail) => {
        const child = spawn(process.execPath, [join(root, 'bin', 'agentctl.js'), 'replay', tapes[steps], '--no-save', '--quiet'], {
          env: { ...process.env, AGENTCTL_CACHE: join(dir, `cache-${b}`) }, stdio: 'ignore',
        });
        child.on('close', (code) => (code === 0 ? done() : fail(new Error(`replay of ${steps} steps with ${root}: exit ${code}`))));
      });
    }
  }
  const jobs = [];
  const keys = [];
  for (const steps of sizes) {
    keys.push(['floor', null, steps]);
    jobs.push(() => counted(['-e', PARSE_FLOOR, tapes[steps]], {}, dir));
    for (const [b, [, root]] of builds.entries()) {
      for (const v of variants) {
        const { flags, checked } = VARIANTS[v];
        keys.push([v, b, steps]);
        jobs.push(() => counted([join(root, 'bin', 'agentctl.js'), 'replay', tapes[steps], '--no-save', ...flags], { AGENTCTL_CACHE: checked ? join(dir, `cache-${b}`) : 'off' }, dir));
      }
    }
  }
  console.log(`counting ${jobs.length} runs under callgrind (${sizes.join(' and ')} steps), ${Math.min(2, availableParallelism())} at a time…`);
  const counts = await pool(jobs, Math.min(2, availableParallelism()));
  const at = (v, b, steps) => counts[keys.findIndex((k) => k[0] === v && k[1] === b && k[2] === steps)];
  const slope = (v, b) => (at(v, b, sizes[1]) - at(v, b, sizes[0])) / (sizes[1] - sizes[0]);
  const floor = slope('floor', null);
  const fmt = (n, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  console.log(`instructions per step (${fmt(sizes[0])} → ${fmt(sizes[1])} steps): the parse floor ${fmt(floor)}`);
  for (const v of variants) {
    const line = builds.map(([name], b) => `${name} ${fmt(slope(v, b))} = ${fmt(slope(v, b) / floor, 2)}× the floor`);
    if (builds.length === 2) line.push(`this checkout − base ${fmt(((slope(v, 0) - slope(v, 1)) / slope(v, 1)) * 100, 1)} %`);
    console.log(`  ${v.padEnd(13)} ${line.join('; ')}`);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
