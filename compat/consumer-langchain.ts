/**
 * A TypeScript project on LangChain (langchain 1.5, @langchain/core 1.4, @langchain/openai 1.6) with
 * agentctl's guardrails as agent middleware, compiled strictly (tsconfig.langchain.json: strict,
 * NodeNext, no skipLibCheck), never run: createAgent takes the middleware as it is, among LangChain's
 * own, and the agent's result is still LangChain's.
 */
import { ChatOpenAI } from '@langchain/openai';
import { ToolMessage, createAgent, tool, toolErrorMiddleware } from 'langchain';
import { z } from 'zod';
import { createGuardrails, langchainGuardrails, record } from 'agentctl';

const readFile = tool(({ path }) => `contents of ${path}`, { name: 'read_file', description: 'Read a file', schema: z.object({ path: z.string() }) });

export async function guardedAnswer(model: ChatOpenAI): Promise<string> {
  const session = await record({ tape: 'tapes/guarded-langchain.tape.jsonl' });
  const guardrails = createGuardrails({ tape: session, tools: { read_file: { idempotent: true, mutating: false } } });
  const agent = createAgent({
    model,
    tools: [readFile],
    middleware: [langchainGuardrails(guardrails, { ToolMessage }), toolErrorMiddleware({ onError: (error) => String(error) })],
  });
  const { messages } = await agent.invoke({ messages: [{ role: 'user', content: 'Read README.md' }] });
  await session.finish();
  const last: string | undefined = messages.at(-1)?.text;
  return guardrails.stopped?.reason ?? last ?? '';
}
