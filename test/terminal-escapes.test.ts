/**
 * Text from a tape, a task, a model or a file reaches the terminal with its control characters as
 * visible escapes, through the real binary. The runs here hold, in their task, name, model answers
 * and tool output, a window title (OSC 0), a clipboard write (OSC 52), a cleared screen (CSI 2J), a
 * bare ESC, a C1 CSI (U+009B) and a BEL. Output goes to pipes with NO_COLOR, so agentctl itself
 * prints no escape sequence: any control character but newline and tab in the output came from
 * the run. `--json` holds none raw either, and parses back to the same text.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from './support/cli.js';
import { startMockLlm } from './support/mock-llm.js';
import { killProxies, startProxy } from './support/proxy.js';

const HOSTILE = 'A\u001b]0;pwned-title\u0007B\u001b]52;c;cHduZWQ=\u0007C\u001b[2JD bare\u001b E\u009b31mF bell\u0007G';
/** How HOSTILE's start shows: its escapes visible. */
const SHOWN = 'A\\u001b]0;pwned-title\\u0007B\\u001b]52;c;cHduZWQ=\\u0007C\\u001b[2JD bare\\u001b E\\u009b31mF';
const TASK = `task ${HOSTILE}`;
const NAME = `name ${HOSTILE}`;
const noModel = { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined };

let dir: string;
let store: string;
/** The run named NAME, exported. */
let tape: string;
/** The same tape with a tool of HOSTILE's name in its recorded config: refused with a line quoting it. */
let invalid: string;
let recordText: CliResult;
let recordJson: CliResult;

/** Every control character but newline and tab in `text`, with what surrounds it (none expected). */
function rawControls(text: string): string[] {
  return [...text.matchAll(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g)].map(
    (m) => `U+${(m[0].codePointAt(0) ?? 0).toString(16).padStart(4, '0')} at ${m.index}: ${JSON.stringify(text.slice(Math.max(0, m.index - 20), m.index + 20))}`,
  );
}

function expectPrintable(result: CliResult): void {
  expect(rawControls(result.stdout)).toEqual([]);
  expect(rawControls(result.stderr)).toEqual([]);
}

function jsonLines(result: CliResult): unknown[] {
  expectPrintable(result);
  return result.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as unknown);
}

/** Record a run of two steps: an answer and a read of `evil.txt`, then `final`. */
async function record(name: string, final: string, extra: string[]): Promise<CliResult> {
  const ws = join(dir, `ws-${final.length}-${extra.length}`);
  await mkdir(ws, { recursive: true });
  await writeFile(join(ws, 'evil.txt'), `file ${HOSTILE}\nsecond line`);
  const config = join(dir, 'agentctl.config.json');
  await writeFile(config, JSON.stringify({ tools: ['read_file'] }));
  const llm = await startMockLlm([{ content: `model ${HOSTILE}`, tool_calls: [{ name: 'read_file', arguments: { path: 'evil.txt' } }] }, { content: final }]);
  try {
    const result = await runCli(['record', '--task', TASK, '--config', config, '--base-url', llm.baseURL, '--workspace', ws, '--store', store, '--name', name, ...extra], { env: noModel });
    expect(result.code, result.stderr).toBe(0);
    llm.assertConsumed();
    return result;
  } finally {
    await llm.close();
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-escapes-'));
  store = join(dir, 'store');
  recordText = await record(NAME, `done ${HOSTILE}`, ['--no-tui']);
  recordJson = await record('other', `finished ${HOSTILE}`, ['--json']);
  tape = join(dir, 'run.tape.jsonl');
  expect((await runCli(['export', NAME, '--store', store, '-o', tape])).code).toBe(0);
  const [header, ...events] = (await readFile(tape, 'utf8')).split('\n');
  invalid = join(dir, 'invalid.tape.jsonl');
  await writeFile(invalid, [header?.replace('"tools":["read_file"]', `"tools":["read_file",${JSON.stringify(HOSTILE)}]`), ...events].join('\n'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('control characters from a run never reach the terminal raw', () => {
  it('record: the task, the answers and the tool output are printed with their escapes visible', () => {
    expectPrintable(recordText);
    const lines = recordText.stdout.split('\n');
    expect(lines.find((l) => l.startsWith('[0] user: '))).toContain(`task ${SHOWN}`);
    expect(lines.find((l) => l.startsWith('[0] ← assistant'))).toContain(`"model ${SHOWN}`);
    // A tool's output is one line: its line break is an escape too (shortened, as a space).
    expect(lines.find((l) => l.startsWith('[0]   ok read_file: '))).toContain(`file ${SHOWN} bell\\u0007G second line`);
    expect(lines.find((l) => l.startsWith('[1] ← assistant'))).toContain(`"done ${SHOWN}`);
  });

  it('record --json: no C1 control raw, and the events parse back to what the model said', () => {
    const events = jsonLines(recordJson) as { type: string; task?: string; response?: { message: { content: string } } }[];
    expect(events[0]).toMatchObject({ type: 'run_start', task: TASK });
    expect(events.filter((e) => e.type === 'llm_response').map((e) => e.response?.message.content)).toEqual([`model ${HOSTILE}`, `finished ${HOSTILE}`]);
  });

  it('show: the task and the name in the table; --json the same text, escaped', async () => {
    const text = await runCli(['show', NAME, '--store', store]);
    expect(text.code, text.stderr).toBe(0);
    expectPrintable(text);
    expect(text.stdout).toMatch(new RegExp(`^task +task ${escapeRegExp(SHOWN)}`, 'm'));
    expect(text.stdout).toMatch(new RegExp(`^name +name ${escapeRegExp(SHOWN)}`, 'm'));
    const [json] = jsonLines(await runCli(['show', NAME, '--store', store, '--json'])) as { run: { task: string; name: string } }[];
    expect(json?.run).toMatchObject({ task: TASK, name: NAME });
  });

  it('ls: one row per run; --json the same text, escaped', async () => {
    const text = await runCli(['ls', '--store', store]);
    expect(text.code, text.stderr).toBe(0);
    expectPrintable(text);
    expect(text.stdout.trimEnd().split('\n')).toHaveLength(3);
    expect(text.stdout).toContain(`[name ${SHOWN.slice(0, 30)}`);
    const [runs] = jsonLines(await runCli(['ls', '--store', store, '--json'])) as { task: string }[][];
    expect(runs?.map((run) => run.task)).toEqual([TASK, TASK]);
  });

  it('view --no-tui of a tape file: every event line, and the closing line with its name', async () => {
    const text = await runCli(['view', tape, '--no-tui']);
    expect(text.code, text.stderr).toBe(0);
    expectPrintable(text);
    expect(text.stdout).toContain(`[0] run: task ${SHOWN}`);
    expect(text.stdout).toContain(`[1] ← assistant "done ${SHOWN}`);
    expect(text.stdout.trimEnd().split('\n').at(-1)).toContain(`(name ${SHOWN}`);
    const events = jsonLines(await runCli(['view', tape, '--json'])) as { type: string; output?: string }[];
    expect(events.find((e) => e.type === 'tool_result')?.output).toBe(`file ${HOSTILE}\nsecond line`);
  });

  it('replay --no-tui --no-save of a tape file: every event line and the verdict', async () => {
    const text = await runCli(['replay', tape, '--no-tui', '--no-save'], { env: noModel });
    expect(text.code, text.stderr).toBe(0);
    expectPrintable(text);
    expect(text.stdout).toContain(`[0]   ok read_file: file ${SHOWN}`);
    expect(text.stdout).toContain('reproduced: every event matches the tape');
    // A patched answer: the closing report quotes the recorded and the replayed text side by side.
    const patched = await runCli(['replay', tape, '--patch', `1=patched ${HOSTILE}`, '--no-tui', '--no-save'], { env: noModel });
    expect(patched.code, patched.stderr).toBe(0);
    expectPrintable(patched);
    expect(patched.stdout).toMatch(/^ {4}recorded: "done A\\u001b\]0;pwned-title/m);
    expect(patched.stdout).toMatch(/^ {4}replayed: "patched A\\u001b\]0;pwned-title/m);
    const events = jsonLines(await runCli(['replay', tape, '--json', '--no-save'], { env: noModel })) as { type: string; task?: string }[];
    expect(events[0]).toMatchObject({ type: 'run_start', task: TASK });
  });

  it('diff of a tape file and a run: the header, both sides of the differing step and the first difference', async () => {
    const text = await runCli(['diff', tape, 'other', '--store', store]);
    expect(text.code, text.stderr).toBe(0);
    expectPrintable(text);
    expect(text.stdout).toContain(`[name ${SHOWN}`);
    expect(text.stdout).toContain(`task "task ${SHOWN.slice(0, 40)}`);
    expect(text.stdout).toContain(`model "done ${SHOWN}`);
    expect(text.stdout).toContain(`model "finished ${SHOWN}`);
    expect(text.stdout).toMatch(/^ {4}B: .*finished A\\u001b\]0;pwned-title/m);
    const lines = jsonLines(await runCli(['diff', tape, 'other', '--store', store, '--json'])) as { type: string; b?: { model?: { text: string } | null } }[];
    expect(lines.find((l) => l.type === 'step' && l.b?.model?.text?.startsWith('finished'))?.b?.model?.text).toBe(`finished ${HOSTILE}`);
  });

  it('an error line quoting a tape, and ci reporting it in every format', async () => {
    const refused = await runCli(['view', invalid, '--no-tui']);
    expect(refused.code).toBe(9);
    expectPrintable(refused);
    expect(refused.stderr).toMatch(/^agentctl: .*unknown tool 'A\\u001b\]0;pwned-title/);
    for (const reporter of ['text', 'junit', 'github']) {
      const ci = await runCli(['ci', invalid, '--reporter', reporter]);
      expect(ci.code, ci.stderr).toBe(9);
      expectPrintable(ci);
      expect(ci.stdout).toContain('A\\u001b]0;pwned-title');
    }
    const [report] = jsonLines(await runCli(['ci', invalid, '--json'])) as { results: { message: string }[] }[];
    expect(report?.results[0]?.message).toContain(`unknown tool '${HOSTILE}'`);
  });

  it('proxy --replay of a tape file: the line saying what it serves, and its --json lines', async () => {
    const proxy = await startProxy(['--replay', tape], { store: join(dir, 'store-proxy'), env: noModel });
    try {
      const stopped = await proxy.stop();
      expect(stopped.code, stopped.stderr).toBe(0);
      expect(rawControls(stopped.stdout)).toEqual([]);
      expect(rawControls(stopped.stderr)).toEqual([]);
      expect(stopped.stderr).toContain(`(${SHOWN.replace(/^A/, 'name A')}`);
    } finally {
      await killProxies();
    }
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
