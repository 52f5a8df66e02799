// A hand-written agent loop on the `openai` SDK, with agentctl's guardrails in front of its tools and
// the whole run recorded onto a tape — the model's calls, the tools' outcomes, and every guardrail
// decision. A model that asks for the same call over and over is stopped where `agentctl run` would
// stop it: the duplicate is skipped, the 3rd identical call blocked, the 4th identical step stopped.
//
//   OPENAI_API_KEY=… node hand-written-loop.mjs [tape]      (default tapes/hand-written-loop.tape.jsonl)
//   npx agentctl view tapes/hand-written-loop.tape.jsonl    (the run, with its decisions)
//
// The tools read the working directory. OPENAI_BASE_URL and MODEL choose the endpoint and the model.
import { readdir, readFile } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import OpenAI from 'openai';
import { createGuardrails, recordOpenAI } from 'agentctl';

const ROOT = process.cwd();

/** A path inside the working directory, or an error the model reads. */
function inside(path) {
  const full = resolve(ROOT, String(path ?? '.'));
  if (full !== ROOT && !full.startsWith(ROOT + sep)) throw new Error(`${path} is outside the workspace`);
  return full;
}

const TOOLS = {
  list_dir: async ({ path }) => (await readdir(inside(path))).sort().join('\n'),
  read_file: async ({ path }) => readFile(inside(path), 'utf8'),
};

const DEFINITIONS = [
  { type: 'function', function: { name: 'list_dir', description: 'List a directory', parameters: { type: 'object', properties: { path: { type: 'string' } } } } },
  { type: 'function', function: { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } } },
];

const tape = process.argv[2] ?? 'tapes/hand-written-loop.tape.jsonl';
const client = await recordOpenAI(new OpenAI({ maxRetries: 0 }), { tape, task: 'Which port does the server listen on?' });
// Both tools only read: an identical second call is a duplicate (skipped), and nothing they do makes
// an earlier result stale. The other settings are the `guardrails.*` keys, here their defaults.
const guardrails = createGuardrails({
  tape: client,
  tools: { list_dir: { idempotent: true, mutating: false }, read_file: { idempotent: true, mutating: false } },
});
// Recorded too, so the tape has each outcome (and a replay serves them instead of running the tools).
const run = Object.fromEntries(Object.entries(TOOLS).map(([name, fn]) => [name, client.recordTool(name, fn, { idempotent: true, mutating: false })]));

const messages = [
  { role: 'system', content: 'You answer questions about the project in the working directory, with the tools.' },
  { role: 'user', content: 'Which port does the server listen on?' },
];

/** The loop: ask the model, run the calls it asks for through the guardrails, until it answers or they stop it. */
async function agent() {
  for (;;) {
    const completion = await client.chat.completions.create({ model: process.env.MODEL ?? 'gpt-4.1-mini', messages, tools: DEFINITIONS });
    const message = completion.choices[0].message;
    messages.push(message);
    const calls = (message.tool_calls ?? []).filter((c) => c.type === 'function').map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments }));
    if (calls.length === 0) return { answer: message.content };

    // The same step as the last ones, again and again: stopped before its calls run.
    const started = guardrails.startStep(calls);
    if (started.action === 'stop') return { stopped: started };
    for (const call of calls) {
      const check = guardrails.beforeTool(call);
      // A skip (a duplicate of an earlier success) or a block: the model reads why, in place of a result.
      if (check.action !== 'allow') {
        messages.push({ role: 'tool', tool_call_id: call.id, content: check.message });
        continue;
      }
      const tool = run[call.name];
      let outcome;
      try {
        if (tool === undefined) throw new Error(`no tool named ${call.name}`);
        outcome = { status: 'ok', output: await tool(JSON.parse(call.arguments)) };
      } catch (error) {
        outcome = { status: 'error', output: error instanceof Error ? error.message : String(error) };
      }
      // What the model reads: the output, with a warning at its end when the tool keeps failing.
      const settled = guardrails.afterTool(call, outcome);
      messages.push({ role: 'tool', tool_call_id: call.id, content: settled.output });
    }
    // A tool that kept failing ends the run here (or, with haltNudges, gets the model a message).
    const ended = guardrails.endStep();
    if (ended.action === 'stop') return { stopped: ended };
    if (ended.nudge !== undefined) messages.push({ role: 'user', content: ended.nudge });
  }
}

let result;
try {
  result = await agent();
} catch (error) {
  await client.finish({ state: 'ERROR', reason: error instanceof Error ? error.message : String(error) });
  throw error;
}
// The tape is written at finish(), with the guardrails' decisions in their places.
await client.finish(result.stopped === undefined ? {} : { state: 'ERROR', reason: result.stopped.reason });
if (result.stopped !== undefined) {
  console.log(`stopped by the guardrails (${result.stopped.rule}): ${result.stopped.reason}`);
  process.exitCode = 3;
} else {
  console.log(result.answer);
}
