/**
 * A Chat Completions agent on the openai SDK, recorded through the library (`record()`) onto a tape
 * file, against the scripted server: its one tool, `lookup`, wrapped by recordTool. The looping
 * script asks for lookup(q=x) six times, one call a step, then answers — the run the guardrail
 * analysis tests judge.
 */
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { record } from '../../src/library/record-replay.js';
import { startMockLlm } from './mock-llm.js';
import type { ScenarioStep } from './scenario.js';

const LOOKUP = { type: 'function' as const, function: { name: 'lookup', description: 'Look a word up', parameters: { type: 'object' } } };

export const LOOKUP_USAGE = { prompt_tokens: 100, completion_tokens: 10 };
export const ANSWER_USAGE = { prompt_tokens: 50, completion_tokens: 5 };
export const SAME_LOOKUP: ScenarioStep = { tool_calls: [{ name: 'lookup', arguments: { q: 'x' } }], usage: LOOKUP_USAGE };
/** lookup(q=x) six times, one call a step, then the answer. */
export const LOOPING: ScenarioStep[] = [...Array.from({ length: 6 }, () => SAME_LOOKUP), { content: 'x is a thing.', usage: ANSWER_USAGE }];

/**
 * Record the agent on `steps` onto `tape`. Each turn runs until an answer without tool calls; with
 * `resend`, the first request of each turn is sent twice (its first answer dropped, as an agent that
 * retries would).
 */
export async function recordChatAgent(tape: string, steps: ScenarioStep[], turns: string[] = ['What is x?'], resend = false): Promise<void> {
  const server = await startMockLlm(steps);
  const session = await record({ tape });
  try {
    const client = new OpenAI({ apiKey: 'sk-test-analysis-0123456789abcdef', baseURL: server.baseURL, fetch: session.fetch });
    const lookup = session.recordTool('lookup', async (args: { q: string }) => ({ word: args.q, meaning: 'a thing' }));
    const messages: ChatCompletionMessageParam[] = [];
    for (const turn of turns) {
      messages.push({ role: 'user', content: turn });
      if (resend) await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [...messages], tools: [LOOKUP] });
      for (;;) {
        const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [...messages], tools: [LOOKUP] });
        const message = completion.choices[0]!.message;
        messages.push(message);
        if (message.tool_calls === undefined || message.tool_calls.length === 0) break;
        for (const call of message.tool_calls) {
          if (call.type !== 'function') continue;
          const value = await lookup(JSON.parse(call.function.arguments) as { q: string });
          messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(value) });
        }
      }
    }
  } finally {
    await session.finish();
    await server.close();
  }
  server.assertConsumed();
}
