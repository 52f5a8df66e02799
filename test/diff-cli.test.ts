/** End-to-end: `agentctl diff` (the real binary) on tape files, stored runs, and real recordings. */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent, RunEventInput } from '../src/core/events.js';
import type { RunMeta } from '../src/core/run-meta.js';
import { recordOpenAI } from '../src/library/record-openai.js';
import { TapeStore } from '../src/tape/tape-store.js';
import { writeTapeFile } from '../src/tape/tape-file.js';
import { runCli } from './support/cli.js';
import { startMockLlm } from './support/mock-llm.js';
import { loadScenario, type Scenario, type ScenarioStep } from './support/scenario.js';

let dir: string;
let store: string;
let runId: string;
let fileA: string;
let fileSame: string;
let fileOther: string;

const totals = { steps: 2, llmCalls: 2, toolCalls: 1, inputTokens: 20, outputTokens: 4, cost: 0 };

/** Step 0 reads a file (its output is `output`), step 1 answers. */
function events(output: string, clock: (seq: number) => number): RunEvent[] {
  const inputs: RunEventInput[] = [
    { type: 'run_start', step: 0, task: 'read the readme', model: 'gpt-test', seed: 0, config: { model: 'gpt-test' } },
    { type: 'state', step: 0, from: null, to: 'RUNNING', reason: 'task received' },
    {
      type: 'llm_response', step: 0, iteration: 0, attempt: 0, durationMs: clock(99),
      response: {
        message: { role: 'assistant', content: null, tool_calls: [{ id: 'c0', type: 'function', function: { name: 'read_file', arguments: '{"path":"README.md"}' } }] },
        finishReason: 'tool_calls', usage: { inputTokens: 10, outputTokens: 2 },
      },
    },
    { type: 'tool_call', step: 0, callId: 'c0', tool: 'read_file', arguments: '{"path":"README.md"}', key: 'k0' },
    {
      type: 'guardrail', step: 0, callId: 'c0', gate: 'loop_guard', verdict: 'allow', rule: 'first_attempt', tool: 'read_file',
      counters: { before: { attempts: 0 }, after: { attempts: 1 } }, threshold: 3, reason: 'first attempt',
    },
    { type: 'tool_result', step: 0, callId: 'c0', tool: 'read_file', status: 'ok', output, durationMs: clock(7) },
    {
      type: 'llm_response', step: 1, iteration: 1, attempt: 0, durationMs: clock(50),
      response: { message: { role: 'assistant', content: 'It is a demo.' }, finishReason: 'stop', usage: { inputTokens: 10, outputTokens: 2 } },
    },
    { type: 'state', step: 1, from: 'RUNNING', to: 'COMPLETED', reason: 'the model gave its final answer' },
    { type: 'run_end', step: 1, state: 'COMPLETED', reason: 'the model gave its final answer', totals },
  ];
  return inputs.map((input, seq) => ({ ...input, seq, t: clock(seq) }) as RunEvent);
}

function meta(id: string): RunMeta {
  return {
    id, kind: 'record', createdAt: '2026-01-01T00:00:00.000Z', task: 'read the readme', model: 'gpt-test', config: { model: 'gpt-test' },
    seed: 0, status: 'complete', finalState: 'COMPLETED', totals, tapeVersion: 1,
  };
}

async function* stream(list: RunEvent[]): AsyncGenerator<RunEvent> {
  yield* list;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-diff-'));
  store = join(dir, 'store');
  fileA = join(dir, 'a.tape.jsonl');
  fileSame = join(dir, 'same.tape.jsonl.gz');
  fileOther = join(dir, 'other.tape.jsonl');
  await writeTapeFile(fileA, meta('01JA0000000000000000000000'), stream(events('# demo', (n) => n)));
  // Same behaviour, other timing, gzipped.
  await writeTapeFile(fileSame, meta('01JB0000000000000000000000'), stream(events('# demo', (n) => n * 37 + 5)));
  await writeTapeFile(fileOther, meta('01JC0000000000000000000000'), stream(events('# other readme', (n) => n)));

  const db = await TapeStore.open(store);
  const run = await db.createRun({ kind: 'record', task: 'read the readme', model: 'gpt-test', config: { model: 'gpt-test' }, seed: 0, name: 'changed' });
  const list = events('# changed', (n) => n * 2);
  for (const event of list) await db.append(run.id, event);
  await db.finishRun(run.id, { finalState: 'COMPLETED', eventCount: list.length, totals });
  await db.close();
  runId = run.id;
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function jsonLines(stdout: string): Record<string, unknown>[] {
  return stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('agentctl diff', () => {
  it('finds two tape files that differ only in timing identical (exit 0), and collapses identical steps', async () => {
    const result = await runCli(['diff', fileA, fileSame, '--store', store]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`A  ${fileA}  record, COMPLETED`);
    expect(result.stdout).toMatch(/steps 0–1 {2}= {2}identical/);
    expect(result.stdout.trim().split('\n').at(-1)).toBe('identical: 2 steps each, every event the same (timing ignored)');
    expect((await runCli(['diff', fileA, fileSame, '--exit-code'])).code).toBe(0);
  });

  it('shows a run vs a file step by step, the first difference side by side', async () => {
    const result = await runCli(['diff', 'changed', fileOther, '--store', store]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toBe(`A  ${runId} [changed]  record, COMPLETED, task "read the readme"`);
    expect(lines).toContain('step 0  ≠  first difference');
    expect(lines).toContain('     tool read_file → ok "# changed"');
    expect(lines).toContain('     tool read_file → ok "# other readme"');
    expect(lines).toContain('  first differing: event 5 (tool_result) at output');
    expect(lines).toContain('    A: "# changed"');
    expect(lines).toContain('    B: "# other readme"');
    expect(lines).toContain('step 1  =  identical');
    expect(lines.at(-1)).toBe('first difference at step 0: 1 of 2 steps differs (2 steps each)');
  });

  it('--exit-code exits 7 when the runs differ; --quiet prints only the result', async () => {
    const result = await runCli(['diff', fileA, runId.slice(0, 20).toLowerCase(), '--store', store, '--exit-code', '--quiet']);
    expect(result.code).toBe(7);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('first difference at step 0: 1 of 2 steps differs (2 steps each)\n');
  });

  it('--json prints one step object per step, then a summary', async () => {
    const result = await runCli(['diff', fileA, fileOther, '--json', '--exit-code']);
    expect(result.code).toBe(7);
    const lines = jsonLines(result.stdout);
    expect(lines.map((l) => l.type)).toEqual(['step', 'step', 'summary']);
    const [first, second, summary] = lines;
    expect(first).toMatchObject({
      type: 'step', step: 0, same: false,
      a: { model: { text: null, toolCalls: [{ name: 'read_file', arguments: '{"path":"README.md"}' }], finishReason: 'tool_calls' } },
      b: { tools: [{ tool: 'read_file', status: 'ok', output: '# other readme' }] },
      firstDifference: { index: 5, typeA: 'tool_result', typeB: 'tool_result', path: 'output', a: '# demo', b: '# other readme' },
    });
    expect(first?.a).toMatchObject({
      decisions: [{ gate: 'loop_guard', verdict: 'allow', rule: 'first_attempt', tool: 'read_file', reason: 'first attempt' }],
      states: [{ from: null, to: 'RUNNING' }],
    });
    expect(second).toMatchObject({ type: 'step', step: 1, same: true, a: { end: { state: 'COMPLETED' } } });
    expect(second).not.toHaveProperty('firstDifference');
    expect(summary).toEqual({
      type: 'summary', identical: false, firstDifferenceStep: 0, stepsA: 2, stepsB: 2, differingSteps: 1, identicalSteps: 1,
      a: fileA, b: fileOther, exitCode: 7,
    });
  });

  it('an unknown run exits 10; a missing store exits 10', async () => {
    const unknown = await runCli(['diff', fileA, 'no-such-run', '--store', store]);
    expect(unknown.code).toBe(10);
    expect(unknown.stderr).toMatch(/no run 'no-such-run'/);
    const noStore = await runCli(['diff', runId, fileA, '--store', join(dir, 'nothing-here')]);
    expect(noStore.code).toBe(10);
    expect(noStore.stderr).toMatch(/no store at/);
    const noFile = await runCli(['diff', join(dir, 'missing.tape.jsonl'), fileA]);
    expect(noFile.code).toBe(10);
  });

  it('a corrupt tape file exits 9 and names the file and line', async () => {
    const corrupt = join(dir, 'corrupt.tape.jsonl');
    const lines = (await readFile(fileA, 'utf8')).split('\n');
    lines[4] = '{"type":"tool_call", "seq": 3, truncated';
    await writeFile(corrupt, lines.join('\n'));
    const result = await runCli(['diff', fileA, corrupt]);
    expect(result.code).toBe(9);
    expect(result.stderr).toContain(`${corrupt}:5: not valid JSON`);
  });

  it('two real recordings of the same scenario are identical; a different scenario is not', async () => {
    const workspace = join(dir, 'ws');
    await mkdir(workspace, { recursive: true });
    await writeFile(join(workspace, 'README.md'), '# demo\n');
    const realStore = join(dir, 'real-store');
    const record = async (scenario: string, name: string): Promise<void> => {
      const llm = await startMockLlm(loadScenario(scenario));
      try {
        const result = await runCli(
          ['record', '--task', 'look around', '--base-url', llm.baseURL, '--workspace', workspace, '--store', realStore, '--name', name, '--quiet'],
          { env: { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined } },
        );
        expect(result.code).toBe(0);
      } finally {
        await llm.close();
      }
    };
    await record('duplicate-read', 'first');
    await record('duplicate-read', 'second');
    await record('tool-calls-then-answer', 'third');
    const same = await runCli(['diff', 'first', 'second', '--store', realStore, '--exit-code']);
    expect(same.stderr).toBe('');
    expect(same.code).toBe(0);
    expect(same.stdout).toMatch(/^identical: \d+ steps each/m);
    const other = await runCli(['diff', 'first', 'third', '--store', realStore, '--exit-code', '--json']);
    expect(other.code).toBe(7);
    expect(jsonLines(other.stdout).at(-1)).toMatchObject({ type: 'summary', identical: false, firstDifferenceStep: 0 });
  });

  it('two recordings whose provider made up other tool-call ids are identical: ids are compared by position', async () => {
    const workspace = join(dir, 'ws-ids');
    await mkdir(workspace, { recursive: true });
    await writeFile(join(workspace, 'README.md'), '# demo\n');
    const idStore = join(dir, 'id-store');
    // duplicate-read: the skipped call's denial quotes the id of the first call, in its output and in the next request.
    const scenario = loadScenario('duplicate-read');
    const withIds = (prefix: string): Scenario => ({
      ...scenario,
      steps: scenario.steps.map((step, i) => ('tool_calls' in step && step.tool_calls !== undefined
        ? { ...step, tool_calls: step.tool_calls.map((call, j) => ({ ...call, id: `${prefix}${i}x${j}` })) }
        : step)),
    });
    for (const [prefix, name] of [['call_Rk2', 'ids-one'], ['call_zQ', 'ids-two']] as const) {
      const llm = await startMockLlm(withIds(prefix));
      try {
        const result = await runCli(
          ['record', '--task', 'look around', '--base-url', llm.baseURL, '--workspace', workspace, '--store', idStore, '--name', name, '--quiet'],
          { env: { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined } },
        );
        expect(result.code).toBe(0);
      } finally {
        await llm.close();
      }
    }
    const same = await runCli(['diff', 'ids-one', 'ids-two', '--store', idStore, '--exit-code', '--json']);
    expect(same.stderr).toBe('');
    expect(same.code).toBe(0);
    const lines = jsonLines(same.stdout);
    expect(lines.at(-1)).toMatchObject({ type: 'summary', identical: true, differingSteps: 0 });
    // The ids really differ on the two tapes.
    expect(lines[0]).toMatchObject({ type: 'step', step: 0, a: { tools: [{ callId: 'call_Rk20x0' }] }, b: { tools: [{ callId: 'call_zQ0x0' }] } });
  });

  it('two recordings at the transport whose provider made up other ids and times are identical', async () => {
    const libStore = join(dir, 'lib-store');
    const tools: ChatCompletionTool[] = [{ type: 'function', function: { name: 'read_file', description: 'Read a file', parameters: { type: 'object' } } }];
    /** A small agent on the SDK: read what the model asks for until it answers. */
    const agent = async (client: OpenAI, stream: boolean): Promise<void> => {
      const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'read a and b' }];
      for (let i = 0; i < 3; i++) {
        const completion = stream
          ? await client.chat.completions.stream({ model: 'm', messages, tools }).finalChatCompletion()
          : await client.chat.completions.create({ model: 'm', messages, tools });
        const message = completion.choices[0]!.message;
        const calls = (message.tool_calls ?? []).flatMap((c) => (c.type === 'function' ? [c] : []));
        messages.push({ role: 'assistant', content: message.content, ...(calls.length > 0 ? { tool_calls: calls } : {}) });
        if (calls.length === 0) return;
        for (const call of calls) messages.push({ role: 'tool', tool_call_id: call.id, content: `contents of ${call.function.arguments}` });
      }
    };
    /** What the provider says, with ids and times of its own: whole replies carry them all, streams the tool-call ids. */
    const steps = (tag: string, stream: boolean): ScenarioStep[] => {
      const calls = [{ id: `call_${tag}a`, name: 'read_file', arguments: { path: 'a' } }, { id: `call_${tag}b`, name: 'read_file', arguments: { path: 'b' } }];
      if (stream) return [{ tool_calls: calls }, { content: 'both read' }];
      const body = (n: number, message: Record<string, unknown>, finish: string): Record<string, unknown> => ({
        id: `chatcmpl-${tag}${n}`, object: 'chat.completion', created: 1_700_000_000 + tag.length * 7 + n, model: 'm',
        choices: [{ index: 0, message: { role: 'assistant', refusal: null, ...message }, finish_reason: finish, logprobs: null }],
        usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
      });
      const toolCalls = calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } }));
      return [{ body: body(0, { content: null, tool_calls: toolCalls }, 'tool_calls') }, { body: body(1, { content: 'both read' }, 'stop') }];
    };
    for (const stream of [false, true]) {
      for (const tag of ['Xy7', 'q1']) {
        const llm = await startMockLlm(steps(tag, stream));
        try {
          const recording = await recordOpenAI(new OpenAI({ apiKey: 'sk-test', baseURL: llm.baseURL }), { tape: { store: libStore, run: `${stream ? 'stream' : 'whole'}-${tag}` } });
          await agent(recording, stream);
          await recording.finish();
        } finally {
          await llm.close();
        }
      }
      const name = stream ? 'stream' : 'whole';
      const result = await runCli(['diff', `${name}-Xy7`, `${name}-q1`, '--store', libStore, '--exit-code']);
      expect(result.stderr).toBe('');
      expect(result.stdout.trim().split('\n').at(-1)).toMatch(/^identical: 2 steps each/);
      expect(result.code).toBe(0);
    }
  });

  it('is described in --help, with --exit-code', async () => {
    const help = await runCli(['diff', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/compare two runs or tape files step by step/);
    expect(help.stdout).toMatch(/--exit-code\s+exit 7 when the runs differ/);
  });
});
