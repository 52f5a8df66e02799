// The synthetic run of the terminal UI benchmarks (bench/tui.bench.mjs, bench/tui-open.bench.mjs): an
// N-step run recorded through the library (runLoop from ../dist, a scripted model, a ToolHost that
// answers at once, streamed into a tape file with writeTapeFile). The script mixes what a real run
// has: one or two tool calls per step (read_file, list_dir), multi-line outputs, some failing calls,
// and every 25 steps the same call twice more, which the guardrails skip (duplicate of a success) and
// then block (identical call 3 of 3).
//
//   node bench/tui-tape.mjs <path> <steps>     write one such tape (for trying the UI by hand)
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseConfig } from '../dist/agent/load-config.js';
import { runLoop } from '../dist/agent/loop.js';
import { buildRegistry } from '../dist/agent/tool-registry.js';
import { ManualClock, seededRandom } from '../dist/core/clock.js';
import { TAPE_VERSION } from '../dist/core/run-meta.js';
import { writeTapeFile } from '../dist/tape/tape-file.js';
import { scriptedModel } from './replay.bench.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The tool calls of step i: mostly a distinct read_file; every 25 steps the call before repeated twice. */
function callsFor(i) {
  const m = i % 25;
  if (m === 10 || m === 11) return callsFor(i - (m - 9));
  const read = ['read_file', { path: 'src/generated.ts', offset: i * 10, limit: 5 }];
  if (m === 17) return [read, ['list_dir', { path: `src/module${i}` }]];
  return [read];
}

function scriptedLlm(steps) {
  return scriptedModel(
    steps,
    (i) => {
      const tool_calls = callsFor(i).map(([name, args], j) => ({ id: `call_${i}_${j}`, type: 'function', function: { name, arguments: JSON.stringify(args) } }));
      const content = i % 3 === 0 ? `Reading lines ${i * 10 + 1}–${i * 10 + 5} of src/generated.ts next.` : null;
      return { message: { role: 'assistant', content, tool_calls }, finishReason: 'tool_calls', usage: { inputTokens: 60 + (i % 50), outputTokens: 18 } };
    },
    () => ({ message: { role: 'assistant', content: `Read ${steps} pieces of src/generated.ts; nothing else to do.` }, finishReason: 'stop', usage: { inputTokens: 60, outputTokens: 14 } }),
  );
}

function toolHost(registry) {
  return {
    lookup: (name) => registry.spec(name),
    definitions: () => registry.definitions(),
    policies: [],
    execute: async (call, args) => {
      if (call.function.name === 'list_dir') return { status: 'ok', output: 'index.ts\nmodel.ts\nview.ts\ntests/', durationMs: 0.4 };
      if (args.offset % 500 === 300) return { status: 'error', output: 'EIO: i/o error, read src/generated.ts', durationMs: 0.2 };
      let text = '';
      for (let n = args.offset; n < args.offset + args.limit; n++) text += `export const value${n} = compute(${n}, 'item-${n}'); // line ${n + 1}\n`;
      return { status: 'ok', output: text, durationMs: 0.6 };
    },
  };
}

/** Record the synthetic run into `path`; its meta. */
export async function recordTape(path, steps) {
  const config = parseConfig({ model: 'bench-model', tools: ['read_file', 'list_dir'], seed: 7, limits: { maxSteps: steps + 5 } }, 'bench config');
  const { registry } = await buildRegistry(config, ROOT);
  const task = `read src/generated.ts piece by piece (${steps} pieces)`;
  const loop = runLoop({ task, config }, { llm: scriptedLlm(steps), tools: toolHost(registry), clock: new ManualClock(0), random: seededRandom(config.seed) });
  async function* events() {
    for (let next = await loop.next(); !next.done; next = await loop.next()) yield next.value;
  }
  const id = `01J${String(steps).padStart(23, '0')}`;
  const meta = { id, kind: 'record', name: `tui-bench-${steps}`, createdAt: new Date().toISOString(), task, model: config.model, config: { ...config }, seed: config.seed, status: 'complete', tapeVersion: TAPE_VERSION };
  await writeTapeFile(path, meta, events());
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [path, steps] = process.argv.slice(2);
  if (path === undefined || !(Number(steps) > 0)) {
    console.error('usage: node bench/tui-tape.mjs <path.tape.jsonl> <steps>');
    process.exit(2);
  }
  await recordTape(path, Number(steps));
}
