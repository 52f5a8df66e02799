/**
 * `agentctl proxy`, the binary the installed package puts in node_modules/.bin, run on Node 24: the
 * openai SDK (7) streaming a tool-calling loop through it, recorded against the mock server, then
 * served from the tape with the server stopped. The proxy sees HTTP only: the agent's tool here is
 * a pure function (tools with side effects are served by the library's recordTool, the other tests).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { ANSWER, API_KEY, MODEL, NOTE, TASK, TOOL, scratch, startMock } from '../support.mjs';

const AGENTCTL = fileURLToPath(new URL('../node_modules/.bin/agentctl', import.meta.url));

/** Start `agentctl proxy --port 0 --json …` and wait for the line that says where it listens. */
function startProxy(store, args) {
  const child = spawn(AGENTCTL, ['proxy', '--port', '0', '--json', '--store', store, ...args], {
    // The binary runs on the Node running this test (its `#!/usr/bin/env node` finds it first).
    env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}`, OPENAI_API_KEY: API_KEY, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (data) => (stderr += data));
  const exited = new Promise((resolve) => child.once('close', (code) => resolve({ code, lines: stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line)), stderr })));
  return new Promise((resolve, reject) => {
    void exited.then(({ code }) => reject(new Error(`agentctl proxy exited with ${code}: ${stderr}`)));
    child.stdout.setEncoding('utf8').on('data', (data) => {
      const first = (stdout += data).indexOf('\n');
      if (first === -1 || resolve === undefined) return;
      const ready = JSON.parse(stdout.slice(0, first));
      resolve({ url: ready.url, stop: () => (child.kill('SIGTERM'), exited) });
      resolve = undefined;
    });
  });
}

/** The agent: a streamed tool-calling loop on Chat Completions; its answer and the tool calls made. */
async function runAgent(client) {
  const messages = [{ role: 'user', content: TASK }];
  const tools = [{ type: 'function', function: { ...TOOL, parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } } }];
  const toolCalls = [];
  for (;;) {
    const stream = client.chat.completions.stream({ model: MODEL, messages, tools });
    const message = (await stream.finalChatCompletion()).choices[0].message;
    messages.push(message);
    if (!message.tool_calls?.length) return { answer: message.content, toolCalls };
    for (const call of message.tool_calls) {
      toolCalls.push({ name: call.function.name, arguments: JSON.parse(call.function.arguments) });
      messages.push({ role: 'tool', tool_call_id: call.id, content: 'noted' });
    }
  }
}

let scratchDir;
before(async () => (scratchDir = await scratch('proxy')));
after(() => scratchDir.remove());

test('agentctl proxy from the installed package: openai 7 streamed through it, recorded, then replayed offline', async () => {
  const store = join(scratchDir.dir, 'store');
  const mock = await startMock();

  const recorder = await startProxy(store, ['--record', 'proxy-chat', '--upstream', `${mock.url}/v1`]);
  const recorded = await runAgent(new OpenAI({ apiKey: 'unused', baseURL: recorder.url, maxRetries: 0 }));
  const recordedExit = await recorder.stop();
  await mock.stop();
  assert.deepEqual(recorded, { answer: ANSWER, toolCalls: [{ name: TOOL.name, arguments: NOTE }] });
  assert.equal(recordedExit.code, 0, recordedExit.stderr);
  assert.equal(recordedExit.lines.at(-1).recorded, 2);
  assert.equal(mock.requests(), 2);

  const replayer = await startProxy(store, ['--replay', 'proxy-chat']);
  const replayed = await runAgent(new OpenAI({ apiKey: 'unused', baseURL: replayer.url, maxRetries: 0 }));
  const replayedExit = await replayer.stop();
  assert.deepEqual(replayed, recorded);
  assert.equal(replayedExit.code, 0, replayedExit.stderr);
  const { served, divergences, unused } = replayedExit.lines.at(-1);
  assert.deepEqual({ served, divergences, unused }, { served: 2, divergences: 0, unused: 0 });
});
