/**
 * The Anthropic SDK (1.14): a tool-use loop on the Messages API, the client given agentctl's
 * recording `fetch` against the mock server, then the replaying one with the server stopped: the
 * same answer, the same tool use, the tool not run again, and each Messages call counted as a model
 * call served from the tape.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { ANSWER, API_KEY, NOTE, TASK, TOOL, recordThenReplay, scratch } from '../support.mjs';

const MODEL = 'claude-sonnet-5';

/** Run the agent through `fetch`; its final text and the tool uses the model asked for. */
async function runAgent({ url, fetch, tool: noted }) {
  const client = new Anthropic({ apiKey: API_KEY, baseURL: url, fetch, maxRetries: 0 });
  const tools = [{ ...TOOL, input_schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }];
  const messages = [{ role: 'user', content: TASK }];
  const toolUses = [];
  for (;;) {
    const reply = await client.messages.create({ model: MODEL, max_tokens: 1024, tools, messages });
    messages.push({ role: 'assistant', content: reply.content });
    const uses = reply.content.filter((block) => block.type === 'tool_use');
    if (uses.length === 0) return { text: reply.content.filter((block) => block.type === 'text').map((block) => block.text).join(''), toolUses };
    const results = [];
    for (const use of uses) {
      toolUses.push({ name: use.name, input: use.input });
      results.push({ type: 'tool_result', tool_use_id: use.id, content: String(await noted.run(use.input)) });
    }
    messages.push({ role: 'user', content: results });
  }
}

let scratchDir;
before(async () => (scratchDir = await scratch('anthropic')));
after(() => scratchDir.remove());

test('@anthropic-ai/sdk 1.14 messages with tool use: recorded through record().fetch, replayed offline', async () => {
  const { recorded, served } = await recordThenReplay(scratchDir.dir, 'anthropic', runAgent);
  assert.deepEqual(recorded, { text: ANSWER, toolUses: [{ name: TOOL.name, input: NOTE }] });
  assert.deepEqual(served, { calls: 2, divergences: 0, remaining: 0 });
});
