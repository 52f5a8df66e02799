/**
 * Durability of a real recording: the loop, RunRecorder and a LevelDB store in a child process,
 * driven the way `agentctl record` drives them (each event written and awaited before the loop goes
 * on). A tool kills its own process with SIGKILL the moment it runs — the loop acting on the model's
 * reply, and on the tool result before it in the step. The reopened store must hold every event up to
 * that reply and that tool result, in order with no gap, and list the run as incomplete. A recorder
 * that let the loop act on a reply (or a tool result) before it was written loses it here.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunEvent } from '../src/core/events.js';
import { TapeStore } from '../src/tape/tape-store.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-record-kill-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const dist = (path: string): string => JSON.stringify(pathToFileURL(join(process.cwd(), 'dist', path)).href);

it.each([
  [0, 0],
  [3, 0],
  [0, 1],
  [4, 1],
])('keeps what a tool ran on when it kills the process (step %i, call %i)', async (killAt, killCall) => {
  const store = join(dir, `store-${killAt}-${killCall}`);
  // Two tool calls per step; call `killCall` of step `killAt` kills the process as it starts.
  const script = `
    import { parseConfig } from ${dist('agent/load-config.js')};
    import { runLoop } from ${dist('agent/loop.js')};
    import { seededRandom, systemClock } from ${dist('core/clock.js')};
    import { createRedactor } from ${dist('core/redact.js')};
    import { RunRecorder } from ${dist('tape/run-recorder.js')};
    import { TapeStore } from ${dist('tape/tape-store.js')};
    const [killAt, killCall] = [${killAt}, ${killCall}];
    const store = await TapeStore.open(${JSON.stringify(store)});
    const config = parseConfig({ model: 'm', tools: ['read_file'], limits: { maxSteps: 20 } }, 'config');
    let step = 0;
    const llm = {
      complete: async () => {
        const s = step++;
        const call = (k) => ({ id: 'call_' + s + '_' + k, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: 'f' + s + '_' + k }) } });
        return { message: { role: 'assistant', content: null, tool_calls: [call(0), call(1)] }, finishReason: 'tool_calls', usage: { inputTokens: 10, outputTokens: 5 } };
      },
    };
    const tools = {
      lookup: () => ({ name: 'read_file', description: 'read', parameters: { type: 'object' }, readOnly: true }),
      definitions: () => [{ type: 'function', function: { name: 'read_file', description: 'read', parameters: { type: 'object' } } }],
      execute: async (call) => {
        if (call.id === 'call_' + killAt + '_' + killCall) process.kill(process.pid, 'SIGKILL');
        return { status: 'ok', output: 'content of ' + call.id + ' '.repeat(2000), durationMs: 0 };
      },
      policies: [],
    };
    const recorder = await RunRecorder.start(store, { kind: 'record', task: 't', model: 'm', config: { ...config }, seed: 1 }, createRedactor());
    process.stdout.write('run ' + recorder.runId + '\\n');
    const loop = runLoop({ task: 't', config }, { llm, tools, clock: systemClock, random: seededRandom(1) });
    for (let next = await loop.next(); !next.done; next = await loop.next()) await recorder.write(next.value);
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (data: string) => (out += data));
  const signal = await new Promise((resolve) => child.once('close', (_code, signal) => resolve(signal)));
  expect(signal).toBe('SIGKILL');
  const runId = /run (\S+)/.exec(out)?.[1] ?? '';

  const reopened = await TapeStore.open(store);
  try {
    expect((await reopened.getRun(runId)).status).toBe('incomplete');
    const events: RunEvent[] = [];
    for await (const event of reopened.readEvents(runId)) events.push(event);
    // A prefix of the run: no gap.
    expect(events.map((e) => e.seq)).toEqual([...events.keys()]);
    // What the killing tool ran on: the reply of its step (and everything before it), and the
    // results of the calls before it in the step.
    const responses = events.filter((e) => e.type === 'llm_response').map((e) => e.step);
    expect(responses).toEqual([...Array(killAt + 1).keys()]);
    const results = events.flatMap((e) => (e.type === 'tool_result' ? [e.callId] : []));
    expect(results).toHaveLength(2 * killAt + killCall);
    if (killCall === 1) expect(results).toContain(`call_${killAt}_0`);
  } finally {
    await reopened.close();
  }
});
