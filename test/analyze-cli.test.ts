/**
 * `agentctl analyze` through the real binary: a looping agent recorded through the library is
 * reported stopped at the identical-call block, with what it spent after; `--set` and `--config`
 * move the stop; the golden corpus (built-in loop runs, analysed with their recorded config) shows
 * nothing its recordings do not; the corpus sentence; `--json`; runs in the store; the exits.
 */
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { costOf, DEFAULT_PRICES } from '../src/agent/prices.js';
import { runCli } from './support/cli.js';
import { copyCorpus, corpusFiles, OFFLINE, TAPES } from './support/corpus.js';
import { ANSWER_USAGE, LOOKUP_USAGE, LOOPING, recordChatAgent } from './support/library-agent.js';
import { recordLoopingAgent } from './support/looping-agent.js';

let dir: string;
let loop: string;
const env = { ...OFFLINE, AGENTCTL_STORE: undefined };

/** The saved cost past step 2 of the looping run: three more lookups and the answer, at gpt-4o-mini's price. */
const price = DEFAULT_PRICES['gpt-4o-mini']!;
const usage = (u: { prompt_tokens: number; completion_tokens: number }) => ({ inputTokens: u.prompt_tokens, outputTokens: u.completion_tokens });
const callCost = costOf(usage(LOOKUP_USAGE), price);
const answerCost = costOf(usage(ANSWER_USAGE), price);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-analyze-'));
  loop = join(dir, 'loop.tape.jsonl');
  await recordChatAgent(loop, LOOPING);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const analyze = (args: string[]) => runCli(['analyze', ...args], { cwd: dir, env });

describe('agentctl analyze', () => {
  it('a looping library run: stopped at step 2 by the identical-call block, 4 steps and their cost earlier; then the corpus sentence', async () => {
    const result = await analyze(['loop.tape.jsonl']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const cost = `$${(3 * callCost + answerCost).toFixed(4)}`;
    expect(result.stdout).toBe([
      `loop.tape.jsonl: would have been stopped at step 2 by identical_call_block (lookup: identical call 3 of 3: blocked), 4 steps and ${cost} earlier`,
      `1 of 1 recorded run would have been stopped at the identical-call block, 4 steps and ${cost} earlier`,
      '',
    ].join('\n'));
  });

  it('--set moves the stop: identicalCallBlock 2 to step 1; the tool flag given, no duplicate is skipped', async () => {
    const lower = await analyze(['loop.tape.jsonl', '--set', 'guardrails.identicalCallBlock=2']);
    expect(lower.code).toBe(0);
    expect(lower.stdout).toMatch(/^loop\.tape\.jsonl: would have been stopped at step 1 by identical_call_block \(lookup: identical call 2 of 2/);
    const json = await analyze(['loop.tape.jsonl', '--json', '--set', 'guardrails.tools.lookup.idempotent=false']);
    const [run] = json.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(run).toMatchObject({ type: 'analysis', tape: 'loop.tape.jsonl', recordedBy: 'library', stop: { step: 2, rule: 'identical_call_block' } });
    expect(run!.verdicts).not.toHaveProperty('skip');
    const plain = JSON.parse((await analyze(['loop.tape.jsonl', '--json'])).stdout.split('\n')[0] as string) as { verdicts: Record<string, number> };
    expect(plain.verdicts.skip).toBe(1);
    expect(plain.verdicts.warn).toBeUndefined();
    // 110 tokens a step: 440 at step 3, within 600 of a budget of 1000 (and the run stopped there).
    const budget = await analyze(['loop.tape.jsonl', '--json', '--set', 'limits.tokenBudget=1000', '--set', 'guardrails.reserveTokens=600']);
    expect((JSON.parse(budget.stdout.split('\n')[0] as string) as { verdicts: Record<string, number> }).verdicts.warn).toBe(1);
  });

  it('--config: the guardrails of an agent config file', async () => {
    const config = join(dir, 'strict.config.json');
    await writeFile(config, JSON.stringify({ model: 'gpt-4o', guardrails: { identicalCallBlock: 2 } }));
    const result = await analyze(['loop.tape.jsonl', '--config', config]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/stopped at step 1 by identical_call_block/);
    // A --set over the file wins.
    expect((await analyze(['loop.tape.jsonl', '--config', config, '--set', 'guardrails.identicalCallBlock=3'])).stdout).toMatch(/stopped at step 2 by/);
  });

  it('a directory: the golden corpus shows no stop its recordings do not, and the looping run is counted with it', async () => {
    const corpus = join(dir, 'corpus');
    await copyCorpus(corpus);
    await copyFile(loop, join(corpus, 'zz-loop.tape.jsonl'));
    const result = await analyze(['corpus']);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    const golden = await corpusFiles();
    expect(lines).toHaveLength(golden.length + 2);
    const shown = 'no guardrail would have stopped it beyond what its recording shows';
    for (const [i, file] of golden.entries()) expect(lines[i]).toMatch(new RegExp(`^corpus/${file.replace(/\./g, '\\.')}: ${shown} \\(\\d+ decisions: `));
    expect(lines.at(-2)).toMatch(/^corpus\/zz-loop\.tape\.jsonl: would have been stopped at step 2/);
    const stopped = `^1 of ${golden.length + 1} recorded runs would have been stopped at the identical-call block, 4 steps and \\$[0-9.]+ earlier`;
    expect(lines.at(-1)).toMatch(new RegExp(`${stopped}; ${golden.length} not stopped$`));
  });

  it('a built-in loop run under a lowered threshold: the stop its recording does not show', async () => {
    const result = await analyze([join(TAPES, 'demo-loop.tape.jsonl'), '--set', 'guardrails.identicalCallBlock=2', '--quiet']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('1 of 1 recorded run would have been stopped at the identical-call block, 2 steps earlier\n');
  });

  it('--json: one object per run, then the summary with the sentence', async () => {
    const result = await analyze(['loop.tape.jsonl', join(TAPES, 'demo-loop.tape.jsonl'), '--json']);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((l) => l.type)).toEqual(['analysis', 'analysis', 'summary']);
    expect(lines[0]).toMatchObject({ saved: { steps: 4, tokens: 3 * 110 + 55 }, totals: { steps: 7 } });
    expect(lines[0]).toMatchObject({ outcomes: { recorded: 1, fromMessages: 0, unknown: 0 } });
    expect(lines[1]).toMatchObject({ recordedBy: 'cli', stop: null, guarded: true, config: { identicalCallBlock: 3 } });
    expect(lines[2]).toMatchObject({ runs: 2, notStopped: 1, stopped: [{ rule: 'identical_call_block', runs: 1, saved: { steps: 4 } }] });
    const sentence = String(lines[2]!.sentence);
    expect(sentence).toMatch(/^1 of 2 recorded runs would have been stopped at the identical-call block, 4 steps and \S+ earlier; 1 not stopped$/);
  });

  it('a run in the store, by an id prefix', async () => {
    const store = join(dir, 'store');
    expect((await runCli(['import', loop, '--store', store], { env })).code).toBe(0);
    const id = (JSON.parse((await readFile(loop, 'utf8')).split('\n')[0] as string) as { run: { id: string } }).run.id;
    const result = await analyze([id.slice(0, 10), '--store', store]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^${id}: would have been stopped at step 2 by identical_call_block`));
    // Named twice (its id and a prefix), it is one run.
    const twice = await analyze([id, id.slice(0, 10), '--store', store, '-q']);
    expect(twice.stdout).toMatch(/^1 of 1 recorded run would have been stopped/);
  });

  it('a tape file named by several arguments (its path, another path to it, a directory holding it) is one run of the corpus', async () => {
    const corpus = join(dir, 'once');
    await mkdir(corpus, { recursive: true });
    await copyFile(loop, join(corpus, 'loop.tape.jsonl'));
    const result = await analyze(['once/loop.tape.jsonl', './once/../once/loop.tape.jsonl', 'once', join(corpus, 'loop.tape.jsonl')]);
    expect(result.code).toBe(0);
    expect(result.stdout.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/^once\/loop\.tape\.jsonl: would have been stopped at step 2/),
      expect.stringMatching(/^1 of 1 recorded run would have been stopped at the identical-call block/),
    ]);
  });

  it('a token budget the run goes over: stopped at the answer that took it over, where the built-in loop ends a run, and counted under the token budget', async () => {
    // 110 tokens a step: 330 at step 2, over a budget of 300 before that answer's call would be blocked.
    const result = await analyze(['loop.tape.jsonl', '--set', 'limits.tokenBudget=300']);
    expect(result.code).toBe(0);
    const cost = `$${(3 * callCost + answerCost).toFixed(4)}`;
    expect(result.stdout).toBe([
      `loop.tape.jsonl: would have been stopped at step 2 by token_budget_exceeded (used 330 tokens of a budget of 300), 4 steps and ${cost} earlier`,
      `1 of 1 recorded run would have been stopped at the token budget, 4 steps and ${cost} earlier`,
      '',
    ].join('\n'));
    const json = JSON.parse((await analyze(['loop.tape.jsonl', '--json', '--set', 'limits.costLimit=0.00001'])).stdout.split('\n')[0] as string) as Record<string, unknown>;
    expect(json).toMatchObject({ stop: { step: 0, gate: 'budget', rule: 'cost_limit_exceeded', verdict: 'halt' }, saved: { steps: 6 } });
  });

  it('a run whose model wrote arguments nested 20,000 levels deep (text in the tape, which JSON.parse takes): analysed, viewed and shown as any other', async () => {
    const deep = join(dir, 'deep.tape.jsonl');
    await recordLoopingAgent(deep, `{"deep":${'['.repeat(20_000)}${']'.repeat(20_000)},"q":"port"}`);
    const result = await analyze(['deep.tape.jsonl']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^deep\.tape\.jsonl: would have been stopped at step 2 by identical_call_block \(lookup: identical call 3 of 3/);
    for (const command of [['view', '--no-tui'], ['show']]) {
      const shown = await runCli([...command, 'deep.tape.jsonl'], { cwd: dir, env });
      expect(shown.stderr).toBe('');
      expect(shown.code).toBe(0);
      expect(shown.stdout).toMatch(/would have been stopped at step 2 by identical_call_block/);
    }
  });

  it('exits: 2 for a setting an analysis does not read or a bad value, 10 for a path or run that is not there, 9 for an invalid tape', async () => {
    const model = await analyze(['loop.tape.jsonl', '--set', 'model=gpt-4o']);
    expect(model.code).toBe(2);
    expect(model.stderr).toMatch(/^agentctl: --set model: not a setting of an analysis\n/);
    const steps = await analyze(['loop.tape.jsonl', '--set', 'limits.maxSteps=3']);
    expect(steps.code).toBe(2);
    expect(steps.stderr).toMatch(/--set limits\.maxSteps: not a setting of an analysis/);
    expect((await analyze(['loop.tape.jsonl', '--set', 'guardrails.identicalCallBlock=0'])).stderr).toMatch(/guardrails\.identicalCallBlock/);
    const flag = await analyze(['loop.tape.jsonl', '--set', 'guardrails.tools.lookup.idempotent=maybe']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/guardrails\.tools\.lookup\.idempotent must be true or false/);
    expect((await analyze([])).code).toBe(2);
    const missing = await analyze(['missing.tape.jsonl']);
    expect(missing.code).toBe(10);
    expect(missing.stderr).toMatch(/^agentctl: .*missing\.tape\.jsonl/);
    const bad = join(dir, 'bad');
    await mkdir(bad, { recursive: true });
    const lines = (await readFile(loop, 'utf8')).split('\n');
    lines[5] = '{"type":"llm_request","oops":';
    await writeFile(join(bad, 'broken.tape.jsonl'), lines.join('\n'));
    const invalid = await analyze(['bad']);
    expect(invalid.code).toBe(9);
    expect(invalid.stdout).toBe('');
    expect(invalid.stderr).toMatch(/^agentctl: bad\/broken\.tape\.jsonl:6: /);
    expect(invalid.stderr.trim().split('\n').filter((l) => l.startsWith('agentctl:'))).toHaveLength(1);
  });
});
