/**
 * `agentctl ci --set` over tapes the built-in loop did not record (here, a looping agent recorded
 * through the library), through the real binary: not replayable by agentctl, such a tape's what-if
 * is an analysis — `changed` when the override moves its stop point or changes a decision, with the
 * steps, tokens and cost before and after — and the report adds the corpus sentence of the analysed
 * runs. Without --set, ci still reports such a tape as an error with how to replay it.
 */
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';
import { copyCorpus, corpusFiles, lastLine, OFFLINE } from './support/corpus.js';
import { LOOPING, recordChatAgent } from './support/library-agent.js';

let dir: string;
const ci = (args: string[]) => runCli(['ci', ...args], { cwd: dir, env: OFFLINE });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-ci-analysis-'));
  await copyCorpus(join(dir, 'corpus'));
  await recordChatAgent(join(dir, 'corpus', 'zz-loop.tape.jsonl'), LOOPING);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('ci --set over a library recording', () => {
  it('a lowered identical-call block moves its stop point: changed, stopped at step 1, and the corpus sentence of the analysed runs', async () => {
    const result = await ci(['corpus', '--set', 'guardrails.identicalCallBlock=2']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    const row = lines.find((line) => line.includes('corpus/zz-loop.tape.jsonl'));
    expect(row).toMatch(/^ {2}changed +corpus\/zz-loop\.tape\.jsonl +step 1: identical_call_block allow \(2 of 3\) → block \(2 of 2\); would have/);
    expect(lines).toContain('runs recorded without the built-in loop, analysed: 1 of 1 recorded run would have been stopped at the identical-call block, 5 steps and $0.0001 earlier');
    expect(lastLine(result.stdout)).toBe(`${(await corpusFiles()).length + 1} passed, 0 failed`);
  });

  it('the json report: the what-if of the tape (7 steps recorded, 2 under the override) and its analysis; the analysed runs in the totals', async () => {
    const result = await ci(['corpus/zz-loop.tape.jsonl', '--set', 'guardrails.identicalCallBlock=2', '--reporter', 'json']);
    expect(result.code).toBe(0);
    type Report = { results: Record<string, unknown>[]; analysis: Record<string, unknown>; whatIf: Record<string, unknown> };
    const report = JSON.parse(result.stdout) as Report;
    expect(report.results[0]).toMatchObject({
      outcome: 'changed',
      whatIf: { steps: { before: 7, after: 2 }, tokens: { before: 6 * 110 + 55, after: 220 }, state: { before: 'COMPLETED', after: 'COMPLETED' }, decisionChanges: 2 },
      analysis: { stop: { step: 1, rule: 'identical_call_block' }, saved: { steps: 5 } },
    });
    expect(report.analysis).toMatchObject({ runs: 1, notStopped: 0, summary: expect.stringMatching(/^1 of 1 recorded run would have been stopped/) });
    expect(report.whatIf).toMatchObject({ stopEarlier: 1, stepsSaved: 5 });
  });

  it('an override that moves nothing: unchanged, and still the sentence; a repetition stop ends the run in ERROR', async () => {
    const same = await ci(['corpus/zz-loop.tape.jsonl', '--set', 'guardrails.failureWarn=5']);
    expect(same.code).toBe(0);
    expect(same.stdout).toContain('  no tape changes\n');
    expect(same.stdout).toContain('analysed: 1 of 1 recorded run would have been stopped at the identical-call block, 4 steps and $0.0001 earlier\n');
    // Decisions change, the stop point stays: changed all the same.
    const later = await ci(['corpus/zz-loop.tape.jsonl', '--set', 'guardrails.maxRepeatedToolSteps=5']);
    expect(later.stdout).toMatch(/changed +corpus\/zz-loop\.tape\.jsonl +step 3: repeated_tool_step stuck \(3 of 3\) → continue \(3 of 5\); would/);
    expect(later.stdout).toMatch(/would have been stopped at step 2 by identical_call_block/);
    // A replay's setting bears on nothing an analysis decides.
    expect((await ci(['corpus/zz-loop.tape.jsonl', '--set', 'limits.maxSteps=2'])).stdout).toContain('  no tape changes\n');
    const json = await ci(['corpus/zz-loop.tape.jsonl', '--set', 'guardrails.identicalCallBlock=9', '--set', 'guardrails.maxRepeatedToolSteps=1', '--reporter', 'json']);
    const [result] = (JSON.parse(json.stdout) as { results: Record<string, unknown>[] }).results;
    expect(result).toMatchObject({ outcome: 'changed', whatIf: { state: { before: 'COMPLETED', after: 'ERROR' }, steps: { before: 7, after: 2 } } });
    expect(result).toMatchObject({ analysis: { stop: { step: 1, rule: 'repetition', verdict: 'stuck' } } });
  });

  it('a token budget it goes over: stopped at the answer that took it over, ending in BUDGET_EXCEEDED, counted under the token budget', async () => {
    const result = await ci(['corpus/zz-loop.tape.jsonl', '--set', 'limits.tokenBudget=300']);
    expect(result.code).toBe(0);
    const row = /changed +corpus\/zz-loop\.tape\.jsonl +step 0: near_token_budget none → warn; would have been stopped at step 2 by token_budget_\w+/;
    expect(result.stdout).toMatch(row);
    expect(result.stdout).toContain('1 run that completed now ends in BUDGET_EXCEEDED');
    expect(result.stdout).toContain('analysed: 1 of 1 recorded run would have been stopped at the token budget, 4 steps and $0.0001 earlier\n');
  });

  it('--fail-on-change fails on it; without --set, ci still reports it as not replayable', async () => {
    expect((await ci(['corpus/zz-loop.tape.jsonl', '--set', 'guardrails.identicalCallBlock=2', '--fail-on-change'])).code).toBe(7);
    const check = await ci(['corpus/zz-loop.tape.jsonl']);
    expect(check.code).toBe(7);
    expect(check.stdout).toMatch(/ERROR +corpus\/zz-loop\.tape\.jsonl/);
    expect(check.stdout).toMatch(/was recorded by the library, not by agentctl record/);
  });

  it('a built-in tape beside it is still replayed', async () => {
    await copyFile(join(dir, 'corpus', 'demo-loop.tape.jsonl'), join(dir, 'demo.tape.jsonl'));
    const result = await ci(['demo.tape.jsonl', '--set', 'guardrails.identicalCallBlock=2', '--reporter', 'json']);
    const report = JSON.parse(result.stdout) as { results: Record<string, unknown>[]; analysis?: unknown };
    expect(report.results[0]).toMatchObject({ outcome: 'changed' });
    expect(report.results[0]).not.toHaveProperty('analysis');
    expect(report).not.toHaveProperty('analysis');
  });
});
