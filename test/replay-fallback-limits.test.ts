/**
 * `replay --fallback live` bounds its live model calls by the replay's own time limits, as `record`
 * does: `limits.requestTimeoutMs` and `limits.streamIdleTimeoutMs` as recorded, or as `--set` makes
 * them. Through the real binary, against servers on 127.0.0.1 that never answer or stall mid-stream:
 * the replay ends with the timeout recorded as a model error, instead of waiting for the defaults
 * (minutes). runCli's own limit (15 s) ends a replay that hangs, and the assertions then fail.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../src/core/events.js';
import { runCli, type CliResult } from './support/cli.js';
import { startMockLlm } from './support/mock-llm.js';

const noModel = { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined };
/** Longer than any limit here, far shorter than the defaults (180 s, 60 s). */
const HANG_GUARD_MS = 15_000;
let dir: string;
/** A patch that makes the model call a tool at step 0, so the replay needs a step 1 the tape does not have. */
let patch: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-fallback-limits-'));
  patch = join(dir, 'patch.json');
  await writeFile(patch, JSON.stringify({ content: 'Looking once more.', tool_calls: [{ name: 'list_dir', arguments: { path: '.' } }] }));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Record a one-step run (the model answers at once) named `name` with `config`. */
async function recordOneStep(name: string, config: object, extra: string[] = []): Promise<string> {
  const store = join(dir, `store-${name}`);
  const ws = join(dir, `ws-${name}`);
  await mkdir(ws, { recursive: true });
  const file = join(dir, `${name}.config.json`);
  await writeFile(file, JSON.stringify({ tools: ['list_dir'], ...config }));
  const llm = await startMockLlm([{ content: 'Nothing to do.' }]);
  try {
    const result = await runCli(['record', '--task', 'look around', '--config', file, '--base-url', llm.baseURL, '--workspace', ws, '--store', store, '--name', name, ...extra], { env: noModel });
    expect(result.code, result.stderr).toBe(0);
    llm.assertConsumed();
  } finally {
    await llm.close();
  }
  return store;
}

/** A chat-completions server that takes every request and never answers it. */
async function silentServer(): Promise<{ baseURL: string; requests: () => number; close: () => Promise<void> }> {
  let requests = 0;
  const server = createServer((_req: IncomingMessage, _res: ServerResponse) => {
    requests++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error === undefined ? resolve() : reject(error)));
        server.closeAllConnections();
      }),
  };
}

function jsonOutput(result: CliResult): { events: RunEvent[]; summary: Record<string, unknown> } {
  const lines = result.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
  return { events: lines.slice(0, -1) as unknown as RunEvent[], summary: lines.at(-1) ?? {} };
}

describe('replay --fallback live: the live calls have the replay config time limits', () => {
  it('the recorded limits.requestTimeoutMs ends a live call the server never answers', async () => {
    const store = await recordOneStep('request', { limits: { requestTimeoutMs: 1500, maxRetries: 0 } });
    const server = await silentServer();
    try {
      const result = await runCli(['replay', 'request', '--store', store, '--patch', `0=@${patch}`, '--fallback', 'live', '--base-url', server.baseURL, '--no-save', '--json'], {
        env: noModel,
        timeoutMs: HANG_GUARD_MS,
      });
      expect(result.code, `the replay did not end by itself: ${result.stderr}`).not.toBeNull();
      const { events, summary } = jsonOutput(result);
      const errors = events.filter((e) => e.type === 'llm_error');
      expect(errors.map((e) => e.type === 'llm_error' && e.message)).toEqual(['the model request timed out: no complete answer within 1500 ms (limits.requestTimeoutMs)']);
      expect(errors[0]).toMatchObject({ step: 1, attempt: 0 });
      expect(summary).toMatchObject({ state: 'ERROR', liveCalls: 1, exitCode: result.code });
      expect(server.requests()).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('--set limits.streamIdleTimeoutMs ends a live stream that stalls', async () => {
    const store = await recordOneStep('stream', {}, ['--stream']);
    const server = await startMockLlm([{ content: 'one two three', stallAfter: 1 }]);
    try {
      const result = await runCli(
        ['replay', 'stream', '--store', store, '--patch', `0=@${patch}`, '--fallback', 'live', '--base-url', server.baseURL, '--set', 'limits.streamIdleTimeoutMs=300', '--set', 'limits.maxRetries=0', '--no-save', '--json'],
        { env: noModel, timeoutMs: HANG_GUARD_MS },
      );
      expect(result.code, `the replay did not end by itself: ${result.stderr}`).not.toBeNull();
      const { events, summary } = jsonOutput(result);
      const errors = events.filter((e) => e.type === 'llm_error');
      expect(errors.map((e) => e.type === 'llm_error' && e.message)).toEqual(['the model stream stalled: no data for 300 ms (stream idle timeout, limits.streamIdleTimeoutMs)']);
      expect(summary).toMatchObject({ state: 'ERROR', liveCalls: 1, exitCode: result.code });
      server.assertConsumed();
    } finally {
      await server.close();
    }
  });
});
