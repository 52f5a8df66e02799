/**
 * Patterns from a tape or a user cannot hang agentctl. `^(\w+\s?)*$` backtracks catastrophically in
 * JavaScript's RegExp on any text that starts with some forty word characters and then fails (the
 * system prompt does): a tape whose recorded config carries it, or a `--redact` with it, would stop
 * `replay`, `ci` and `record` for good, deaf to Ctrl-C. Matched by RE2 it costs nothing. Nothing is
 * timed: a hang is caught by the child's kill bound (runCli) or vitest's timeout.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { link, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli } from './support/cli.js';
import { startMockLlm } from './support/mock-llm.js';
import { loadScenario } from './support/scenario.js';
import { openTerminal, requireTmux } from './support/tmux.js';

const TAPES = fileURLToPath(new URL('../tapes/', import.meta.url));
const CATASTROPHIC = '^(\\w+\\s?)*$';
const env = { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, AGENTCTL_STORE: undefined };

let dir: string;
/** Children spawned here: killed at the end whatever happened (a hung one outlives its test's timeout). */
const children = new Set<ChildProcess>();
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-untrusted-patterns-'));
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

/** A golden tape whose recorded config (header and run_start alike) redacts CATASTROPHIC. */
async function evilTape(name: string, to = join(dir, `evil-${name}.tape.jsonl`)): Promise<string> {
  const [header = '', start = '', ...rest] = (await readFile(join(TAPES, `${name}.tape.jsonl`), 'utf8')).trim().split('\n');
  const head = JSON.parse(header) as { run: { config: { redact: string[] } } };
  const first = JSON.parse(start) as { config: { redact: string[] } };
  head.run.config.redact = [CATASTROPHIC];
  first.config.redact = [CATASTROPHIC];
  await writeFile(to, [JSON.stringify(head), JSON.stringify(first), ...rest].join('\n') + '\n');
  return to;
}

describe('a tape whose recorded config has a catastrophic redact pattern', () => {
  it('is replayed and ci\'d by the real binary to the end, with the exit codes of any drifted tape', async () => {
    const tape = await evilTape('demo-loop');
    // The pattern redacts every words-only text (tool names among them): the requests hash otherwise.
    const replayed = await runCli(['replay', tape, '--no-save', '--no-tui'], { env });
    expect(replayed.stderr).toBe('');
    expect(replayed.stdout).toMatch(/final state ERROR; exit 0/);
    expect(replayed.code).toBe(0);
    const ci = await runCli(['ci', tape], { env });
    expect(ci.stdout).toMatch(/^0 passed, 1 failed$/m);
    expect(ci.code).toBe(7);
  });

  it('Ctrl-C stops its replay in the middle of a paced stream: exit 130', async () => {
    // At a hundred-thousandth of the recorded pace the replay would take days.
    const tape = await evilTape('stream-cut');
    const child = spawn(process.execPath, [BIN, 'replay', tape, '--no-save', '--json', '--speed', '0.00001'], {
      env: { ...process.env, OPENAI_API_KEY: '', OPENAI_BASE_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    try {
      const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (data: string) => {
        out += data;
        if (out.includes('"type":"llm_request"') && child.signalCode === null && !child.killed) child.kill('SIGINT');
      });
      expect(await closed).toBe(130);
      const summary = JSON.parse(out.trim().split('\n').at(-1) as string) as Record<string, unknown>;
      expect(summary).toMatchObject({ type: 'summary', state: 'CANCELLED', exitCode: 130 });
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });

  it('Ctrl-C stops ci in a terminal while it goes through a corpus of them: exit 130', async () => {
    requireTmux();
    const corpus = join(dir, 'corpus');
    await mkdir(corpus);
    const tape = await evilTape('demo-loop', join(dir, 'corpus-tape.tape.jsonl'));
    // Enough tapes that ci is still at work when the key arrives: seconds of work on any machine.
    for (let i = 0; i < 1000; i++) await link(tape, join(corpus, `t${String(i).padStart(4, '0')}.tape.jsonl`));
    const term = await openTerminal({ cwd: dir, env: { ...env, NO_COLOR: '1' } });
    try {
      await term.type(`${process.execPath} ${BIN} ci ${corpus}`);
      await term.waitFor((screen) => /agentctl ci: \d+\/1000 tapes/.test(screen.text), 'the progress line');
      await term.press('C-c');
      await term.waitForPrompt();
      expect(await term.exitCode()).toBe(130);
    } finally {
      await term.kill();
    }
  });
});

describe('a model whose grep_files pattern is catastrophic', () => {
  it('gets its answer over long lines, and the run goes on to the end', async () => {
    const llm = await startMockLlm([
      { content: 'Searching.', tool_calls: [{ name: 'grep_files', arguments: { pattern: CATASTROPHIC } }, { name: 'grep_files', arguments: { pattern: '(a|aa)+$' } }] },
      { content: 'Done.' },
    ]);
    try {
      const workspace = join(dir, 'ws-grep');
      await mkdir(workspace);
      // A backtracking engine needs some 2^4000 steps for the first line (cut at 4,096 characters).
      await writeFile(join(workspace, 'long.txt'), `${'a'.repeat(4000)}!\n${'words and words '.repeat(1000)}\n`);
      const result = await runCli(['record', '--task', 'search', '--base-url', llm.baseURL, '--workspace', workspace, '--store', join(dir, 'store-grep'), '--json'], { env });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const outputs = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as { type: string; output?: string }).filter((e) => e.type === 'tool_result').map((e) => e.output);
      expect(outputs).toEqual([expect.stringMatching(/^long\.txt:2: words and words/), expect.stringMatching(/^no matches/)]);
      llm.assertConsumed();
    } finally {
      await llm.close();
    }
  });
});

describe('record --redact with a catastrophic pattern', () => {
  it('records to the end against a scripted model', async () => {
    const llm = await startMockLlm(loadScenario('tool-calls-then-answer'));
    try {
      const workspace = join(dir, 'ws');
      await mkdir(workspace);
      await writeFile(join(workspace, 'README.md'), '# demo\n');
      // The task alone makes a backtracking engine give up hope: sixty word characters, then a `!`.
      const result = await runCli(
        ['record', '--task', `${'a'.repeat(60)}!`, '--base-url', llm.baseURL, '--workspace', workspace, '--store', join(dir, 'store'), '--redact', CATASTROPHIC, '--json'],
        { env },
      );
      expect(result.stderr).toBe('');
      const summary = JSON.parse(result.stdout.trim().split('\n').at(-1) as string) as Record<string, unknown>;
      expect(summary).toMatchObject({ type: 'summary', state: 'COMPLETED', exitCode: 0 });
      expect(result.code).toBe(0);
      // It did redact: words-only texts (the events' types among them, as printed) are [REDACTED].
      expect(result.stdout).toContain('{"type":"[REDACTED]"');
      llm.assertConsumed();
    } finally {
      await llm.close();
    }
  });
});
