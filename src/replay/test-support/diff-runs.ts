/** Runs for the tests of diffRuns: a tool step, an answer step, a start; numbered; and the diff of two, step by step. */
import type { RunEvent, RunEventInput } from '../../core/events.js';
import { diffRuns, type RunDiffSummary, type StepDiff } from '../run-diff.js';

/** A tool step: the model asks for read_file, guardrails decide, the tool answers. */
export function toolStep(step: number, opts: { output?: string; verdict?: 'allow' | 'block'; path?: string } = {}): RunEventInput[] {
  const args = JSON.stringify({ path: opts.path ?? 'README.md' });
  const callId = `call_${step}`;
  return [
    { type: 'llm_request', step, iteration: step, hash: `h${step}`, prefix: step, append: [], model: 'm', stream: false, tools: ['read_file'] },
    {
      type: 'llm_response', step, iteration: step, attempt: 0, durationMs: 5,
      response: { message: { role: 'assistant', content: null, tool_calls: [{ id: callId, type: 'function', function: { name: 'read_file', arguments: args } }] },
        finishReason: 'tool_calls', usage: { inputTokens: 10, outputTokens: 2 } },
    },
    { type: 'state', step, from: 'RUNNING', to: 'WAITING_FOR_TOOL', reason: 'running 1 tool call' },
    { type: 'tool_call', step, callId, tool: 'read_file', arguments: args, key: 'k' },
    {
      type: 'guardrail', step, callId, gate: 'loop_guard', verdict: opts.verdict ?? 'allow', rule: opts.verdict === 'block' ? 'identical_call_block' : 'identical_call',
      tool: 'read_file', counters: { before: { attempts: 1 }, after: { attempts: 2 } }, threshold: 3, reason: 'identical call 2 of 3',
    },
    { type: 'tool_result', step, callId, tool: 'read_file', status: opts.verdict === 'block' ? 'denied' : 'ok', output: opts.output ?? '# demo', durationMs: 3 },
    { type: 'state', step, from: 'WAITING_FOR_TOOL', to: 'RUNNING', reason: 'tool results returned to the model' },
  ];
}

export function answerStep(step: number, text = 'done'): RunEventInput[] {
  return [
    { type: 'llm_request', step, iteration: step, hash: `h${step}`, prefix: step, append: [], model: 'm', stream: false, tools: ['read_file'] },
    { type: 'llm_response', step, iteration: step, attempt: 0, durationMs: 5,
      response: { message: { role: 'assistant', content: text }, finishReason: 'stop', usage: { inputTokens: 10, outputTokens: 2 } } },
    { type: 'state', step, from: 'RUNNING', to: 'COMPLETED', reason: 'the model gave its final answer' },
    { type: 'run_end', step, state: 'COMPLETED', reason: 'the model gave its final answer',
      totals: { steps: step + 1, llmCalls: step + 1, toolCalls: step, inputTokens: 0, outputTokens: 0, cost: 0 } },
  ];
}

export function start(task = 'look around'): RunEventInput[] {
  return [
    { type: 'run_start', step: 0, task, model: 'm', seed: 0, config: { model: 'm' } },
    { type: 'state', step: 0, from: null, to: 'RUNNING', reason: 'task received' },
  ];
}

/** Number the events; `clock` gives each one's `t` (timing that must not matter). */
export function run(inputs: RunEventInput[], clock: (seq: number) => number = (seq) => seq): RunEvent[] {
  return inputs.map((input, seq) => ({ ...input, seq, t: clock(seq) }) as RunEvent);
}

async function* stream(events: RunEvent[]): AsyncGenerator<RunEvent> {
  for (const event of events) yield event;
}

export async function diff(a: RunEvent[], b: RunEvent[], overlapping?: [boolean, boolean]): Promise<{ steps: StepDiff[]; summary: RunDiffSummary }> {
  const gen = diffRuns(stream(a), stream(b), overlapping);
  const steps: StepDiff[] = [];
  for (;;) {
    const next = await gen.next();
    if (next.done) return { steps, summary: next.value };
    steps.push(next.value);
  }
}

export const base = (): RunEventInput[] => [...start(), ...toolStep(0), ...toolStep(1), ...answerStep(2)];
