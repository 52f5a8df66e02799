/**
 * A TypeScript project's view of agentctl installed from its packed tarball next to openai 7:
 * compiled strictly (tsconfig.json: strict, NodeNext, no skipLibCheck), never run. With one copy of
 * openai, agentctl's types name the project's own `OpenAI`, so the project's client goes in and an
 * `OpenAI` comes out; with a second copy (a linked install) this fails to compile (TS2345/TS2322).
 */
import OpenAI from 'openai';
import { recordOpenAI, replayOpenAI, type OpenAIRecording, type ReplayedOpenAI } from 'agentctl';

export async function recordedClient(client: OpenAI): Promise<OpenAI> {
  const recording: OpenAIRecording = await recordOpenAI(client, { store: '.agentctl/store', runName: 'consumer' });
  return recording.client;
}

export async function replayedClient(): Promise<OpenAI> {
  const replayed: ReplayedOpenAI = await replayOpenAI({ tape: { store: '.agentctl/store', run: 'consumer' } });
  return replayed;
}

export function isApiError(error: unknown): error is InstanceType<typeof OpenAI.APIError> {
  return error instanceof OpenAI.APIError;
}

void recordedClient(new OpenAI({ apiKey: 'sk-consumer', baseURL: 'http://127.0.0.1:1/v1' }));
