/**
 * `agentctl view` and the choice between the terminal UI and lines, through the real binary. Without
 * a terminal (as here: pipes) the UI never opens; `--tui` then exits 2 with one line. Paths that do
 * not show the UI never load ink or react (checked with an import trace).
 */
import { readFileSync } from 'node:fs';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordOpenAI } from '../src/library/record-openai.js';
import { BIN, runCli } from './support/cli.js';
import { traced } from './support/traced.js';
import { startMockLlm } from './support/mock-llm.js';
import { recordLoopingAgent } from './support/looping-agent.js';

const DEMO = fileURLToPath(new URL('../tapes/demo-loop.tape.jsonl', import.meta.url));
/** The demo run's id, from its header (re-recording the golden tapes gives it a new one). */
const DEMO_ID = (JSON.parse(readFileSync(DEMO, 'utf8').split('\n')[0] ?? '{}') as { run: { id: string } }).run.id;
const TRACE = fileURLToPath(new URL('./support/trace-ui-imports.mjs', import.meta.url));
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-view-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('agentctl view', () => {
  it('prints a tape file step by step without a terminal, and exits 0', async () => {
    const result = await runCli(['view', DEMO]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^\[0\] run: The demo service will not start/);
    expect(result.stdout).toContain('[2]   ⊘ skip replay_control/duplicate_success read_file');
    expect(result.stdout).toContain('[4]   ∞ stuck repetition/repetition read_file');
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe(`record run ${DEMO_ID} (demo): ERROR, 5 steps, 58 events`);
    // Viewing replays nothing: no divergence, no verdict.
    expect(result.stdout).not.toContain('reproduced');
  });

  it('prints NDJSON with --json: every event, then the summary', async () => {
    const result = await runCli(['view', DEMO, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as { type: string; exitCode?: number });
    expect(lines).toHaveLength(59);
    expect(lines.at(-1)).toMatchObject({ type: 'summary', runId: DEMO_ID, state: 'ERROR', steps: 5, exitCode: 0 });
  });

  it('shows runs from the store: by name, an incomplete one, and one recorded through the library', async () => {
    const store = join(dir, 'store');
    expect((await runCli(['import', DEMO, '--store', store])).code).toBe(0);
    const byName = await runCli(['view', 'demo', '--store', store]);
    expect(byName.code, byName.stderr).toBe(0);
    expect(byName.stdout).toContain('[3]   ✗ block loop_guard/identical_call_block read_file');

    // A tape whose recorder died after step 1: no run_end, status incomplete.
    const lines = (await readFile(DEMO, 'utf8')).trim().split('\n');
    const header = JSON.parse(lines[0] as string) as { run: Record<string, unknown> };
    const cut = lines.slice(1).filter((line) => (JSON.parse(line) as { step: number }).step <= 1);
    header.run = { ...header.run, id: '01M80BD0DH1T99S5EY9167MAX3', name: 'cut', status: 'incomplete', eventCount: cut.length };
    delete header.run.finalState;
    delete header.run.totals;
    const cutFile = join(dir, 'cut.tape.jsonl');
    await writeFile(cutFile, `${[JSON.stringify(header), ...cut].join('\n')}\n`);
    const incomplete = await runCli(['view', cutFile]);
    expect(incomplete.code, incomplete.stderr).toBe(0);
    expect(incomplete.stdout).toContain('[1]   ok read_file');
    expect(incomplete.stdout.trimEnd().split('\n').at(-1)).toMatch(/: incomplete, 2 steps, \d+ events$/);

    const llm = await startMockLlm([{ content: 'Hello from the library.' }]);
    try {
      const recording = await recordOpenAI(new OpenAI({ baseURL: llm.baseURL, apiKey: 'sk-view-test-key-0000', maxRetries: 0 }), { tape: { store, run: 'lib' }, task: 'say hello' });
      await recording.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
      await recording.finish();
    } finally {
      await llm.close();
    }
    const library = await runCli(['view', 'lib', '--store', store]);
    expect(library.code, library.stderr).toBe(0);
    expect(library.stdout).toContain('← assistant "Hello from the library."');
  });

  it('shows redacted text only: a secret-named environment value in a tape is not printed', async () => {
    const secret = 'hunter2-very-secret-value';
    const tape = join(dir, 'secret.tape.jsonl');
    await writeFile(tape, (await readFile(DEMO, 'utf8')).replace('"README.md\\nconfig/\\nsrc/"', `"README.md\\n${secret}\\nsrc/"`));
    const plain = await runCli(['view', tape]);
    expect(plain.stdout).toContain(secret);
    const result = await runCli(['view', tape], { env: { DEMO_SERVICE_TOKEN: secret } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).not.toContain(secret);
    expect(result.stdout).toContain('[REDACTED]');
  });

  it('says so, with the documented codes, for a run that does not exist and a corrupt tape', async () => {
    const missing = await runCli(['view', 'no-such-run', '--store', join(dir, 'empty')]);
    expect(missing.code).toBe(10);
    expect(missing.stderr).not.toMatch(/\n\s+at /);
    const bad = join(dir, 'bad.tape.jsonl');
    await copyFile(DEMO, bad);
    await writeFile(bad, `${(await readFile(bad, 'utf8')).replace('"type":"tool_call"', '"type":"nonsense"')}`);
    const corrupt = await runCli(['view', bad]);
    expect(corrupt.code).toBe(9);
    expect(corrupt.stderr).toContain('bad.tape.jsonl');
    expect(corrupt.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('the terminal UI is only for terminals', () => {
  it('--tui without a terminal exits 2 with one line, for record, replay and view', async () => {
    for (const args of [['view', DEMO], ['replay', DEMO, '--no-save'], ['record', '--task', 'x', '--base-url', 'http://127.0.0.1:9/v1']]) {
      const result = await runCli([...args, '--tui']);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr.trim().split('\n')[0]).toBe('agentctl: --tui needs a terminal: standard input and output are not both TTYs');
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
    const both = await runCli(['view', DEMO, '--tui', '--json']);
    expect(both.code).toBe(2);
  });

  it('loads neither ink nor react unless the UI opens', async () => {
    const store = join(dir, 'trace-store');
    expect((await runCli(['import', DEMO, '--store', store])).code).toBe(0);
    for (const args of [['--help'], ['ls', '--store', store], ['show', 'demo', '--store', store], ['replay', DEMO, '--no-save', '--json'], ['replay', DEMO, '--no-save'], ['view', DEMO]]) {
      const result = await traced(TRACE, [BIN, ...args], {});
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      expect(result.stderr, args.join(' ')).not.toContain('UI-MODULE-LOADED');
    }
    // The trace does see them when they load.
    const ui = await traced(TRACE, ['--input-type=module', '-e', `await import(${JSON.stringify(fileURLToPath(new URL('../dist/tui/run-tui.js', import.meta.url)))})`], {});
    expect(ui.stderr).toContain('UI-MODULE-LOADED ink');
    expect(ui.stderr).toContain('UI-MODULE-LOADED react');
    // The CLI bundle has them in one file of its own, which the trace sees too.
    const bundled = await traced(TRACE, ['--input-type=module', '-e', `await import(${JSON.stringify(fileURLToPath(new URL('../dist/cli-bundle/packages.mjs', import.meta.url)))})`], {});
    expect(bundled.stderr).toContain('UI-MODULE-LOADED packages');
  });
});

describe('a run recorded without the guardrails is shown with their analysis', () => {
  let tape: string;

  beforeAll(async () => {
    tape = join(dir, 'looping.tape.jsonl');
    await recordLoopingAgent(tape);
  });

  it('view: every analysed decision marked as analysis, under the answer it is about; the closing line names the stop point', async () => {
    const result = await runCli(['view', tape, '--no-tui']);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    const block = lines.indexOf('[2]   analysis · ✗ block loop_guard/identical_call_block lookup: identical call 3 of 3: blocked');
    expect(block).toBeGreaterThan(0);
    // After the answer that asked for the call, among the step's other analysed decisions.
    const answer = lines.findIndex((line) => line.startsWith('[2] ← assistant + 1 tool call'));
    expect(answer).toBeGreaterThan(0);
    expect(answer).toBeLessThan(block);
    expect(lines.slice(answer + 1, block).every((line) => line.startsWith('[2]   analysis · '))).toBe(true);
    expect(lines).toContain('[1]   analysis · ⊘ skip replay_control/duplicate_success lookup: duplicate of the identical call that succeeded at step 0 (call call_0_0)');
    const decisions = lines.filter((line) => /^\[\d\] {3}(analysis · )?\S+ \w+ \w+\/\w+/.test(line));
    expect(decisions.length).toBeGreaterThan(5);
    expect(decisions.every((line) => line.includes('analysis · '))).toBe(true);
    const closing = /^record run \w{26}: COMPLETED, 5 steps, 12 events; analysis: would have been stopped at step 2 by identical_call_block$/;
    expect(lines.at(-1)).toMatch(closing);
  });

  it('view --json: the analysed decisions among the events with "analysis": true, the stop point in the summary', async () => {
    const result = await runCli(['view', tape, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    const analysed = lines.filter((line) => line.type === 'guardrail');
    expect(analysed.length).toBeGreaterThan(5);
    for (const line of analysed) expect(line).toMatchObject({ analysis: true });
    expect(lines.filter((line) => line.type !== 'guardrail' && line.type !== 'summary')).toHaveLength(12);
    const block = lines.findIndex((line) => line.rule === 'identical_call_block');
    expect(lines[block]).toMatchObject({ type: 'guardrail', seq: 6, step: 2, gate: 'loop_guard', verdict: 'block', tool: 'lookup', callId: 'call_2_0', analysis: true });
    // Each decision's seq is the recorded answer's it follows.
    const answer = lines.findLast((line, i) => i < block && line.type !== 'guardrail');
    expect(answer).toMatchObject({ type: 'llm_response', seq: 6 });
    expect(lines.at(-1)).toMatchObject({ type: 'summary', state: 'COMPLETED', exitCode: 0, analysis: { stop: { step: 2, seq: 6, rule: 'identical_call_block', verdict: 'block', tool: 'lookup' } } });
  });

  it('show: the verdicts of the analysis counted apart, with the stop point; --json: under "analysis"', async () => {
    const result = await runCli(['show', tape]);
    expect(result.code, result.stderr).toBe(0);
    const row = result.stdout.split('\n').find((line) => line.startsWith('guardrails'));
    const counted = /^guardrails \(analysis\) {2}(\d+ (allow|continue|skip|block|stuck)( · |))+ — would have been stopped at step 2 by \w+$/;
    expect(row).toMatch(counted);
    expect(row).toContain('1 skip · 1 block');
    expect(row).toMatch(/ by identical_call_block$/);
    const json = JSON.parse((await runCli(['show', tape, '--json'])).stdout) as Record<string, unknown>;
    expect(json.verdicts).toEqual({});
    expect(json.analysis).toMatchObject({ verdicts: { skip: 1, block: 1 }, stop: { step: 2, rule: 'identical_call_block' } });
  });

  it('a run of the built-in loop shows its recorded decisions, and no analysis', async () => {
    const view = await runCli(['view', DEMO, '--json']);
    expect(view.stdout).not.toContain('"analysis"');
    const show = JSON.parse((await runCli(['show', DEMO, '--json'])).stdout) as Record<string, unknown>;
    expect(show.analysis).toBeNull();
    expect((await runCli(['show', DEMO])).stdout).toMatch(/^guardrails +6 continue · 9 allow · 1 skip · 1 block · 1 stuck$/m);
  });

  it('a tape that holds a decision marked as analysis is refused: exit 9, one line naming the file and line', async () => {
    const lying = join(dir, 'lying.tape.jsonl');
    const lines = (await readFile(DEMO, 'utf8')).trimEnd().split('\n');
    const at = lines.findIndex((line) => line.includes('"rule":"identical_call_block"'));
    lines[at] = JSON.stringify({ ...(JSON.parse(lines[at] as string) as object), analysis: true });
    await writeFile(lying, `${lines.join('\n')}\n`);
    for (const args of [['view', lying], ['show', lying]]) {
      const result = await runCli(args);
      expect(result.code, args.join(' ')).toBe(9);
      expect(result.stderr.trim().split('\n')).toEqual([
        `agentctl: ${lying}:${at + 1}: a guardrail decision marked as analysis: a tape records what happened, never what the guardrails would have decided`,
      ]);
    }
  });
});
