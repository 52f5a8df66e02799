/**
 * Runs recorded through the library (a recording fetch) with the CLI: `ls`, `show`, `view`,
 * `export` and `diff` work on them; `agentctl replay` and `agentctl ci` refuse them with the way to
 * replay them instead (exit 2), since the agent that made them is not agentctl's.
 */
import { mkdtemp, mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { record } from '../src/library/record-replay.js';
import { runCli } from './support/cli.js';
import { startMockLlm } from './support/mock-llm.js';
import type { ScenarioStep } from './support/scenario.js';

let dir: string;
let store: string;

/** One small agent session: a tool call, the tool (recorded), the answer. `ids` sets the provider's tool-call id. */
async function session(name: string, id: string): Promise<string> {
  const steps: ScenarioStep[] = [
    { tool_calls: [{ id, name: 'lookup', arguments: { q: 'weather' } }] },
    { content: 'It is sunny.' },
  ];
  const llm = await startMockLlm(steps);
  try {
    const rec = await record({ tape: { store, run: name }, task: 'ask about the weather' });
    const client = new OpenAI({ baseURL: llm.baseURL, apiKey: 'sk-library-run-0123456789', fetch: rec.fetch, maxRetries: 0 });
    const lookup = rec.recordTool('lookup', async (args: { q: string }) => ({ answer: `${args.q}: sunny` }), { idempotent: true, mutating: false });
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'What is the weather?' }];
    const first = await client.chat.completions.create({ model: 'gpt-test', messages });
    const call = first.choices[0]?.message.tool_calls?.[0];
    if (call?.type !== 'function') throw new Error('expected a tool call');
    const result = await lookup(JSON.parse(call.function.arguments) as { q: string });
    messages.push(first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) });
    await client.chat.completions.create({ model: 'gpt-test', messages });
    await rec.finish();
    return (rec.runId as string);
  } finally {
    await llm.close();
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-library-run-'));
  store = join(dir, 'store');
  await session('first', 'call_AAAAAAAA');
  await session('second', 'call_ZZZZZZZZ');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a library-recorded run in the CLI', () => {
  it('is listed and shown as recorded by the library', async () => {
    const ls = await runCli(['--store', store, 'ls']);
    expect(ls.code).toBe(0);
    expect(ls.stdout).toMatch(/record \(library\).*\[first\] ask about the weather/);
    const show = await runCli(['--store', store, 'show', 'first']);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/recorded by\s+the library/);
    const json = JSON.parse((await runCli(['--store', store, 'show', 'first', '--json'])).stdout) as { run: { source: string }; eventTypes: Record<string, number> };
    expect(json.run.source).toBe('library');
    expect(json.eventTypes).toMatchObject({ llm_request: 2, llm_response: 2, tool_call: 1, tool_result: 1 });
  });

  it('is refused by agentctl replay, with how to replay it (exit 2), from the store and as a file', async () => {
    const replay = await runCli(['--store', store, 'replay', 'first']);
    expect(replay.code).toBe(2);
    expect(replay.stderr).toMatch(/recorded by the library/);
    expect(replay.stderr).toMatch(/replayOpenAI\(\)/);
    expect(replay.stderr).toMatch(/agentctl proxy --replay first/);
    expect(replay.stderr).not.toMatch(/\n\s+at /); // no stack trace

    const file = join(dir, 'first.tape.jsonl');
    expect((await runCli(['--store', store, 'export', 'first', '-o', file])).code).toBe(0);
    const fromFile = await runCli(['--store', store, 'replay', file]);
    expect(fromFile.code).toBe(2);
    expect(fromFile.stderr).toMatch(/recorded by the library/);

    const corpus = join(dir, 'corpus');
    await mkdir(corpus);
    expect((await runCli(['--store', store, 'export', 'first', '-o', join(corpus, 'first.tape.jsonl')])).code).toBe(0);
    const ci = await runCli(['ci', corpus]);
    expect(ci.code).not.toBe(0);
    expect(ci.stdout + ci.stderr).toMatch(/recorded by the library/);
    expect(ci.stdout + ci.stderr).toMatch(/replayOpenAI\(\) or replay\(\)/);
    // The JSON report gives the code of the error that stopped the tape.
    const json = await runCli(['ci', corpus, '--reporter', 'json']);
    const report = JSON.parse(json.stdout) as { results: { outcome: string; code?: string; message: string }[] };
    expect(report.results).toEqual([expect.objectContaining({ outcome: 'error', code: 'AGENTCTL_INVALID_OPTION', message: expect.stringMatching(/recorded by the library/) as unknown })]);
  });

  it('is viewed as its events without a terminal', async () => {
    const view = await runCli(['--store', store, 'view', 'first']);
    expect(view.code).toBe(0);
    expect(view.stdout).toMatch(/call lookup/);
    expect(view.stdout).toMatch(/It is sunny\./);
  });

  it('diffs clean against another recording whose provider gave other tool-call ids', async () => {
    const diff = await runCli(['--store', store, 'diff', 'first', 'second', '--exit-code']);
    expect(diff.stdout).toMatch(/identical/i);
    expect(diff.code).toBe(0);
  });
});
