/**
 * `agentctl ci` through the real binary: the golden corpus passes; a tampered copy drifts and every
 * reporter names the tape, the step and the field; bad tapes are invalid with their line; shards
 * partition the corpus evenly; --update rewrites exactly the drifted tapes; a what-if reports what a
 * lowered threshold changes, tape by tape.
 */
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';
import { editedTape } from './support/edited-tapes.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TAPES = join(ROOT, 'tapes');
const DEMO = join(TAPES, 'demo-loop.tape.jsonl');
const DEMO_CONFIG = join(ROOT, 'fixtures', 'configs', 'demo.config.json');
const offline = { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, GITHUB_ACTIONS: undefined, GITHUB_STEP_SUMMARY: undefined, CI: undefined };
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-ci-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function corpusFiles(): Promise<string[]> {
  return (await readdir(TAPES)).filter((f) => f.endsWith('.tape.jsonl') || f.endsWith('.tape.jsonl.gz')).sort();
}

/** A copy of the demo tape whose model answer at step 3 says something else (the request at step 4 then differs). */
async function tamperedCopy(path: string): Promise<void> {
  const lines = (await readFile(DEMO, 'utf8')).split('\n');
  const at = lines.findIndex((l) => l.includes('"type":"llm_response"') && l.includes('"step":3'));
  lines[at] = (lines[at] as string).replace('I still need the port; reading the config once more.', 'I still need the port.');
  await writeFile(path, lines.join('\n'));
}

/** The 1-based line of the demo tape holding the request of `step`. */
async function requestLine(path: string, step: number): Promise<number> {
  const lines = (await readFile(path, 'utf8')).split('\n');
  return lines.findIndex((l) => l.includes('"type":"llm_request"') && l.includes(`"step":${step},`)) + 1;
}

describe('agentctl ci over the golden corpus', () => {
  it('passes every committed tape, offline, and says so in the closing line', async () => {
    const files = await corpusFiles();
    expect(files.length).toBeGreaterThanOrEqual(1);
    const result = await runCli(['ci', 'tapes/'], { cwd: ROOT, env: offline, timeoutMs: 120_000 });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe(`${files.length} passed, 0 failed`);
  });
});

describe('a drifted, a truncated and a corrupt tape', () => {
  let corpus: string;
  beforeAll(async () => {
    corpus = join(dir, 'drift');
    await mkdir(join(corpus, 'nested'), { recursive: true });
    await copyFile(DEMO, join(corpus, 'good.tape.jsonl'));
    await tamperedCopy(join(corpus, 'nested', 'changed.tape.jsonl'));
  });

  it('text: exit 7, the tape, its step, the event and the field, recorded vs replayed', async () => {
    const result = await runCli(['ci', corpus], { cwd: dir, env: offline });
    expect(result.code, result.stderr).toBe(7);
    const line = await requestLine(join(corpus, 'nested', 'changed.tape.jsonl'), 4);
    expect(result.stdout).toContain(`DRIFT       drift/nested/changed.tape.jsonl:${line}`);
    expect(result.stdout).toContain('step 4, llm_request, at messages[8].content');
    expect(result.stdout).toContain('recorded: "I still need the port; reading the config once more."');
    expect(result.stdout).toContain('replayed: "I still need the port."');
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe('1 passed, 1 failed');
  });

  it('json: one object with the results and totals', async () => {
    const result = await runCli(['ci', corpus, '--reporter', 'json'], { cwd: dir, env: offline });
    expect(result.code).toBe(7);
    const report = JSON.parse(result.stdout) as {
      exitCode: number;
      totals: Record<string, number>;
      results: { tape: string; outcome: string; drift?: { step: number; path: string; eventType: string; recorded: unknown; replayed: unknown } }[];
    };
    expect(report.exitCode).toBe(7);
    expect(report.totals).toMatchObject({ tapes: 2, passed: 1, failed: 1, drift: 1 });
    expect(report.results.map((r) => [r.tape, r.outcome])).toEqual([['drift/good.tape.jsonl', 'pass'], ['drift/nested/changed.tape.jsonl', 'drift']]);
    expect(report.results[1]?.drift).toMatchObject({ step: 4, eventType: 'llm_request', path: 'messages[8].content', replayed: 'I still need the port.' });
  });

  it('junit: XML a real parser reads, with a testcase per tape and the failure text', async () => {
    const file = join(dir, 'report.xml');
    const result = await runCli(['ci', corpus, '--reporter', 'junit:report.xml', '--reporter', 'text'], { cwd: dir, env: offline });
    expect(result.code).toBe(7);
    expect(result.stdout).toContain('1 passed, 1 failed');
    const xml = await readFile(file, 'utf8');
    interface Suite {
      name: string; tests: string; failures: string; errors: string; time: string; timestamp: string; testcase: Record<string, unknown>[];
    }
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml) as {
      testsuites: { tests: string; failures: string; errors: string; testsuite: Suite };
    };
    const suite = doc.testsuites.testsuite;
    expect([suite.tests, suite.failures, suite.errors]).toEqual(['2', '1', '0']);
    expect(Number.isFinite(Number(suite.time))).toBe(true);
    expect(Number.isNaN(Date.parse(suite.timestamp))).toBe(false);
    const cases = suite.testcase;
    expect(cases.map((c) => [c.classname, c.name])).toEqual([
      ['drift/good.tape.jsonl', 'demo'],
      ['drift/nested/changed.tape.jsonl', 'demo'],
    ]);
    const failure = cases[1]?.failure as { type: string; message: string; '#text': string };
    expect(failure.type).toBe('drift');
    expect(failure.message).toBe('drift at step 4: request 4 differs at messages[8].content');
    expect(failure['#text']).toContain('recorded: "I still need the port; reading the config once more."');
    expect(cases[0]?.failure).toBeUndefined();
  });

  it('github: one ::error annotation per failed tape, with file, line and title, and a job summary', async () => {
    const summary = join(dir, 'summary.md');
    await writeFile(summary, '# earlier steps\n');
    const result = await runCli(['ci', corpus], { cwd: dir, env: { ...offline, GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary } });
    expect(result.code).toBe(7);
    const annotations = result.stdout.split('\n').filter((l) => l.startsWith('::'));
    const line = await requestLine(join(corpus, 'nested', 'changed.tape.jsonl'), 4);
    expect(annotations).toEqual([
      `::error file=drift/nested/changed.tape.jsonl,line=${line},title=agentctl ci%3A drift at step 4::step 4, llm_request, at messages[8].content: request 4 differs at messages[8].content` +
        '%0Arecorded: "I still need the port; reading the config once more."%0Areplayed: "I still need the port."',
    ]);
    const markdown = await readFile(summary, 'utf8');
    expect(markdown.startsWith('# earlier steps\n### agentctl ci')).toBe(true);
    expect(markdown).toContain('**1 passed, 1 failed**');
    expect(markdown).toContain(`| drift | \`drift/nested/changed.tape.jsonl:${line}\` |`);
  });

  it('caps annotations at ten and sums up the rest', async () => {
    const many = join(dir, 'many');
    await mkdir(many, { recursive: true });
    for (let i = 0; i < 12; i++) await tamperedCopy(join(many, `t${String(i).padStart(2, '0')}.tape.jsonl`));
    const result = await runCli(['ci', many, '--reporter', 'github'], { cwd: dir, env: offline });
    const annotations = result.stdout.split('\n').filter((l) => l.startsWith('::error'));
    expect(annotations).toHaveLength(11);
    expect(annotations[10]).toBe('::error title=agentctl ci::2 more tapes failed: many/t10.tape.jsonl, many/t11.tape.jsonl');

    // --bail 2: no new tape starts once that many have failed; the rest are reported skipped.
    const stopped = await runCli(['ci', many, '--bail', '2', '--concurrency', '1', '--reporter', 'junit:stopped.xml'], { cwd: dir, env: offline });
    expect(stopped.code).toBe(7);
    expect(stopped.stdout).toContain('stopped after 2 failures (--bail): 10 tapes not run');
    expect(stopped.stdout.trimEnd().split('\n').at(-1)).toBe('0 passed, 2 failed, 10 skipped');
    expect((await readFile(join(dir, 'stopped.xml'), 'utf8')).match(/<skipped /g)).toHaveLength(10);
  });

  it('a truncated or corrupt tape is invalid, with its line; alone, that is exit 9', async () => {
    const bad = join(dir, 'bad');
    await mkdir(bad, { recursive: true });
    const text = await readFile(DEMO, 'utf8');
    await writeFile(join(bad, 'truncated.tape.jsonl'), text.slice(0, text.indexOf('"type":"tool_call"') + 10));
    await writeFile(join(bad, 'corrupt.tape.jsonl'), text.replace('"type":"budget"', '"type":"budjet"'));
    const result = await runCli(['ci', bad, '--reporter', 'json'], { cwd: dir, env: offline });
    expect(result.code).toBe(9);
    const report = JSON.parse(result.stdout) as { results: { tape: string; outcome: string; line?: number; message: string }[] };
    const lines = text.split('\n');
    const budgetLine = lines.findIndex((l) => l.includes('"type":"budget"')) + 1;
    const toolLine = lines.findIndex((l) => l.includes('"type":"tool_call"')) + 1;
    expect(report.results).toEqual([
      expect.objectContaining({ tape: 'bad/corrupt.tape.jsonl', outcome: 'invalid', code: 'AGENTCTL_TAPE_INVALID', line: budgetLine }),
      expect.objectContaining({ tape: 'bad/truncated.tape.jsonl', outcome: 'invalid', code: 'AGENTCTL_TAPE_INVALID', line: toolLine }),
    ]);
    expect(report.results[0]?.message).toMatch(new RegExp(`^line ${budgetLine}: invalid event`));
  });

  it('usage: no tapes found, a bad --shard, a bad reporter → 2; a path that does not exist → 10', async () => {
    await mkdir(join(dir, 'empty'), { recursive: true });
    const cases: [string[], number, RegExp][] = [
      [['ci', 'empty'], 2, /no tapes found in empty/],
      [['ci', 'drift', '--shard', '0/3'], 2, /bad --shard '0\/3'/],
      [['ci', 'drift', '--shard', '4/3'], 2, /bad --shard '4\/3'/],
      [['ci', 'drift', '--shard', 'x'], 2, /bad --shard 'x'/],
      [['ci', 'drift', '--reporter', 'xml'], 2, /unknown reporter 'xml'/],
      [['ci', 'drift', '--concurrency', '0'], 2, /--concurrency must be/],
      [['ci', 'no-such-dir'], 10, /no such file or directory: no-such-dir/],
    ];
    for (const [args, code, message] of cases) {
      const result = await runCli(args, { cwd: dir, env: offline });
      expect(result.code, args.join(' ')).toBe(code);
      expect(result.stderr.split('\n')[0], args.join(' ')).toMatch(message);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
  });
});

describe('report files', () => {
  it('one that cannot be written is one line: exit 12 for a full disk, 2 for a directory that does not exist', async () => {
    const cases: [string, number, RegExp][] = [
      ['json:/dev/full', 12, /^agentctl: cannot write \/dev\/full: no space left on the device \(ENOSPC\)\n/],
      ['junit:no-such-dir/report.xml', 2, /^agentctl: cannot write no-such-dir\/report.xml: its directory does not exist\n/],
    ];
    for (const [reporter, code, message] of cases) {
      const result = await runCli(['ci', DEMO, '--reporter', reporter], { cwd: dir, env: offline });
      expect(result.code, reporter).toBe(code);
      expect(result.stderr, reporter).toMatch(message);
      expect(result.stderr, reporter).not.toMatch(/\n\s+at /);
    }
  });
});

describe('an exhausted tape', () => {
  it('fails the run: reported with what the replay needed, exit 7; under a what-if it is reported and fails nothing', async () => {
    const corpus = join(dir, 'exhausted');
    await mkdir(corpus, { recursive: true });
    // A complete tape whose last model answer is gone: the replay needs one the tape does not have.
    await editedTape(DEMO, join(corpus, 'no-answer.tape.jsonl'), { drop: (e) => e.type === 'llm_response' && e.step === 4 });
    await copyFile(DEMO, join(corpus, 'good.tape.jsonl'));

    const json = await runCli(['ci', corpus, '--reporter', 'json'], { cwd: dir, env: offline });
    expect(json.code, json.stderr).toBe(7);
    const report = JSON.parse(json.stdout) as {
      exitCode: number; totals: Record<string, number>; results: { tape: string; outcome: string; message: string; exhaustedAt?: number }[];
    };
    expect(report.exitCode).toBe(7);
    expect(report.totals).toMatchObject({ tapes: 2, passed: 1, failed: 1, exhausted: 1 });
    expect(report.results[1]).toMatchObject({
      tape: 'exhausted/no-answer.tape.jsonl', outcome: 'exhausted', exhaustedAt: 4, message: 'the replay needs a model answer at step 4 that the tape does not have',
    });
    const text = await runCli(['ci', corpus], { cwd: dir, env: offline });
    expect(text.code).toBe(7);
    expect(text.stdout).toContain('EXHAUSTED   exhausted/no-answer.tape.jsonl');
    expect(text.stdout.trimEnd().split('\n').at(-1)).toBe('1 passed, 1 failed');

    // A what-if cannot tell past step 4 either: it says so, and the exit code and the counts agree that nothing failed.
    const whatIf = await runCli(['ci', corpus, '--set', 'guardrails.identicalCallBlock=3'], { cwd: dir, env: offline });
    expect(whatIf.code, whatIf.stdout + whatIf.stderr).toBe(0);
    expect(whatIf.stdout).toMatch(/EXHAUSTED +exhausted\/no-answer\.tape\.jsonl +cannot tell past step 4/);
    expect(whatIf.stdout.trimEnd().split('\n').at(-1)).toBe('2 passed, 0 failed');
  });
});

describe('shards', () => {
  it('partition the corpus exactly and evenly, and adding a tape moves at most one other across each cut', async () => {
    const corpus = join(dir, 'shards');
    await mkdir(corpus, { recursive: true });
    for (let i = 0; i < 30; i++) await copyFile(DEMO, join(corpus, `run-${i}.tape.jsonl`));
    const list = async (shard: string): Promise<string[]> => {
      const result = await runCli(['ci', 'shards', '--shard', shard, '--list'], { cwd: dir, env: offline });
      expect(result.code).toBe(0);
      return result.stdout.split('\n').filter((l) => l !== '');
    };
    const before = [await list('1/3'), await list('2/3'), await list('3/3')];
    const all = before.flat();
    expect(all.sort()).toEqual((await readdir(corpus)).map((f) => `shards/${f}`).sort());
    expect(new Set(all).size).toBe(30);
    expect(before.map((shard) => shard.length)).toEqual([10, 10, 10]);

    await copyFile(DEMO, join(corpus, 'run-new.tape.jsonl'));
    const after = [await list('1/3'), await list('2/3'), await list('3/3')];
    expect(after.map((shard) => shard.length)).toEqual([11, 10, 10]);
    expect(after.flat()).toContain('shards/run-new.tape.jsonl');
    const moved = before.flatMap((shard, i) => shard.filter((p) => !(after[i] as string[]).includes(p)));
    expect(moved.length).toBeLessThanOrEqual(2);
  });
});

describe('--update', () => {
  it('rewrites exactly the drifted tapes from their replays, then the corpus passes; refused under CI', async () => {
    const corpus = join(dir, 'update');
    await mkdir(corpus, { recursive: true });
    await copyFile(DEMO, join(corpus, 'demo.tape.jsonl'));
    // A tape the change does not touch: the demo cut before its third identical read.
    const lines = (await readFile(DEMO, 'utf8')).trim().split('\n');
    const header = JSON.parse(lines[0] as string) as { run: Record<string, unknown> };
    const short = lines.slice(1).filter((l) => (JSON.parse(l) as { step: number }).step <= 1);
    header.run = { ...header.run, name: 'short', status: 'incomplete', eventCount: short.length };
    delete header.run.finalState;
    delete header.run.totals;
    await writeFile(join(corpus, 'short.tape.jsonl'), `${[JSON.stringify(header), ...short].join('\n')}\n`);
    const shortBefore = await readFile(join(corpus, 'short.tape.jsonl'));

    // The team's agent now blocks identical calls at the 2nd attempt.
    const config = JSON.parse(await readFile(DEMO_CONFIG, 'utf8')) as { guardrails?: Record<string, number> };
    config.guardrails = { ...config.guardrails, identicalCallBlock: 2 };
    const configFile = join(dir, 'new-agent.config.json');
    await writeFile(configFile, JSON.stringify({ ...config, seed: 42 }));

    const check = await runCli(['ci', 'update', '--config', configFile, '--reporter', 'json'], { cwd: dir, env: offline });
    expect(check.code, check.stderr).toBe(7);
    const drifted = (JSON.parse(check.stdout) as { results: { tape: string; outcome: string }[] }).results;
    expect(drifted.map((r) => [r.tape, r.outcome])).toEqual([['update/demo.tape.jsonl', 'drift'], ['update/short.tape.jsonl', 'pass']]);

    const refused = await runCli(['ci', 'update', '--config', configFile, '--update'], { cwd: dir, env: { ...offline, CI: 'true' } });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--update is refused under CI/);

    const updated = await runCli(['ci', 'update', '--config', configFile, '--update'], { cwd: dir, env: offline });
    expect(updated.code, updated.stdout + updated.stderr).toBe(0);
    expect(updated.stdout).toContain('UPDATED     update/demo.tape.jsonl');
    expect(await readFile(join(corpus, 'short.tape.jsonl'))).toEqual(shortBefore);
    const rewritten = (await readFile(join(corpus, 'demo.tape.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const run = (rewritten[0] as { run: Record<string, unknown> }).run;
    expect(run.id).toBe((JSON.parse(lines[0] as string) as { run: { id: string } }).run.id);
    expect(run.updates).toEqual([{ at: expect.any(String), note: `updated by agentctl ci --update --config ${configFile}` }]);
    expect((run.config as { guardrails: { identicalCallBlock: number } }).guardrails.identicalCallBlock).toBe(2);
    // The model's answers are the recorded ones; the decisions are re-derived.
    const answers = (events: Record<string, unknown>[]): unknown[] => events.filter((e) => e.type === 'llm_response').map((e) => e.response);
    const original = lines.slice(1).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(answers(rewritten.slice(1))).toEqual(answers(original));
    expect(rewritten.some((e) => e.type === 'guardrail' && e.rule === 'identical_call_block' && e.step === 2)).toBe(true);
    expect(rewritten.some((e) => e.type === 'divergence')).toBe(false);

    const again = await runCli(['ci', 'update', '--config', configFile], { cwd: dir, env: offline });
    expect(again.code, again.stdout).toBe(0);
    expect(again.stdout.trimEnd().split('\n').at(-1)).toBe('2 passed, 0 failed');
    // Its own config is now the new one: it passes without --config too.
    expect((await runCli(['ci', 'update/demo.tape.jsonl'], { cwd: dir, env: offline })).code).toBe(0);
  });
});

describe('what-if across a corpus', () => {
  it('a lowered identicalCallBlock changes exactly the tapes whose identical calls reach it, at the right step and counters', async () => {
    const result = await runCli(['ci', 'tapes/', '--set', 'guardrails.identicalCallBlock=2', '--reporter', 'json'], { cwd: ROOT, env: offline, timeoutMs: 120_000 });
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as {
      mode: string;
      whatIf: { summary: string; changed: number; unchanged: number };
      results: { tape: string; outcome: string; whatIf: { firstChange: { step: number; before: string; after: string; rule: string } | null } }[];
    };
    expect(report.mode).toBe('what-if');
    // The oracle: a tape changes when some identical call reached its 2nd attempt (and was not blocked already).
    for (const file of await corpusFiles()) {
      const events = (await readFile(join(TAPES, file), 'utf8')).trim().split('\n').slice(1).map((l) => JSON.parse(l) as Record<string, unknown>);
      const second = events.find((e) => e.type === 'guardrail' && e.gate === 'loop_guard' && e.verdict === 'allow' && (e.counters as { after: { attempts?: number } }).after.attempts === 2);
      const entry = report.results.find((r) => r.tape === `tapes/${file}`);
      if (second === undefined) {
        expect(entry?.outcome, file).toBe('pass');
      } else {
        expect(entry?.outcome, file).toBe('changed');
        expect(entry?.whatIf.firstChange, file).toEqual(expect.objectContaining({ step: second.step, rule: 'identical_call_block', before: 'allow (2 of 3)', after: 'block (2 of 2)' }));
      }
    }
    expect(report.whatIf.changed + report.whatIf.unchanged).toBeLessThanOrEqual(report.results.length);
    const text = await runCli(['ci', 'tapes/', '--set', 'guardrails.identicalCallBlock=2'], { cwd: ROOT, env: offline, timeoutMs: 120_000 });
    expect(text.stdout).toContain('what-if guardrails.identicalCallBlock=2 over');
    expect(text.stdout).toContain(report.whatIf.summary);
    expect((await runCli(['ci', 'tapes/', '--set', 'guardrails.identicalCallBlock=2', '--fail-on-change'], { cwd: ROOT, env: offline, timeoutMs: 120_000 })).code).toBe(report.whatIf.changed > 0 ? 7 : 0);
  });
});
