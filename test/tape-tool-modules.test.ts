/**
 * A tape names code but never has it run. A repository commits a tape whose recorded config names a
 * custom tools module committed beside it — here one that leaves a marker file when it is imported.
 * `agentctl ci` and `agentctl replay` reproduce the run from the tool definitions and outcomes the
 * tape records, and never import the module; `agentctl show` names it. A tape from before the
 * definitions were recorded is refused with one line saying how to run it with the user's own config.
 * Through the real binary, against the scripted model server on 127.0.0.1 (stopped before any replay).
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../src/core/events.js';
import { runCli, type CliResult } from './support/cli.js';
import { startMockLlm } from './support/mock-llm.js';

const offline = { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, GITHUB_ACTIONS: undefined, GITHUB_STEP_SUMMARY: undefined, CI: undefined };

/** A custom tools module that leaves `IMPORTED` beside itself the moment it is imported. */
const HELPER = `import { writeFileSync } from 'node:fs';
writeFileSync(new URL('./IMPORTED', import.meta.url), 'imported\\n');
export default [{
  name: 'lookup_weather',
  description: 'The weather in a city today.',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  idempotent: true,
  mutating: false,
  run: (args) => 'sunny in ' + args.city,
}];
`;

let dir: string;
/** The repository: tools/helper.mjs, agentctl.config.json naming it, tapes/weather.tape.jsonl. */
let repo: string;
let marker: string;
let tape: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-tape-modules-'));
  repo = join(dir, 'repo');
  await mkdir(join(repo, 'tools'), { recursive: true });
  await mkdir(join(repo, 'tapes'));
  await writeFile(join(repo, 'tools', 'helper.mjs'), HELPER);
  await writeFile(join(repo, 'agentctl.config.json'), JSON.stringify({ tools: ['read_file'], toolModules: ['tools/helper.mjs'], seed: 5 }));
  marker = join(repo, 'tools', 'IMPORTED');
  const workspace = join(dir, 'ws');
  await mkdir(workspace);
  const store = join(dir, 'store-record');
  const llm = await startMockLlm([
    { content: 'Looking it up.', tool_calls: [{ name: 'lookup_weather', arguments: { city: 'Oslo' } }] },
    { content: 'It is sunny in Oslo.' },
  ]);
  try {
    const recorded = await runCli(
      ['record', '--task', 'weather in Oslo?', '--config', 'agentctl.config.json', '--base-url', llm.baseURL, '--workspace', workspace, '--store', store, '--name', 'weather'],
      { cwd: repo, env: offline },
    );
    expect(recorded.code, recorded.stderr).toBe(0);
    llm.assertConsumed();
  } finally {
    await llm.close();
  }
  // The recording ran the module (the user's own config named it): the marker shows an import.
  expect(existsSync(marker)).toBe(true);
  tape = join(repo, 'tapes', 'weather.tape.jsonl');
  const exported = await runCli(['export', 'weather', '-o', tape, '--store', store]);
  expect(exported.code, exported.stderr).toBe(0);
}, 60_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Run agentctl in the repository, the marker removed first; the result, and whether the module was imported. */
async function inRepo(args: string[]): Promise<CliResult & { imported: boolean }> {
  await rm(marker, { force: true });
  const result = await runCli(args, { cwd: repo, env: offline });
  return { ...result, imported: existsSync(marker) };
}

function summaryOf(result: CliResult): Record<string, unknown> {
  return JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
}

function eventsOf(result: CliResult): RunEvent[] {
  return result.stdout.trim().split('\n').slice(0, -1).map((line) => JSON.parse(line) as RunEvent);
}

/** A copy of the tape as an agentctl that did not record tool definitions wrote it: run_start without `customTools`. */
async function withoutDefinitions(to: string): Promise<void> {
  const lines = (await readFile(tape, 'utf8')).trimEnd().split('\n');
  const start = JSON.parse(lines[1] as string) as Record<string, unknown>;
  expect(start['customTools']).toBeDefined();
  delete start['customTools'];
  lines[1] = JSON.stringify(start);
  await writeFile(to, lines.join('\n') + '\n');
}

describe('a tape whose config names a tool module committed beside it', () => {
  it('records the custom tool\'s definition on run_start', async () => {
    const start = JSON.parse((await readFile(tape, 'utf8')).split('\n')[1] as string) as RunEvent;
    expect(start).toMatchObject({
      type: 'run_start',
      config: { toolModules: ['tools/helper.mjs'] },
      customTools: [{
        name: 'lookup_weather',
        description: 'The weather in a city today.',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        idempotent: true,
        mutating: false,
        timeoutMs: 30_000,
      }],
    });
  });

  it('agentctl ci passes it without importing the module', async () => {
    const result = await inRepo(['ci', 'tapes/']);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe('1 passed, 0 failed');
    expect(result.imported).toBe(false);
  });

  it('agentctl replay reproduces it without importing the module, with --tools live too', async () => {
    for (const extra of [[], ['--tools', 'live', '--allow-side-effects']]) {
      const result = await inRepo(['replay', 'tapes/weather.tape.jsonl', '--no-save', '--json', ...extra]);
      expect(result.code, result.stderr).toBe(0);
      expect(summaryOf(result)).toMatchObject({ verdict: 'reproduced', firstDivergence: null });
      expect(eventsOf(result).find((e) => e.type === 'tool_result')).toMatchObject({ tool: 'lookup_weather', status: 'ok', output: 'sunny in Oslo' });
      expect(result.imported, extra.join(' ')).toBe(false);
    }
  });

  it('a call of the custom tool that is not on the tape is denied, not run', async () => {
    const patch = join(dir, 'bergen.json');
    await writeFile(patch, JSON.stringify({ content: 'And Bergen?', tool_calls: [{ name: 'lookup_weather', arguments: { city: 'Bergen' } }] }));
    const result = await inRepo(['replay', 'tapes/weather.tape.jsonl', '--no-save', '--json', '--patch', `1=@${patch}`, '--patch', '2=Done.']);
    expect(result.code, result.stderr).toBe(0);
    const events = eventsOf(result);
    expect(events.find((e) => e.type === 'guardrail' && e.rule === 'replay_tool_not_loaded')).toMatchObject({ verdict: 'block', tool: 'lookup_weather' });
    expect(events.find((e) => e.type === 'tool_result' && e.tool === 'lookup_weather' && e.step === 1)).toMatchObject({ status: 'denied' });
    expect(result.imported).toBe(false);
  });

  it('agentctl show lists its tools, the custom one marked, and names the module without loading it', async () => {
    const store = join(dir, 'store-show');
    expect((await runCli(['import', tape, '--store', store])).code).toBe(0);
    const result = await inRepo(['show', 'weather', '--store', store]);
    expect(result.code, result.stderr).toBe(0);
    const row = (name: string): string | undefined => result.stdout.split('\n').find((line) => line.startsWith(`${name} `))?.replace(new RegExp(`^${name}\\s+`), '');
    expect(row('tools')).toBe('read_file, lookup_weather (custom)');
    expect(row('tool modules')).toBe('tools/helper.mjs (not loaded by replay or ci, which use the recorded definitions)');
    const json = await inRepo(['show', 'weather', '--store', store, '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ tools: [{ name: 'read_file', custom: false }, { name: 'lookup_weather', custom: true }] });
    expect(result.imported || json.imported).toBe(false);
  });
});

describe('a tape that names tool modules and does not record their definitions', () => {
  it('is refused by replay in one line (exit 2) saying how to run it, and is an error in ci; never imported', async () => {
    const old = join(dir, 'old', 'weather-old.tape.jsonl');
    await mkdir(join(dir, 'old'));
    await withoutDefinitions(old);
    const replay = await inRepo(['replay', old, '--no-save']);
    expect(replay.code).toBe(2);
    const lines = replay.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^agentctl: .*weather-old\.tape\.jsonl was recorded with custom tools from tools\/helper\.mjs, .*--config <file>$/);
    expect(replay.imported).toBe(false);

    const ci = await inRepo(['ci', join(dir, 'old'), '--reporter', 'json']);
    expect(ci.code).toBe(7);
    expect(JSON.parse(ci.stdout)).toMatchObject({ results: [{ outcome: 'error', code: 'AGENTCTL_INVALID_OPTION', message: expect.stringContaining('--config <file>') }] });
    expect(ci.imported).toBe(false);

    // It still reads as a tape (import, view): only running it needs its tools.
    expect((await runCli(['import', old, '--store', join(dir, 'store-old')])).code).toBe(0);
  });

  it('replays with the user\'s own config, whose modules are the user\'s to load', async () => {
    const old = join(dir, 'weather-old-config.tape.jsonl');
    await withoutDefinitions(old);
    const result = await inRepo(['replay', old, '--no-save', '--json', '--config', 'agentctl.config.json']);
    expect(result.code, result.stderr).toBe(0);
    expect(summaryOf(result)).toMatchObject({ verdict: 'reproduced' });
    expect(result.imported).toBe(true);
  });
});

describe('custom tools run live on replay only from the user\'s own config', () => {
  it('a --config that names no toolModules is laid over the tape\'s config: the tape\'s modules stay unloaded, its recorded tools stand', async () => {
    await writeFile(join(repo, 'threshold.config.json'), JSON.stringify({ guardrails: { identicalCallBlock: 2 } }));
    const replayed = await inRepo(['replay', 'tapes/weather.tape.jsonl', '--no-save', '--json', '--config', 'threshold.config.json']);
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(summaryOf(replayed)).toMatchObject({ verdict: 'reproduced' });
    expect(replayed.imported).toBe(false);
    const ci = await inRepo(['ci', 'tapes/', '--config', 'threshold.config.json']);
    expect(ci.code, ci.stdout).toBe(0);
    expect(ci.imported).toBe(false);
  });

  it('--tools live with --config runs the user\'s module', async () => {
    const result = await inRepo(['replay', 'tapes/weather.tape.jsonl', '--no-save', '--json', '--tools', 'live', '--config', 'agentctl.config.json']);
    expect(result.code, result.stderr).toBe(0);
    expect(summaryOf(result)).toMatchObject({ verdict: 'reproduced' });
    expect(result.imported).toBe(true);
  });
});
