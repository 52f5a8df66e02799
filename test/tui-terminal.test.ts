/**
 * End-to-end: the terminal UI of the real binary (bin/agentctl.js → dist/) in a real terminal.
 * Each test gets a tmux server of its own with one 80×24 session running an interactive bash with
 * CI unset (test/support/tmux.ts), types the command as a person would, reads the screen, presses
 * keys, quits, and then asks the same shell for the exit code (`echo EXIT=$?`) and checks that it
 * still takes commands. Stores and workspaces live in temp directories.
 *
 * tmux is required: without it these tests fail and say how to install it (`apt-get install tmux`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../src/core/events.js';
import type { RunMeta } from '../src/core/run-meta.js';
import { openTapeFile } from '../src/tape/tape-file.js';
import { BIN, runCli, runProgram } from './support/cli.js';
import { startMockLlm, type MockLlm } from './support/mock-llm.js';
import { loadScenario } from './support/scenario.js';
import { recordLoopingAgent } from './support/looping-agent.js';
import { COLUMNS, openTerminal, PROMPT, ROWS, sh, type Screen, type Terminal } from './support/tmux.js';
import { acceptClipboard, clipboard, mouseModes, resize, sendRaw, sendTogether, wheel } from './support/tmux-input.js';
import { inverseRuns, styledLines } from './support/tmux-styled.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DEMO_TAPE = join(ROOT, 'tapes', 'demo-loop.tape.jsonl');
/** The first 10 characters of the demo run's id, as the header shows it (re-recording gives a new one). */
const DEMO_SHORT_ID = (JSON.parse(readFileSync(DEMO_TAPE, 'utf8').split('\n')[0] ?? '{}') as { run: { id: string } }).run.id.slice(0, 10);
const DEMO_CONFIG = join(ROOT, 'fixtures', 'configs', 'demo.config.json');
const CALC = join(ROOT, 'fixtures', 'workspaces', 'calc');
const DEMO_TASK = 'The demo service will not start';
const offline = { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, AGENTCTL_STORE: undefined };

// The layout at 80×24: four header lines, the pane titles, the body, the footer, and the last
// terminal row left alone (the UI draws one line less than the terminal has).
const TITLE_ROW = 4;
const BODY_FIRST = 5;
const FOOTER_ROW = ROWS - 2;
const BODY_ROWS = FOOTER_ROW - BODY_FIRST;

let dir: string;
let terminals: Terminal[] = [];
let servers: MockLlm[] = [];

beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dist', 'cli', 'main.js'))) throw new Error('dist/ is missing: run `npm run build` before these tests');
  dir = await realpath(await mkdtemp(join(tmpdir(), 'agentctl-tui-e2e-')));
});
afterEach(async () => {
  await Promise.all(terminals.map((t) => t.kill()));
  await Promise.all(servers.map((s) => s.close()));
  terminals = [];
  servers = [];
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let seq = 0;
async function tempDir(label: string): Promise<string> {
  const path = join(dir, `${label}-${++seq}`);
  await mkdir(path, { recursive: true });
  return path;
}

/** A terminal in `cwd` whose shell stores runs under the test's temp dir unless told otherwise. */
async function terminal(cwd: string = ROOT): Promise<Terminal> {
  const term = await openTerminal({ cwd, env: { AGENTCTL_STORE: join(dir, 'default-store') } });
  terminals.push(term);
  return term;
}

async function mockLlm(...args: Parameters<typeof startMockLlm>): Promise<MockLlm> {
  const llm = await startMockLlm(...args);
  servers.push(llm);
  return llm;
}

/**
 * The command line to type. Its length depends on where the project is checked out; a line that
 * exactly fills the terminal's last column leaves the cursor in a pending wrap, and the next output
 * line then reads as its continuation. A trailing shell comment keeps it off that edge.
 */
const command = (args: string[]): string => {
  const line = [BIN, ...args].map(sh).join(' ');
  const width = PROMPT.length + 1 + line.length;
  return width % COLUMNS === 0 || width % COLUMNS === COLUMNS - 1 ? `${line} #.` : line;
};

/** The timeline rows on screen: step number, what the row says, and whether it has the ▶ marker. */
interface Row {
  selected: boolean;
  step: number;
  text: string;
}

function timeline(screen: Screen): Row[] {
  const rows: Row[] = [];
  for (const line of screen.lines.slice(BODY_FIRST, BODY_FIRST + BODY_ROWS)) {
    const left = line.split('│')[0] ?? '';
    const match = /^(▶)?\s*(\d+)\s+(.*)$/.exec(left);
    if (match !== null) rows.push({ selected: match[1] === '▶', step: Number(match[2]), text: (match[3] ?? '').trim() });
  }
  return rows;
}

/** The step detail pane: the text right of the separator on every body row. */
function detail(screen: Screen): string {
  return screen.lines
    .slice(BODY_FIRST, BODY_FIRST + BODY_ROWS)
    .map((line) => line.split('│').slice(1).join('│'))
    .join('\n');
}

const selected = (screen: Screen): Row | undefined => timeline(screen).find((r) => r.selected);
const title = (screen: Screen): string => screen.lines[TITLE_ROW] ?? '';
const uiUp = (screen: Screen): boolean => screen.alternate && (screen.lines[0] ?? '').startsWith('agentctl ');

/** The lines a command printed on the normal screen after its UI closed: between its command line and the prompt. */
async function printedAfterUi(term: Terminal, commandLine: string): Promise<string[]> {
  const lines = await term.joinedLines();
  const start = lines.findIndex((l) => l === `${PROMPT} ${commandLine}`);
  const end = lines.findLastIndex((l) => l === PROMPT);
  expect(start, `the command line on the normal screen:\n${lines.join('\n')}`).toBeGreaterThanOrEqual(0);
  return lines.slice(start + 1, end);
}

/** After the program is gone: the same shell still runs commands, and the terminal is not raw. */
async function expectShellUsable(term: Terminal): Promise<void> {
  expect(await term.run('echo PROMPT-OK')).toEqual(['PROMPT-OK']);
  const stty = (await term.run('stty -a')).join(' ');
  expect(stty).toMatch(/(^|\s)icanon(\s|$)/);
  expect(stty).toMatch(/(^|\s)echo(\s|$)/);
  expect(stty).toMatch(/(^|\s)icrnl(\s|$)/);
}

/** Open the demo replay in the UI and wait for its first, finished screen. */
async function openDemoReplay(term: Terminal, extra: string[] = []): Promise<{ line: string; screen: Screen }> {
  const line = command(['replay', DEMO_TAPE, '--no-save', ...extra]);
  await term.type(line);
  const screen = await term.waitFor((s) => uiUp(s) && (s.lines[3] ?? '').startsWith('ended ') && timeline(s).length === 5, 'the demo replay in the UI');
  return { line, screen };
}

// Each test opens its terminal through requireTmux(): without tmux every one of them fails, saying so.
describe('the terminal UI in a real 80×24 terminal (tmux)', () => {
  it('replays the demo tape: first step selected, G, f f, ? help, q → the report, exit 0, a usable shell', async () => {
    const term = await terminal();
    const { line, screen: first } = await openDemoReplay(term);

    // The header: mode, run and task; the first step is selected.
    expect(first.lines[0]).toMatch(new RegExp(`^agentctl REPLAYING run ${DEMO_SHORT_ID} “demo”`));
    expect(first.lines[1]).toContain(`task: ${DEMO_TASK}`);
    expect(first.lines[2]).toMatch(/^step 0 \(1 of 5\)/);
    expect(first.lines[2]).toContain('reproduced');
    expect(title(first)).toMatch(/^● Steps \(5\)─/);
    expect(timeline(first).map((r) => r.step)).toEqual([0, 1, 2, 3, 4]);
    expect(selected(first)).toMatchObject({ step: 0, text: expect.stringMatching(/^list_dir \.\s+✓$/) });
    expect(detail(first)).toMatch(/^Step 0\n/);
    // 23 lines drawn, the footer on the 23rd; the 24th stays empty.
    expect(first.lines[FOOTER_ROW]).toMatch(/\S/);
    expect(first.lines[ROWS - 1]).toBe('');
    for (const l of first.lines) expect(l.length).toBeLessThanOrEqual(80);

    // G: the last step, the repetition stop (∞), with the stuck decision in the detail.
    await term.press('G');
    const last = await term.waitFor((s) => selected(s)?.step === 4, 'G to select step 4');
    expect(selected(last)?.text).toMatch(/^read_file config\/server\.json\s+∞$/);
    expect(last.lines[2]).toMatch(/^step 4 \(5 of 5\)/);
    expect(detail(last)).toMatch(/^Step 4\n/);
    expect(detail(last)).toMatch(/∞ stuck\s+repetition\/repetition read_file/);
    expect(detail(last)).toContain('the same tool calls 4 steps in a row');

    // f: decisions other than allow (the skip, the block, the stop); f again: blocks and skips.
    await term.press('f');
    const decisions = await term.waitFor((s) => title(s).startsWith('● Steps 3/5 [not allow]'), 'the first filter');
    expect(timeline(decisions).map((r) => r.step)).toEqual([2, 3, 4]);
    await term.press('f');
    const blocks = await term.waitFor((s) => title(s).startsWith('● Steps 2/5 [blocks+skips]'), 'the blocks and skips filter');
    expect(timeline(blocks).map((r) => [r.step, r.text.replace(/\s+/g, ' ')])).toEqual([[2, 'read_file config/server.json ⊘'], [3, 'read_file config/server.json ✗']]);
    expect(selected(blocks)?.step).toBe(3);

    // ?: the help, with the keys and (further down) the glyph legend; a key that does not scroll it closes it.
    await term.press('?');
    const help = await term.waitFor((s) => s.text.includes('any other key closes'), 'the help screen');
    expect(help.text).toMatch(/^Tab\s+switch the focus/m);
    expect(help.text).toMatch(/^q \/ Ctrl-C\s+quit/m);
    expect(help.text).toMatch(/^Esc\s+back/m);
    expect(help.lines[0]).toMatch(/^agentctl REPLAYING/);
    expect(help.lines[ROWS - 1]).toBe('');
    await term.press('G');
    const legend = await term.waitFor((s) => /help \d+–(\d+) of \1\b/.test(s.lines[FOOTER_ROW] ?? ''), 'the end of the help');
    expect(legend.text).toContain('Glyphs');
    expect(legend.text).toMatch(/⊘ skip: duplicate of an earlier success$/m);
    expect(legend.text).toMatch(/∞ stuck: /);
    await term.press('x');
    const back = await term.waitFor((s) => !s.text.includes('any other key closes'), 'the help to close');
    expect(title(back)).toMatch(/^● Steps 2\/5 \[blocks\+skips\]/);

    // q: the UI goes, the scrollback is back with the command line, then the closing report.
    await term.press('q');
    await term.waitForPrompt();
    expect(await printedAfterUi(term, line)).toEqual(['reproduced: every event matches the tape', 'final state ERROR; exit 0']);
    expect(await term.exitCode()).toBe(0);
    await expectShellUsable(term);
  });

  it('leads with the why: every row names its call with its arguments, and step 3 opens on its block', async () => {
    const term = await terminal();
    const { screen: first } = await openDemoReplay(term);
    // Four identical reads look identical: the call and its arguments on every row.
    expect(timeline(first).map((r) => r.text.replace(/\s+/g, ' '))).toEqual([
      'list_dir . ✓',
      'read_file config/server.json ✓',
      'read_file config/server.json ⊘',
      'read_file config/server.json ✗',
      'read_file config/server.json ∞',
    ]);

    // j j j: step 3, and without another key its first screen shows the block and the call it blocked.
    await term.press('j', 'j', 'j');
    const step3 = await term.waitFor((s) => selected(s)?.step === 3, 'j j j to select step 3');
    expect(detail(step3)).toMatch(/^ {2}✗ block {2}loop_guard\/identical_call_block$/m);
    expect(detail(step3)).toMatch(/^Call read_file {2}\(call_3_0\)$/m);
    // The header: the step's own tokens and cost, the run's beside them.
    expect(step3.lines[2]).toBe('step 3 (4 of 5) · reproduced · tokens 153 in/23 out $0.0000 · run 697 $0.0000');
  });

  it('/ search: the detail shows the first matching line, the match in inverse video, without colour too', async () => {
    const term = await openTerminal({ cwd: ROOT, env: { AGENTCTL_STORE: join(dir, 'default-store'), NO_COLOR: '1' } });
    terminals.push(term);
    await openDemoReplay(term);
    await term.press('/');
    await term.waitFor((s) => (s.lines[FOOTER_ROW] ?? '').startsWith('/█'), 'the search prompt');
    await term.press(...'Blocked');
    await term.waitFor((s) => (s.lines[FOOTER_ROW] ?? '').startsWith('/Blocked█'), 'the query typed');
    await term.press('Enter');
    const found = await term.waitFor((s) => selected(s)?.step === 3, 'the search to select step 3');
    expect(found.lines[FOOTER_ROW]).toContain('“Blocked”: match 1 of 2');
    expect(detail(found)).toMatch(/identical call 3 of 3: blocked/);
    const styled = await styledLines(term);
    const marked = styled.slice(BODY_FIRST, BODY_FIRST + BODY_ROWS).flatMap((line) => inverseRuns(line.split('│').slice(1).join('│')));
    expect(marked.map((m) => m.toLowerCase())).toContain('blocked');
    // NO_COLOR: no colour anywhere (39 and 49 reset to the default colours).
    const codes = [...styled.join('\n').matchAll(/\u001b\[([0-9;]*)m/g)].flatMap((m) => (m[1] ?? '').split(';').map(Number));
    expect(codes.filter((c) => (c >= 30 && c <= 38) || (c >= 40 && c <= 48) || (c >= 90 && c <= 107))).toEqual([]);
  });

  it('the demo replay\'s ending line keeps the exit code and "q quits" visible at 80 columns', async () => {
    // The status line is `ended <state>: <reason> · <verdict> · exit N · q quits`; with the demo's
    // long reason it is cut at 80 columns before the exit code, and the footer's hints are cut
    // before "? help · q quit": nothing on the screen says how to leave or with which exit code.
    const term = await terminal();
    const { screen } = await openDemoReplay(term);
    expect(screen.text).toContain('exit 0');
    expect(screen.text).toMatch(/q quits?\b/);
  });

  it('? help: any key that does not scroll it closes it, as the help says — also a key bound to nothing (x)', async () => {
    const term = await terminal();
    await openDemoReplay(term);
    await term.press('?');
    await term.waitFor((s) => s.text.includes('any other key closes'), 'the help screen');
    await term.press('x');
    const back = await term.waitFor((s) => !s.text.includes('any other key closes'), 'x to close the help', 3_000);
    expect(selected(back)?.step).toBe(0);
  });

  it.each([
    { name: '--strict stops at the first unexpected divergence', strict: true, expected: 7 },
    { name: 'without --strict the replay runs off the tape', strict: false, expected: 8 },
  ])('a replay with another config ($name): after q the exit code is $expected, as with --no-tui', async ({ strict, expected }) => {
    const work = await tempDir('config');
    const config = JSON.parse(await readFile(DEMO_CONFIG, 'utf8')) as { guardrails: Record<string, number> };
    config.guardrails['maxRepeatedToolSteps'] = 5;
    await writeFile(join(work, 'changed.config.json'), JSON.stringify(config));
    const args = ['replay', DEMO_TAPE, '--no-save', '--config', join(work, 'changed.config.json'), ...(strict ? ['--strict'] : [])];

    const plain = await runCli([...args, '--no-tui'], { cwd: work, env: offline });
    expect(plain.stderr).toBe('');
    expect(plain.code).toBe(expected);

    const term = await terminal(work);
    const line = command(args);
    await term.type(line);
    const ended = await term.waitFor((s) => uiUp(s) && /^(ended|stopped) /.test(s.lines[3] ?? ''), 'the replay to end in the UI');
    // The config is the user's own: the first divergence is what it changes, the repetition stop at step 4.
    expect(ended.lines[2]).toContain('diverged at 4 (unexpected)');
    expect(ended.lines[3]).toContain(`exit ${expected}`);
    await term.press('d');
    const atDivergence = await term.waitFor((s) => selected(s)?.step === 4, 'd to select the divergence');
    expect(selected(atDivergence)).toMatchObject({ step: 4, text: expect.stringContaining('≠') });
    await term.press('q');
    await term.waitForPrompt();
    const printed = await printedAfterUi(term, line);
    expect(await term.exitCode()).toBe(plain.code);
    // What the UI leaves in the terminal is the closing report the plain output ends with.
    expect(printed.at(-1)).toBe(`${strict ? 'no final state' : 'final state ERROR'}; exit ${expected}`);
    expect(plain.stdout.trimEnd().split('\n').slice(-printed.length)).toEqual(printed);
    await expectShellUsable(term);
  });

  it('records live in the UI: the same tape as without it, and q exits with the final state\'s code', async () => {
    // fix-the-bug stopped after 3 steps: MAX_STEPS (exit 4), streamed, with tools that read, run and edit.
    const args = (workspace: string, store: string, baseUrl: string): string[] => [
      'record', '--task', 'Fix add() so the test passes.', '--stream', '--set', 'limits.maxSteps=3', '--seed', '7', '--name', 'tui-e2e',
      '--base-url', baseUrl, '--workspace', workspace, '--store', store,
    ];
    const work = await tempDir('record');
    const [wsUi, wsPlain] = [join(work, 'ws-ui'), join(work, 'ws-plain')];
    const [storeUi, storePlain] = [join(work, 'store-ui'), join(work, 'store-plain')];
    await cp(CALC, wsUi, { recursive: true });
    await cp(CALC, wsPlain, { recursive: true });

    const llmUi = await mockLlm(loadScenario('fix-the-bug'));
    const term = await terminal(work);
    const line = command(args(wsUi, storeUi, llmUi.baseURL));
    await term.type(line);
    const ended = await term.waitFor((s) => uiUp(s) && (s.lines[3] ?? '').startsWith('ended '), 'the recording to end in the UI');
    expect(ended.lines[0]).toMatch(/^agentctl RECORDING run \w{10} “tui-e2e” · \S+ · MAX_STEPS$/);
    expect(ended.lines[3]).toMatch(/^ended MAX_STEPS\b/);
    expect(ended.lines[3]).toContain('exit 4');
    expect(ended.lines[3]).toContain('q quits');
    expect(ended.lines[3]).toContain('reached the limit of 3 steps');
    expect(timeline(ended).map((r) => r.text.split(/\s+/)[0])).toEqual(['read_file', 'exec_shell', 'edit_file']);
    expect(selected(ended)?.step).toBe(2);
    await term.press('q');
    await term.waitForPrompt();
    const printed = await printedAfterUi(term, line);
    expect(await term.exitCode()).toBe(4);
    await expectShellUsable(term);

    const llmPlain = await mockLlm(loadScenario('fix-the-bug'));
    const plain = await runCli([...args(wsPlain, storePlain, llmPlain.baseURL), '--no-tui'], { cwd: work, env: offline });
    expect(plain.code, plain.stderr).toBe(4);

    // The model server saw the same requests, and the two tapes hold the same run.
    const bodies = (llm: MockLlm, workspace: string): unknown[] => llm.requests.map((r) => normalise(r.body, workspace));
    expect(bodies(llmUi, wsUi)).toEqual(bodies(llmPlain, wsPlain));
    const [ui, without] = await Promise.all([exported('tui-e2e', storeUi, work, 'ui'), exported('tui-e2e', storePlain, work, 'plain')]);
    // The closing line is the one --no-tui ends with, each with its own run's id.
    expect(printed).toEqual([`MAX_STEPS (run ${ui.meta.id}): 3 steps, exit 4`]);
    expect(plain.stdout.trimEnd().split('\n').at(-1)).toBe(`MAX_STEPS (run ${without.meta.id}): 3 steps, exit 4`);
    expect(ui.events.length).toBeGreaterThan(20);
    expect(ui.events.some((e) => e.type === 'llm_chunk')).toBe(true);
    expect(stableMeta(ui.meta)).toEqual(stableMeta(without.meta));
    expect(ui.meta).toMatchObject({ finalState: 'MAX_STEPS', status: 'complete', eventCount: ui.events.length });
    const [a, b] = [behaviour(ui.events, wsUi), behaviour(without.events, wsPlain)];
    for (let i = 0; i < Math.max(a.length, b.length); i++) expect(a[i], `event ${i}`).toEqual(b[i]);
  });

  it('Ctrl-C while the model is answering: CANCELLED, exit 130, the terminal restored, the run stored as CANCELLED', async () => {
    const llm = await mockLlm([
      { content: 'Looking.', tool_calls: [{ name: 'list_dir', arguments: { path: '.' } }] },
      { content: 'never sent', delayMs: 20_000 },
    ]);
    const work = await tempDir('cancel');
    const workspace = join(work, 'ws');
    await cp(CALC, workspace, { recursive: true });
    const store = join(work, 'store');
    const term = await terminal(work);
    const line = command(['record', '--task', 'look around', '--base-url', llm.baseURL, '--workspace', workspace, '--store', store]);
    await term.type(line);
    const waiting = await term.waitFor(
      (s) => uiUp(s) && /waiting for the model/.test(s.lines[3] ?? '') && timeline(s).length === 2 && llm.requests.length === 2,
      'the second model call',
    );
    expect(waiting.lines[0]).toMatch(/^agentctl RECORDING .* RUNNING$/);

    await term.press('C-c');
    // Ctrl-C stops the run and quits: no second key is needed.
    await term.waitForPrompt();
    expect(await printedAfterUi(term, line)).toEqual([expect.stringMatching(/^CANCELLED \(run \w{26}\): 2 steps, exit 130$/)]);
    expect(await term.exitCode()).toBe(130);
    await expectShellUsable(term);

    const ls = await runCli(['ls', '--store', store], { env: offline });
    expect(ls.code).toBe(0);
    expect(ls.stdout).toMatch(/^\w{26}\s+\S+ \S+\s+record\s+CANCELLED\s+2\s+look around$/m);
  });

  it('q while the run is live stops it first (CANCELLED), then exits 130', async () => {
    const llm = await mockLlm([
      { content: 'Looking.', tool_calls: [{ name: 'list_dir', arguments: { path: '.' } }] },
      { content: 'never sent', delayMs: 20_000 },
    ]);
    const work = await tempDir('quit-live');
    const workspace = join(work, 'ws');
    await cp(CALC, workspace, { recursive: true });
    const store = join(work, 'store');
    const term = await terminal(work);
    const line = command(['record', '--task', 'look around', '--base-url', llm.baseURL, '--workspace', workspace, '--store', store]);
    await term.type(line);
    await term.waitFor(
      (s) => uiUp(s) && /waiting for the model/.test(s.lines[3] ?? '') && timeline(s).length === 2 && llm.requests.length === 2,
      'the second model call',
    );
    await term.press('q');
    await term.waitForPrompt();
    expect(await printedAfterUi(term, line)).toEqual([expect.stringMatching(/^CANCELLED \(run \w{26}\): 2 steps, exit 130$/)]);
    expect(await term.exitCode()).toBe(130);
    await expectShellUsable(term);
  });
});

describe('keys as people type them (tmux, 80×24)', () => {
  const footer = (screen: Screen): string => screen.lines[FOOTER_ROW] ?? '';

  it('Esc goes back: it closes the help, then only says how to quit; q quits with the exit code', async () => {
    const term = await terminal();
    const { line } = await openDemoReplay(term);
    await term.press('?');
    await term.waitFor((s) => s.text.includes('any other key closes'), 'the help screen');
    await term.press('Escape');
    const closed = await term.waitFor((s) => !s.text.includes('any other key closes') && selected(s)?.step === 0, 'Esc to close the help');
    expect(uiUp(closed)).toBe(true);
    await term.press('Escape');
    const stayed = await term.waitFor((s) => footer(s) === 'Esc goes back; q quits', 'the notice of a second Esc');
    expect(uiUp(stayed)).toBe(true);
    await term.press('q');
    await term.waitForPrompt();
    expect(await printedAfterUi(term, line)).toEqual(['reproduced: every event matches the tape', 'final state ERROR; exit 0']);
    expect(await term.exitCode()).toBe(0);
    await expectShellUsable(term);
  });

  it('keys that arrive in one write are taken one by one: /Blocked and Enter search, g and Enter expand the first step', async () => {
    const term = await terminal();
    await openDemoReplay(term);
    await sendTogether(term, '/Blocked', 'Enter');
    const found = await term.waitFor((s) => footer(s).startsWith('“Blocked”: match 1 of'), 'the search to be submitted');
    expect(selected(found)?.step).toBe(3);
    await sendTogether(term, 'g', 'Enter');
    const expanded = await term.waitFor((s) => selected(s)?.step === 0 && title(s).includes('Step detail (expanded)'), 'g and Enter');
    expect(detail(expanded)).toMatch(/^Step 0\n/);
  });

  it('keys typed before the first frame are kept: jjj right after the command selects step 3, nothing is echoed', async () => {
    const term = await terminal();
    const line = command(['replay', DEMO_TAPE, '--no-save']);
    // The command line, Enter and the keys in one write: the keys are there before the program
    // starts, and reach the UI before its first step (the replay's steps come after the UI is up).
    await sendRaw(term, `${line}\rjjj`);
    const screen = await term.waitFor((s) => uiUp(s) && (s.lines[3] ?? '').startsWith('ended ') && selected(s)?.step === 3, 'step 3 selected');
    expect(screen.lines[0]).toMatch(/^agentctl REPLAYING run /);
    await term.press('q');
    await term.waitForPrompt();
    expect(await printedAfterUi(term, line)).toEqual(['reproduced: every event matches the tape', 'final state ERROR; exit 0']);
    expect(await term.exitCode()).toBe(0);
    await expectShellUsable(term);
  });

  it('the footer shows f, d, /, ? and q whole at 80 columns, and the help\'s glyph meanings wrap', async () => {
    const term = await terminal();
    const { screen } = await openDemoReplay(term);
    expect(footer(screen)).toMatch(/^q quit · \? help · \/ search · f filter · d divergence( · [^·…]+)*$/);
    await term.press('?', 'G');
    const help = await term.waitFor((s) => /help \d+–(\d+) of \1\b/.test(footer(s)), 'the end of the help');
    expect(help.lines.slice(TITLE_ROW, FOOTER_ROW + 1).join('\n')).not.toContain('…');
    expect(help.text).toMatch(/^⊘ skip: duplicate of an earlier success$/m);
  });

  it('at 40×12 the footer and the help still fit, with whole hints and wrapped meanings', async () => {
    const term = await terminal();
    await openDemoReplay(term);
    await resize(term, 40, 12);
    const small = await term.waitFor((s) => uiUp(s) && (s.lines[10] ?? '').startsWith('q quit'), 'the UI at 40×12');
    expect(small.lines[10]).toBe('q quit · ? help · / search · f filter');
    for (const l of small.lines) expect(l.length).toBeLessThanOrEqual(40);
    await term.press('?', 'G');
    const help = await term.waitFor((s) => (s.lines[9] ?? '').startsWith('▶ the selected step'), 'the end of the help at 40×12');
    for (const l of help.lines) expect(l.length).toBeLessThanOrEqual(40);
    // Below the header (clipped as it always is): the help, wrapped, and the footer's whole hints.
    expect(help.lines.slice(4, 11).join('\n')).not.toContain('…');
    expect(help.lines[10]).toMatch(/^j\/k scroll · Esc back/);
  });

  it('turns mouse reports on for the UI and off after it; the wheel moves the selection and scrolls the detail', async () => {
    const term = await terminal();
    await openDemoReplay(term);
    expect(await mouseModes(term)).toEqual({ buttons: true, sgr: true });
    await sendRaw(term, wheel('down', 5, BODY_FIRST + 2));
    await term.waitFor((s) => selected(s)?.step === 1, 'the wheel over the timeline');
    await sendRaw(term, wheel('down', 60, BODY_FIRST + 2));
    const scrolled = await term.waitFor((s) => !detail(s).startsWith('Step 1'), 'the wheel over the detail');
    expect(selected(scrolled)?.step).toBe(1);
    await term.press('q');
    await term.waitForPrompt();
    expect(await mouseModes(term)).toEqual({ buttons: false, sgr: false });
    await expectShellUsable(term);
  });

  it('y copies the selected step with OSC 52 and w writes it to a new file in the current directory', async () => {
    const work = await tempDir('copy');
    const term = await terminal(work);
    await acceptClipboard(term);
    await openDemoReplay(term);
    await term.press('j', 'j', 'j');
    await term.waitFor((s) => selected(s)?.step === 3, 'step 3');
    await term.press('y');
    await term.waitFor((s) => footer(s).startsWith('copied step 3 to the clipboard'), 'the copy notice');
    const copied = await clipboard(term);
    expect(copied?.startsWith('Step 3\n')).toBe(true);
    expect(copied).toMatch(/✗ block\s+loop_guard\/identical_call_block/);
    await term.press('w');
    const wrote = await term.waitFor((s) => footer(s).startsWith('wrote step 3 to ./agentctl-step-'), 'the file notice');
    const name = /\.\/(agentctl-step-\w+-3\.txt)$/.exec(footer(wrote))?.[1];
    expect(name).toBeDefined();
    expect(await readFile(join(work, name as string), 'utf8')).toBe(copied);
  });
});

describe('a run recorded without the guardrails, viewed with their analysis (tmux, 80×24)', () => {
  it('the first screen says where they would have stopped it; the rows mark the analysed verdicts with ?', async () => {
    const tape = join(await tempDir('analysed'), 'looping.tape.jsonl');
    await recordLoopingAgent(tape);
    const term = await terminal();
    const line = command(['view', tape]);
    await term.type(line);
    const first = await term.waitFor((s) => uiUp(s) && (s.lines[3] ?? '').startsWith('analysis: ') && timeline(s).length === 5, 'the analysed run in the UI');
    expect(first.lines[3]).toMatch(/^analysis: would have been stopped at step 2 by identical_call_block\b/);
    expect(first.lines[0]).toMatch(/^agentctl VIEWING run \w{10} of /);
    expect(timeline(first).map((r) => r.text.replace(/\s+/g, ' '))).toEqual([
      'lookup q=port ?✓',
      'lookup q=port ?⊘',
      'lookup q=port ?✗',
      'lookup q=port ?∞',
      '“port 8080”',
    ]);
    expect(selected(first)?.step).toBe(0);
    // The detail says what the analysed decisions are before the first of them.
    expect(detail(first).replace(/\s+/g, ' ')).toContain('analysis: what the guardrails would have decided — the run did not run them');

    // Step 2 opens on the block, marked as analysis.
    await term.press('j', 'j');
    const step2 = await term.waitFor((s) => selected(s)?.step === 2, 'j j to select step 2');
    expect(detail(step2).replace(/\s+/g, ' ')).toContain('? ✗ block loop_guard/identical_call_block lookup identical call 3 of 3: blocked');

    await term.press('q');
    await term.waitForPrompt();
    expect((await printedAfterUi(term, line)).join('\n')).toMatch(/: COMPLETED, 5 steps, 12 events; analysis: would have been stopped at step 2 by identical_call_block$/);
    expect(await term.exitCode()).toBe(0);
  });
});

describe('--tui without a terminal', () => {
  it.each([
    ['replay', [DEMO_TAPE, '--no-save']],
    ['view', [DEMO_TAPE]],
    ['record', ['--task', 'x', '--base-url', 'http://127.0.0.1:9/v1']],
  ])('%s --tui with pipes exits 2 with one line (and a hint), no stack', async (name, rest) => {
    const result = await runCli([name, ...rest, '--tui', '--store', join(dir, 'no-tty-store')], { cwd: dir, env: offline });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^agentctl: --tui needs a terminal\b/);
    expect(lines.slice(1).every((l) => l.startsWith('hint: '))).toBe(true);
    expect(lines.length).toBeLessThanOrEqual(2);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});

async function exported(name: string, store: string, work: string, label: string): Promise<{ meta: RunMeta; events: RunEvent[] }> {
  const file = join(work, `${label}.tape.jsonl`);
  const result = await runCli(['export', name, '--store', store, '-o', file, '--quiet'], { env: offline });
  expect(result.code, result.stderr).toBe(0);
  const tape = await openTapeFile(file);
  const events: RunEvent[] = [];
  for await (const event of tape.events()) events.push(event);
  return { meta: tape.meta, events };
}

/** A JSON value with the workspace's path written as <workspace>. */
function normalise(value: unknown, workspace: string): unknown {
  return JSON.parse(JSON.stringify(value).split(workspace).join('<workspace>')) as unknown;
}

/** Behaviour only: timing (`t`, `durationMs`, a chunk's `offsetMs`) and the workspace path left out. */
function behaviour(events: readonly RunEvent[], workspace: string): unknown[] {
  return events.map((event) => {
    const copy = JSON.parse(JSON.stringify(event)) as Record<string, unknown>;
    delete copy['t'];
    delete copy['durationMs'];
    if (event.type === 'llm_chunk') delete (copy['chunk'] as Record<string, unknown>)['offsetMs'];
    return normalise(copy, workspace);
  });
}

/** The run's metadata minus what differs on every recording: id, time, the mock server's port. */
function stableMeta(meta: RunMeta): unknown {
  const { id: _id, createdAt: _createdAt, baseUrl: _baseUrl, ...rest } = meta;
  return rest;
}

/** A synthetic run of `steps` steps recorded into `path` by the UI benchmarks' generator (bench/tui-tape.mjs, on dist/). */
async function longTape(path: string, steps: number): Promise<void> {
  const made = await runProgram(process.execPath, [join(ROOT, 'bench', 'tui-tape.mjs'), path, String(steps)], { timeoutMs: 120_000 });
  expect(made.code, made.stderr).toBe(0);
}

describe('a long run in the UI (tmux)', () => {
  const STEPS = 10_000;
  let tape: string;
  beforeAll(async () => {
    tape = join(await tempDir('long'), 'long.tape.jsonl');
    await longTape(tape, STEPS);
  }, 120_000);

  /** The header's status line until the run is all in, then every row: the count in the pane title, the last step with G. */
  async function expectProgressThenAll(term: Terminal, progress: RegExp): Promise<void> {
    const during = await term.waitFor((s) => uiUp(s) && progress.test(s.lines[3] ?? '') && timeline(s).length > 0, 'the first steps with the progress line', 30_000);
    const shown = Number(progress.exec(during.lines[3] ?? '')?.[1]);
    expect(shown).toBeGreaterThan(0);
    expect(shown).toBeLessThan(STEPS + 1);
    expect(selected(during)?.step).toBe(0);
    const ended = await term.waitFor((s) => uiUp(s) && (s.lines[3] ?? '').startsWith('ended COMPLETED'), 'the whole run', 120_000);
    expect(title(ended)).toMatch(new RegExp(`^● Steps \\(${STEPS + 1}\\)─`));
    expect(selected(ended)?.step).toBe(0);
    await term.press('G');
    await term.waitFor((s) => selected(s)?.step === STEPS, 'G to select the last step');
  }

  it('view: the first steps at once with "reading tape… N steps", then every step', async () => {
    const term = await terminal();
    await term.type(command(['view', tape]));
    await expectProgressThenAll(term, /^reading tape… (\d+) steps$/);
    await term.press('q');
    await term.waitForPrompt();
    expect(await term.exitCode()).toBe(0);
  });

  it('view: q while the tape is read stops the reading and quits: exit 130, a closing line that says so', async () => {
    const term = await terminal();
    const line = command(['view', tape]);
    await term.type(line);
    await term.waitFor((s) => uiUp(s) && /^reading tape… \d+ steps$/.test(s.lines[3] ?? ''), 'the tape being read', 30_000);
    await term.press('q');
    await term.waitForPrompt();
    const printed = await printedAfterUi(term, line);
    const read = /^record run \w{26} \(tui-bench-10000\): complete; reading stopped after (\d+) events$/.exec(printed.join('\n'));
    expect(read, printed.join('\n')).not.toBeNull();
    // Stopped where it was, not at the end of the tape (its lines less the header).
    const events = (await readFile(tape, 'utf8')).trimEnd().split('\n').length - 1;
    expect(Number(read?.[1])).toBeLessThan(events);
    expect(await term.exitCode()).toBe(130);
  });

  it('replay --no-save: the steps as they are replayed with "replaying… N steps", then the verdict', async () => {
    const term = await terminal();
    await term.type(command(['replay', tape, '--no-save']));
    await expectProgressThenAll(term, /^replaying… (\d+) steps$/);
    await term.press('q');
    await term.waitForPrompt();
    expect(await term.exitCode()).toBe(0);
  });
});

describe('the store is released as soon as the run ends, while the UI still shows it (tmux)', () => {
  /** `agentctl ls` from another process, on the store the UI's command used. */
  async function listed(store: string): Promise<string> {
    const ls = await runCli(['ls', '--store', store], { env: offline });
    expect(ls.stderr).toBe('');
    expect(ls.code).toBe(0);
    return ls.stdout;
  }

  it('record: ls works once the recording has ended, and q prints the closing line with the run id, as --no-tui does', async () => {
    const work = await tempDir('release-record');
    const workspace = join(work, 'ws');
    await cp(CALC, workspace, { recursive: true });
    const store = join(work, 'store');
    const llm = await mockLlm([{ content: 'Looking.', tool_calls: [{ name: 'list_dir', arguments: { path: '.' } }] }, { content: 'Nothing to do.' }]);
    const term = await terminal(work);
    const line = command(['record', '--task', 'look around', '--base-url', llm.baseURL, '--workspace', workspace, '--store', store]);
    await term.type(line);
    await term.waitFor((s) => uiUp(s) && (s.lines[3] ?? '').startsWith('ended COMPLETED'), 'the recording to end in the UI');
    const runs = await listed(store);
    const id = /^(\w{26})\s+.*\brecord\s+COMPLETED\s+2\s+look around$/m.exec(runs)?.[1];
    expect(id, runs).toBeDefined();
    expect(uiUp(await term.screen())).toBe(true);
    await term.press('q');
    await term.waitForPrompt();
    expect(await printedAfterUi(term, line)).toEqual([`COMPLETED (run ${id}): 2 steps, exit 0`]);
    expect(await term.exitCode()).toBe(0);
  });

  it('replay: ls shows the saved replay while the UI still shows it', async () => {
    const store = join(await tempDir('release-replay'), 'store');
    const term = await terminal();
    await term.type(command(['replay', DEMO_TAPE, '--store', store]));
    await term.waitFor((s) => uiUp(s) && (s.lines[3] ?? '').startsWith('ended '), 'the replay to end in the UI');
    expect(await listed(store)).toMatch(/^\w{26}\s+.*\breplay\s+ERROR\s+5\s+/m);
    expect(uiUp(await term.screen())).toBe(true);
    await term.press('q');
    await term.waitForPrompt();
    expect(await term.exitCode()).toBe(0);
  });

  it('view of a stored run: ls works while the UI shows it', async () => {
    const store = join(await tempDir('release-view'), 'store');
    expect((await runCli(['import', DEMO_TAPE, '--store', store], { env: offline })).code).toBe(0);
    const term = await terminal();
    await term.type(command(['view', 'demo', '--store', store]));
    await term.waitFor((s) => uiUp(s) && (s.lines[3] ?? '').startsWith('ended ') && timeline(s).length === 5, 'the run in the UI');
    expect(await listed(store)).toMatch(/^\w{26}\s+.*\brecord\s+ERROR\s+5\s+/m);
    await term.press('q');
    await term.waitForPrompt();
    expect(await term.exitCode()).toBe(0);
  });
});
