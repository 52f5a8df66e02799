/**
 * `--config <file>` of `ci` and `replay` lays the fields the file sets over each tape's recorded
 * config: a file that sets only a threshold changes only what that threshold changes, where the
 * decision it changes is. `--config-replace` takes the file as the whole config (the fields it leaves
 * out at their defaults). Through the real binary, over the committed tapes.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from './support/cli.js';
import { corpusFiles, OFFLINE, reachedBySecondAttempt, ROOT } from './support/corpus.js';

const DEMO = 'tapes/demo-loop.tape.jsonl';
let dir: string;
let lowered: string;
let reached: Map<string, number>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-config-overlay-'));
  lowered = join(dir, 'lowered.config.json');
  await writeFile(lowered, JSON.stringify({ guardrails: { identicalCallBlock: 2 } }));
  reached = await reachedBySecondAttempt();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const inRoot = (args: string[]): Promise<CliResult> => runCli(args, { cwd: ROOT, env: OFFLINE, timeoutMs: 120_000 });

interface CiJson {
  exitCode: number;
  results: { tape: string; outcome: string; drift?: { step: number; kind: string; path: string | null } }[];
}

describe('ci --config', () => {
  it('a file that sets one threshold drifts exactly the tapes that threshold changes, at the decision it changes', async () => {
    const result = await inRoot(['ci', 'tapes/', '--config', lowered, '--reporter', 'json']);
    const report = JSON.parse(result.stdout) as CiJson;
    expect(report.exitCode).toBe(7);
    const files = await corpusFiles();
    expect(report.results).toHaveLength(files.length);
    for (const file of files) {
      const entry = report.results.find((r) => r.tape === `tapes/${file}`);
      const step = reached.get(file);
      if (step === undefined) expect(entry?.outcome, file).toBe('pass');
      else expect(entry, file).toMatchObject({ outcome: 'drift', drift: { step, kind: 'decision' } });
    }
  });

  it('with --config-replace the file is the whole config: every tape drifts at its first request (the default prompt or model)', async () => {
    const result = await inRoot(['ci', 'tapes/', '--config', lowered, '--config-replace', '--reporter', 'json']);
    const report = JSON.parse(result.stdout) as CiJson;
    expect(report.results.length).toBeGreaterThan(0);
    for (const entry of report.results) expect(entry, entry.tape).toMatchObject({ outcome: 'drift', drift: { step: 0, kind: 'request' } });
  });
});

describe('replay --config', () => {
  const firstDivergence = (result: CliResult): Record<string, unknown> =>
    (JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}') as { firstDivergence: Record<string, unknown> }).firstDivergence;

  it('lays the file over the recorded config: the first divergence is the decision the threshold changes', async () => {
    const result = await inRoot(['replay', DEMO, '--no-save', '--json', '--strict', '--config', lowered]);
    expect(result.code, result.stderr).toBe(7);
    expect(firstDivergence(result)).toMatchObject({ step: reached.get('demo-loop.tape.jsonl'), kind: 'decision', expected: false });
  });

  it('with --config-replace, as the whole config: the system prompt differs at step 0', async () => {
    const result = await inRoot(['replay', DEMO, '--no-save', '--json', '--strict', '--config', lowered, '--config-replace']);
    expect(result.code, result.stderr).toBe(7);
    expect(firstDivergence(result)).toMatchObject({ step: 0, kind: 'request', detail: { path: 'messages[0].content' } });
  });
});

describe('usage', () => {
  it('--config-replace without --config, or a config file with a bad field, is one usage error', async () => {
    for (const command of [['replay', DEMO, '--no-save'], ['ci', 'tapes/']]) {
      const alone = await inRoot([...command, '--config-replace']);
      expect(alone.code, command[0]).toBe(2);
      expect(alone.stderr, command[0]).toBe('agentctl: --config-replace needs --config <file>: the config that replaces the recorded one\n');
    }
    const bad = join(dir, 'bad.config.json');
    await writeFile(bad, JSON.stringify({ guardrails: { identicalCallBlok: 2 } }));
    const result = await inRoot(['ci', 'tapes/', '--config', bad]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`agentctl: ${bad}: unknown field 'guardrails.identicalCallBlok'\n`);
    expect(result.stdout).toBe('');
  });

  it('the help of both commands says how --config and --config-replace read the file', async () => {
    for (const command of ['ci', 'replay']) {
      const help = (await inRoot([command, '--help'])).stdout.replace(/\s+/g, ' ');
      expect(help, command).toMatch(/--config <file> replay (every tape )?with the fields this config file sets laid over (its|the) recorded config/);
      expect(help, command).toContain('--config-replace with --config: the file is the whole config, fields it leaves out at their defaults');
    }
  });
});
