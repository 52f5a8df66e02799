// Guardrail gate throughput (BENCHMARKS.md § "Guardrail gates").
//
// Builds one realistic 1,000-call turn (paths, searches, shell commands, writes, a mix of repeats
// and failures) and measures how many gate evaluations per second the engine sustains:
//   - gates:    the gate classes called directly, as an embedding harness would;
//   - pipeline: runToolCalls, the async-generator pipeline the agent loop uses, with an executor
//               that answers at once (so only guardrail cost is measured).
// An evaluation is one DecisionRecord produced. Run `npm run build` first: this imports ../dist.
import { performance } from 'node:perf_hooks';
import { LoopGuard, LoopGuardrails, ReplayControl, runToolCalls } from '../dist/entry/guardrails.js';
// Not in the public API (which offers parseToolCall, with a key cached per call object): the bench
// keys every call afresh, as the first sight of a call costs.
import { parseCallArguments } from '../dist/guardrails/call-key.js';

const TARGET_PER_SECOND = 200_000;
const CALLS_PER_TURN = 1_000;
const CALLS_PER_STEP = 5;
const MIN_SECONDS = 2;

/** A small seeded generator, so every run measures the same turn. */
function lcg(seed) {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

const SPECS = new Map(
  [
    ['read_file', true, false], ['list_dir', true, false], ['grep_files', true, false], ['web_search', true, false],
    ['write_file', true, true], ['edit_file', false, true], ['exec_shell', false, true],
  ].map(([name, idempotent, mutating]) => [name, { name, description: name, parameters: {}, idempotent, mutating, timeoutMs: 30_000 }]),
);
const lookup = (name) => SPECS.get(name);

/** The turn: OpenAI-shaped tool calls (JSON-string arguments) plus each call's scripted outcome. */
function buildTurn() {
  const rnd = lcg(20_240_601);
  const pick = (list) => list[Math.floor(rnd() * list.length)];
  const dirs = ['src', 'src/agent', 'src/guardrails', 'src/tape', 'test', 'docs'];
  const files = ['index.ts', 'loop.ts', 'replay-control.ts', 'tape-store.ts', 'README.md', 'config.json', 'schema.ts'];
  const words = ['TODO', 'callKey', 'export class', 'async function', 'import .* from', 'FIXME', 'deprecated'];
  const commands = ['npm test', 'npx tsc --noEmit', 'git status --short', 'ls -la src', 'npm run lint -- --fix', 'node bench/run.mjs'];
  const fresh = () => {
    const path = `${pick(dirs)}/${pick(files)}`;
    switch (pick(['read', 'read', 'read', 'grep', 'grep', 'list', 'search', 'shell', 'write', 'edit'])) {
      case 'read': return ['read_file', rnd() < 0.5 ? { path } : { path, offset: Math.floor(rnd() * 20) * 100, limit: 100 }];
      case 'grep': return ['grep_files', { pattern: pick(words), path: pick(dirs), regex: rnd() < 0.3, maxResults: 50 }];
      case 'list': return ['list_dir', { path: pick(dirs), recursive: rnd() < 0.2 }];
      case 'search': return ['web_search', { q: `${pick(words)} ${pick(['typescript', 'node 20', 'leveldb', 'vitest'])}` }];
      case 'shell': return ['exec_shell', { command: pick(commands), cwd: '.', timeoutMs: 120_000 }];
      case 'write': return ['write_file', { path, content: `// generated\n${pick(words)}\n`.repeat(1 + Math.floor(rnd() * 20)) }];
      default: return ['edit_file', { path, find: pick(words), replace: pick(words), all: false }];
    }
  };
  const seen = [];
  const calls = [];
  for (let i = 0; i < CALLS_PER_TURN; i++) {
    // About a third of the calls repeat an earlier one (the loops the guardrails exist for).
    const [name, args] = seen.length > 0 && rnd() < 0.35 ? pick(seen) : fresh();
    seen.push([name, args]);
    const status = rnd() < 0.12 ? 'error' : rnd() < 0.03 ? 'timeout' : 'ok';
    calls.push({ call: { id: `call_${i}`, type: 'function', function: { name, arguments: JSON.stringify(args) } }, status });
  }
  return calls;
}

const turn = buildTurn();
const steps = [];
for (let i = 0; i < turn.length; i += CALLS_PER_STEP) steps.push(turn.slice(i, i + CALLS_PER_STEP));
const statusById = new Map(turn.map((c) => [c.call.id, c.status]));

/** The gates called directly, in the order of docs/guardrails.md §5. Returns the number of records made. */
function runGates() {
  const replay = new ReplayControl();
  const guard = new LoopGuard();
  const session = new LoopGuardrails();
  let evaluations = 0;
  steps.forEach((step, stepIndex) => {
    const parsed = step.map(({ call }) => parseCallArguments(call.function.name, call.function.arguments));
    session.observeToolCalls(step.map(({ call }, i) => ({ name: call.function.name, arguments: parsed[i].ok ? parsed[i].args : '' })));
    evaluations += 1;
    step.forEach(({ call, status }, i) => {
      const tool = call.function.name;
      const p = parsed[i];
      evaluations += 1; // arguments
      if (!p.ok) return;
      const spec = lookup(tool);
      evaluations += 1;
      if (guard.evaluateAttempt(tool, p.args, { key: p.key }).decision.kind === 'block') return;
      evaluations += 1;
      if (replay.evaluate(tool, p.args, spec, { key: p.key }).skip) return;
      const context = { step: stepIndex, callId: call.id, key: p.key };
      if (status === 'ok') replay.recordSuccess(tool, p.args, context);
      else if (status === 'timeout') replay.recordTimeout(tool, p.args, context);
      else replay.recordFailure(tool, p.args, context);
      evaluations += 1;
      if (guard.evaluateOutcome(tool, status === 'ok').decision.kind === 'halt') guard.resetFailures();
      if (status === 'ok' && spec?.mutating) {
        guard.noteStateChanged(p.key);
        replay.noteStateChanged(p.key);
      }
    });
  });
  return evaluations;
}

const execute = async (call) => ({ status: statusById.get(call.id), output: 'ok' });

/** The same turn through runToolCalls. Returns the number of decision records yielded. */
async function runPipeline() {
  const replay = new ReplayControl();
  const guard = new LoopGuard();
  const session = new LoopGuardrails();
  let evaluations = 0;
  for (const [stepIndex, step] of steps.entries()) {
    const calls = step.map((s) => s.call);
    session.observeToolCalls(calls.map((c) => ({ name: c.function.name, arguments: c.function.arguments })));
    evaluations += 1;
    for await (const item of runToolCalls(calls, { lookup, replay, guard, execute, step: stepIndex })) {
      if (item.kind === 'decision') evaluations += 1;
      else if (item.kind === 'end' && item.outcome.halt !== null) guard.resetFailures();
    }
  }
  return evaluations;
}

async function measure(name, runTurn) {
  for (let i = 0; i < 20; i++) await runTurn(); // warm up the JIT
  let turns = 0;
  let evaluations = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < MIN_SECONDS * 1000) {
    evaluations += await runTurn();
    turns += 1;
    elapsed = performance.now() - start;
  }
  const seconds = elapsed / 1000;
  return {
    name,
    value: Math.round(evaluations / seconds),
    turns,
    evaluationsPerTurn: Math.round(evaluations / turns),
    evaluationsPerSecond: Math.round(evaluations / seconds),
    callsPerSecond: Math.round((turns * CALLS_PER_TURN) / seconds),
    msPerTurn: Number((elapsed / turns).toFixed(3)),
  };
}

const results = [await measure('gates', runGates), await measure('pipeline', runPipeline)];
const fmt = (n) => n.toLocaleString('en-US');
console.log(`guardrail gates — one ${fmt(CALLS_PER_TURN)}-call turn (${steps.length} steps of ${CALLS_PER_STEP}), node ${process.version}`);
for (const r of results) {
  const verdict = r.evaluationsPerSecond >= TARGET_PER_SECOND ? 'meets' : 'MISSES';
  console.log(
    `  ${r.name.padEnd(9)} ${fmt(r.evaluationsPerSecond).padStart(11)} evaluations/s  ${fmt(r.callsPerSecond).padStart(9)} calls/s  ` +
      `${r.msPerTurn} ms/turn  (${r.evaluationsPerTurn} evaluations/turn, ${r.turns} turns)  ${verdict} ≥ ${fmt(TARGET_PER_SECOND)}/s`,
  );
}
// One machine-readable line for bench/run.mjs.
const report = { bench: 'guardrails', unit: 'evaluations/s', target: TARGET_PER_SECOND, higherIsBetter: true, results };
console.log(`bench-result ${JSON.stringify(report)}`);
