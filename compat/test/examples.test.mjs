/**
 * The test-suite examples of docs/examples/testing — one per runner: node:test, vitest, jest — run
 * as a project runs them: a copy inside this project (so `agentctl`, `openai` and the runners
 * resolve from its node_modules), the runner's own command line. For each runner:
 *   1. the first run records the tape (no tape yet: withTape's replay-or-record records), against the
 *      mock model;
 *   2. with the mock stopped and AGENTCTL_MODE=replay, the run passes from the tape alone;
 *   3. with the agent changed (another city in its question), the run fails, naming the tape and the
 *      first differing field.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { LLMock } from '@copilotkit/aimock';
import { API_KEY } from '../support.mjs';

const COMPAT = fileURLToPath(new URL('..', import.meta.url));
const EXAMPLES = join(COMPAT, '..', 'docs', 'examples', 'testing');
const TAPE = join('tapes', 'weather-umbrella.tape.jsonl');

const RUNNERS = {
  'node:test': ['--test', 'node-test/weather.test.mjs'],
  vitest: [join(COMPAT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--root', 'vitest'],
  jest: ['--experimental-vm-modules', join(COMPAT, 'node_modules', 'jest', 'bin', 'jest.js'), '--config', 'jest/jest.config.mjs'],
};

const copies = [];
after(() => {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

/** The model's side of the example: ask for the forecast, then answer once it is in. */
async function startModel() {
  const mock = new LLMock({ host: '127.0.0.1', port: 0, logLevel: 'silent' });
  mock.on({ userMessage: 'umbrella', hasToolResult: false }, { toolCalls: [{ name: 'get_weather', arguments: JSON.stringify({ city: 'Paris' }) }] });
  mock.on({ userMessage: 'umbrella', hasToolResult: true }, { content: 'No umbrella today: Paris is sunny, 21°C.' });
  await mock.start();
  return mock;
}

/**
 * Run a runner in the copy `dir`, with `env` on top of a clean environment (no model, no mode, not a
 * child of this test runner). Asynchronous: the mock model answers from this process meanwhile.
 */
function run(dir, args, env) {
  const base = { ...process.env };
  for (const name of ['AGENTCTL_MODE', 'OPENAI_BASE_URL', 'OPENAI_API_KEY', 'WEATHER_CITY', 'NODE_OPTIONS', 'NODE_TEST_CONTEXT']) delete base[name];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: dir, env: { ...base, CI: 'true', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (data) => (output += data));
    child.stderr.on('data', (data) => (output += data));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, output }));
  });
}

for (const [runner, args] of Object.entries(RUNNERS)) {
  test(`the ${runner} example records its tape, replays it offline, and fails naming the field when the agent changes`, async () => {
    const dir = mkdtempSync(join(COMPAT, '.example-'));
    copies.push(dir);
    cpSync(EXAMPLES, dir, { recursive: true });

    const model = await startModel();
    let recorded;
    let requests;
    try {
      recorded = await run(dir, args, { OPENAI_BASE_URL: `${model.url}/v1`, OPENAI_API_KEY: API_KEY });
      requests = model.getRequests().length;
    } finally {
      await model.stop();
    }
    assert.equal(recorded.status, 0, recorded.output);
    assert.ok(existsSync(join(dir, TAPE)), `${TAPE} written`);
    assert.equal(requests, 2);

    const replayed = await run(dir, args, { AGENTCTL_MODE: 'replay' });
    assert.equal(replayed.status, 0, replayed.output);

    const changed = await run(dir, args, { AGENTCTL_MODE: 'replay', WEATHER_CITY: 'Berlin' });
    assert.notEqual(changed.status, 0, changed.output);
    assert.match(changed.output, /the replay of \S*weather-umbrella\.tape\.jsonl diverged: .*messages\[0\]\.content/);
  });
}
