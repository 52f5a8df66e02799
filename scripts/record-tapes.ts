/**
 * Records the golden tapes of tapes/ (the table is scripts/golden-tapes.ts):
 *
 *   npm run build && npm run tapes:record                  # every tape
 *   npm run build && npm run tapes:record -- halt-nudge    # just these (names as in the table)
 *
 * For each tape it plays the tape's scenario (fixtures/scenarios/) on the scripted OpenAI-compatible
 * server of the tests (127.0.0.1, a free port), copies the tape's fixture workspace into a temp
 * directory, runs the real binary — `agentctl record --task … --config fixtures/configs/<config>
 * --base-url <server> --workspace <temp copy> --store <temp store> --seed N --name <run> --json`, plus
 * the tape's flags and standard input — checks the exit code, that the server played every step,
 * and that the run shows what the tape is for (it refuses to write a tape that does not), then
 * exports it with `agentctl export <run> -o tapes/<name>.tape.jsonl` and cleans up. Nothing is
 * built here: `bin/agentctl.js` runs `dist/`.
 *
 * `recordTape()` is also used by test/golden-tapes.test.ts to re-record each tape into a temp file
 * and compare it with the committed one, so a golden tape cannot silently rot.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startMockLlm, type MockLlm } from '../test/support/mock-llm.js';
import { loadScenario } from '../test/support/scenario.js';
import { GOLDEN_TAPES, checkRecording, type GoldenTape, type RecordedLine } from './golden-tapes.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'agentctl.js');
export const TAPES_DIR = join(ROOT, 'tapes');
/** Prefix of every temp directory a recording uses; tests replace paths under it. */
export const TEMP_PREFIX = 'agentctl-golden-';

/** Where a golden tape is committed. */
export function tapePath(tape: GoldenTape): string {
  return join(TAPES_DIR, `${tape.name}.tape.jsonl`);
}

export function configPath(tape: GoldenTape): string {
  return join(ROOT, 'fixtures', 'configs', `${tape.config}.config.json`);
}

export function workspacePath(tape: GoldenTape): string {
  return join(ROOT, 'fixtures', 'workspaces', tape.workspace);
}

/** A tape of the table by name; throws naming the known ones. */
export function goldenTape(name: string): GoldenTape {
  const found = GOLDEN_TAPES.find((t) => t.name === name || `${t.name}.tape.jsonl` === name);
  if (found === undefined) throw new Error(`no golden tape '${name}'; the tapes are: ${GOLDEN_TAPES.map((t) => t.name).join(', ')}`);
  return found;
}

export interface RecordedTape {
  /** The tape file written. */
  tape: string;
  /** The `--json` lines `agentctl record` printed (events, then the summary). */
  lines: RecordedLine[];
}

interface Spawned {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment of the child: no model credentials or endpoint can leak in from the caller. */
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' };
  for (const key of Object.keys(env)) if (key.startsWith('OPENAI_') || key === 'AGENTCTL_STORE') delete env[key];
  return env;
}

interface RunOptions {
  /** Standard input; closed after it is written (closed at once without it). */
  input?: string;
  /** SIGINT once this server has received `after` chat requests. */
  interrupt?: { llm: MockLlm; after: number };
}

function agentctl(args: string[], cwd: string, options: RunOptions = {}): Promise<Spawned> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env: childEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const { interrupt } = options;
    // Waits for the request to reach the server (not just for the event line), so the server has
    // played the step and the run is cancelled while its answer is pending, every time.
    const poll = interrupt === undefined ? undefined : setInterval(() => {
      if (interrupt.llm.requests.filter((r) => r.step >= 0).length >= interrupt.after && child.exitCode === null && !child.killed) {
        child.kill('SIGINT');
        clearInterval(poll);
      }
    }, 10);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      clearInterval(poll);
      resolvePromise({ code, stdout, stderr });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}

function fail(what: string, result: Spawned): never {
  throw new Error(`${what} (exit ${String(result.code)})\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`);
}

/** Record one golden tape's run and export it to `output` (default: its committed path). */
export async function recordTape(tape: GoldenTape, output: string = tapePath(tape)): Promise<RecordedTape> {
  if (!existsSync(join(ROOT, 'dist', 'cli', 'main.js'))) throw new Error('dist/ is missing: run `npm run build` first');
  const temp = await mkdtemp(join(tmpdir(), TEMP_PREFIX));
  const workspace = join(temp, 'workspace');
  const store = join(temp, 'store');
  const llm = await startMockLlm(loadScenario(tape.scenario));
  try {
    await cp(workspacePath(tape), workspace, { recursive: true });
    const recorded = await agentctl(
      [
        'record', '--task', tape.task, '--config', configPath(tape), '--base-url', llm.baseURL, '--workspace', workspace,
        '--store', store, '--seed', String(tape.seed), '--name', tape.runName, ...(tape.flags ?? []), '--json',
      ],
      temp,
      {
        ...(tape.input === undefined ? {} : { input: tape.input }),
        ...(tape.interruptAfterRequests === undefined ? {} : { interrupt: { llm, after: tape.interruptAfterRequests } }),
      },
    );
    if (recorded.code !== tape.exitCode) fail(`${tape.name}: agentctl record should exit ${tape.exitCode}`, recorded);
    const lines = recorded.stdout.trim().split('\n').map((l) => JSON.parse(l) as RecordedLine);
    checkRecording(tape, lines);
    llm.assertConsumed();

    await mkdir(dirname(resolve(output)), { recursive: true });
    const exported = await agentctl(['export', tape.runName, '--store', store, '-o', resolve(output), '--quiet'], temp);
    if (exported.code !== 0) fail(`${tape.name}: agentctl export failed`, exported);
    return { tape: resolve(output), lines };
  } finally {
    await llm.close();
    await rm(temp, { recursive: true, force: true });
  }
}

async function main(names: readonly string[]): Promise<void> {
  const tapes = names.length === 0 ? GOLDEN_TAPES : names.map(goldenTape);
  for (const tape of tapes) {
    const { tape: file, lines } = await recordTape(tape);
    const summary = lines.at(-1);
    process.stdout.write(`recorded ${file}: ${lines.length - 1} events, final state ${String(summary?.state)}\n`);
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).then(
    // A cancelled recording leaves the scripted server's reply timer behind; do not wait for it.
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`record-tapes: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
