/**
 * An agent written on the `openai` SDK whose model (the scripted mock) asks for the same lookup four
 * times, then answers: recorded through the library (recordOpenAI) onto a tape file. The run has no
 * guardrail decision on it, so `view` and `show` give its analysis — the second call a duplicate, the
 * third blocked as identical call 3 of 3 (step 2).
 */
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { recordOpenAI } from '../../src/library/record-openai.js';
import { startMockLlm } from './mock-llm.js';

const LOOKUP: ChatCompletionTool[] = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }];

/** `args`: the arguments text of each of the four calls. */
export async function recordLoopingAgent(tape: string, args = '{"q":"port"}'): Promise<void> {
  const call = { name: 'lookup', arguments: args };
  const llm = await startMockLlm([{ tool_calls: [call] }, { tool_calls: [call] }, { tool_calls: [call] }, { tool_calls: [call] }, { content: 'port 8080' }]);
  try {
    const client = await recordOpenAI(new OpenAI({ baseURL: llm.baseURL, apiKey: 'sk-looping-agent-0000', maxRetries: 0 }), { tape, task: 'find the port' });
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'find the port' }];
    for (;;) {
      const completion = await client.chat.completions.create({ model: 'm', messages: [...messages], tools: LOOKUP });
      const message = completion.choices[0]?.message;
      if (message === undefined) throw new Error('no answer');
      messages.push(message as ChatCompletionMessageParam);
      if (message.tool_calls === undefined || message.tool_calls.length === 0) break;
      for (const toolCall of message.tool_calls) messages.push({ role: 'tool', tool_call_id: toolCall.id, content: 'port 8080' });
    }
    await client.finish();
  } finally {
    await llm.close();
  }
}
