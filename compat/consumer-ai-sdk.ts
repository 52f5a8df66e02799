/**
 * A TypeScript project on the Vercel AI SDK (ai 7) with agentctl's guardrails adapter, compiled
 * strictly (tsconfig.ai-sdk.json: strict, NodeNext, no skipLibCheck; the DOM library, which the
 * SDK's declarations need), never run: the adapter's tools go where generateText takes its `tools`,
 * keeping their types (a tool's result is still its own), and its condition goes in a `stopWhen`
 * array beside the SDK's own.
 */
import { generateText, isStepCount, streamText, tool, type LanguageModel } from 'ai';
import { z } from 'zod';
import { aiSdkGuardrails, createGuardrails, record } from 'agentctl';

const readFile = tool({
  description: 'Read a file',
  inputSchema: z.object({ path: z.string() }),
  execute: async ({ path }) => ({ path, text: '' }),
});

export async function guardedAnswer(model: LanguageModel): Promise<string> {
  const session = await record({ tape: 'tapes/guarded.tape.jsonl' });
  const guard = aiSdkGuardrails(createGuardrails({ tape: session, tools: { read_file: { idempotent: true, mutating: false } } }));
  const result = await generateText({ model, prompt: 'Read README.md', tools: guard.tools({ read_file: readFile }), stopWhen: [isStepCount(10), guard.stopWhen] });
  await session.finish();
  const first: { path: string; text: string } | undefined = result.steps[0]?.staticToolResults[0]?.output;
  return first?.path ?? result.text;
}

export function guardedStream(model: LanguageModel) {
  const guard = aiSdkGuardrails(createGuardrails());
  return streamText({ model, prompt: 'Read README.md', tools: guard.tools({ read_file: readFile }), stopWhen: guard.stopWhen });
}
