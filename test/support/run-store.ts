/** A store holding finished runs made up for a test (no events): for the commands that list and find runs. */
import { TapeStore } from '../../src/tape/tape-store.js';

export interface MadeRun {
  id?: string;
  task: string;
  name?: string;
  steps?: number;
}

/** Create `runs` in the store at `dir` (created when missing), finished COMPLETED; returns their ids in order. */
export async function storeWithRuns(dir: string, runs: readonly MadeRun[]): Promise<string[]> {
  const store = await TapeStore.open(dir);
  try {
    const ids: string[] = [];
    for (const made of runs) {
      const run = await store.createRun({
        kind: 'record', task: made.task, model: 'gpt-test', config: { model: 'gpt-test' }, seed: 0,
        ...(made.id === undefined ? {} : { id: made.id }),
        ...(made.name === undefined ? {} : { name: made.name }),
      });
      const steps = made.steps ?? 1;
      await store.finishRun(run.id, { finalState: 'COMPLETED', eventCount: 0, totals: { steps, llmCalls: steps, toolCalls: 0, inputTokens: 0, outputTokens: 0, cost: 0 } });
      ids.push(run.id);
    }
    return ids;
  } finally {
    await store.close();
  }
}
