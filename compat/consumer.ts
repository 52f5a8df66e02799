/**
 * A TypeScript project's view of agentctl installed from its packed tarball next to openai 7:
 * compiled strictly (tsconfig.json: strict, NodeNext, no skipLibCheck), never run. With one copy of
 * openai, the conveniences give back the project's own `OpenAI` (its class, with the session's
 * members), so it goes wherever an `OpenAI` is expected; with a second copy (a linked install) this
 * fails to compile (TS2345/TS2322).
 */
import OpenAI from 'openai';
import { recordOpenAI, replayOpenAI, withTape, type OpenAITape, type TapeSession } from 'agentctl';

export async function recordedClient(client: OpenAI): Promise<OpenAI> {
  const recording: OpenAITape<OpenAI> = await recordOpenAI(client, { tape: 'tapes/consumer.tape.jsonl' });
  return recording;
}

export async function replayedClient(client: OpenAI): Promise<OpenAI> {
  const replayed = await replayOpenAI(client, { tape: 'tapes/consumer.tape.jsonl' });
  replayed.assertReproduced();
  return replayed;
}

export function answer(): Promise<string | null> {
  return withTape('consumer', async (session: TapeSession) => {
    const client = new OpenAI({ apiKey: 'unused', fetch: session.fetch });
    const completion = await client.chat.completions.create({ model: 'gpt-4.1-mini', messages: [{ role: 'user', content: 'hi' }] });
    return completion.choices[0]?.message.content ?? null;
  });
}

export function isApiError(error: unknown): error is InstanceType<typeof OpenAI.APIError> {
  return error instanceof OpenAI.APIError;
}

void recordedClient(new OpenAI({ apiKey: 'sk-consumer', baseURL: 'http://127.0.0.1:1/v1' }));
