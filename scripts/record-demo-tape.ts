/**
 * Records the golden demo tape, `tapes/demo-loop.tape.jsonl` ("why did my agent loop"):
 *
 *   npm run build && npm run tapes:record
 *
 * It plays fixtures/scenarios/demo-loop.json on the scripted OpenAI-compatible server of the tests
 * (127.0.0.1, a free port), runs the real binary — `agentctl record` with
 * fixtures/configs/demo.config.json in a temp copy of fixtures/workspaces/demo/, a temp store, a
 * fixed seed and `--name demo` — checks that the run shows the decisions the tape is meant to show,
 * exports it, and cleans up. Nothing is built here: `bin/agentctl.js` runs `dist/`.
 *
 * `recordDemoTape()` is also used by test/demo-tape.test.ts to re-record into a temp file and
 * compare with the committed tape, so the golden tape cannot silently rot.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startMockLlm } from '../test/support/mock-llm.js';
import { loadScenario } from '../test/support/scenario.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'agentctl.js');

/** Everything that makes the demo run what it is; the test re-records with the same values. */
export const DEMO = {
  scenario: 'demo-loop',
  workspace: join(ROOT, 'fixtures', 'workspaces', 'demo'),
  config: join(ROOT, 'fixtures', 'configs', 'demo.config.json'),
  task: 'The demo service will not start. Find out which host and port it is configured to listen on.',
  seed: 42,
  name: 'demo',
  tape: join(ROOT, 'tapes', 'demo-loop.tape.jsonl'),
  /** The recorded run ends in ERROR (repetition). */
  exitCode: 3,
} as const;

export interface RecordedDemo {
  /** The tape file written. */
  tape: string;
  /** The `--json` lines `agentctl record` printed (events, then the summary). */
  lines: Record<string, unknown>[];
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

function agentctl(args: string[], cwd: string): Promise<Spawned> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

function fail(what: string, result: Spawned): never {
  throw new Error(`${what} (exit ${String(result.code)})\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`);
}

/** The decisions the demo tape exists to show; a recording without them is not written. */
export function checkDemoDecisions(lines: readonly Record<string, unknown>[]): void {
  const verdicts = lines.filter((l) => l.type === 'guardrail').map((l) => `${String(l.verdict)}:${String(l.rule)}`);
  const want = ['skip:duplicate_success', 'block:identical_call_block', 'stuck:repetition'];
  const missing = want.filter((w) => !verdicts.includes(w));
  const end = lines.find((l) => l.type === 'run_end');
  if (missing.length > 0 || end?.state !== 'ERROR' || !String(end.reason).startsWith('repetition')) {
    throw new Error(
      `the demo run does not show what the tape is for: missing ${missing.join(', ') || 'nothing'}; ` +
        `ended ${String(end?.state)} (${String(end?.reason)}); verdicts seen: ${verdicts.join(' ')}`,
    );
  }
}

/** Record the demo run and export it to `output` (default: the golden tape's path). */
export async function recordDemoTape(output: string = DEMO.tape): Promise<RecordedDemo> {
  if (!existsSync(join(ROOT, 'dist', 'cli', 'main.js'))) throw new Error('dist/ is missing: run `npm run build` first');
  const temp = await mkdtemp(join(tmpdir(), 'agentctl-demo-'));
  const workspace = join(temp, 'workspace');
  const store = join(temp, 'store');
  const llm = await startMockLlm(loadScenario(DEMO.scenario));
  try {
    await cp(DEMO.workspace, workspace, { recursive: true });
    const recorded = await agentctl(
      [
        'record', '--task', DEMO.task, '--config', DEMO.config, '--base-url', llm.baseURL, '--workspace', workspace,
        '--store', store, '--seed', String(DEMO.seed), '--name', DEMO.name, '--json',
      ],
      temp,
    );
    if (recorded.code !== DEMO.exitCode) fail(`agentctl record should exit ${DEMO.exitCode}`, recorded);
    const lines = recorded.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    checkDemoDecisions(lines);
    llm.assertConsumed();

    await mkdir(dirname(resolve(output)), { recursive: true });
    const exported = await agentctl(['export', DEMO.name, '--store', store, '-o', resolve(output), '--quiet'], temp);
    if (exported.code !== 0) fail('agentctl export failed', exported);
    return { tape: resolve(output), lines };
  } finally {
    await llm.close();
    await rm(temp, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const output = process.argv[2] ?? DEMO.tape;
  recordDemoTape(output).then(
    ({ tape, lines }) => {
      const summary = lines.at(-1);
      process.stdout.write(`recorded ${tape}: ${lines.length - 1} events, final state ${String(summary?.state)}\n`);
    },
    (error: unknown) => {
      process.stderr.write(`record-demo-tape: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
