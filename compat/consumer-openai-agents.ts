/**
 * A TypeScript project on @openai/agents (0.20) with agentctl's guardrails adapter, compiled strictly
 * (tsconfig.openai-agents.json: strict, NodeNext, no skipLibCheck; the DOM library, which the SDK's
 * realtime declarations need), never run: a guarded `execute` is a tool's `execute`, its input typed
 * by the tool's parameters, and `runOptions` are a run's options — streamed or not, with the
 * project's own options and `callModelInputFilter` in them — for `Runner.run` and `run` alike.
 */
import { Agent, Runner, run, tool, type CallModelInputFilterArgs, type RunContext } from '@openai/agents';
import { z } from 'zod';
import { createGuardrails, GuardrailStopError, openaiAgentsGuardrails, record } from 'agentctl';

export async function guardedLookup(): Promise<string | undefined> {
  const session = await record({ tape: 'tapes/guarded-agent.tape.jsonl' });
  const guarded = openaiAgentsGuardrails(createGuardrails({ tape: session, tools: { lookup: { idempotent: true, mutating: false } } }));
  const lookup = tool({
    name: 'lookup',
    description: 'Look a term up',
    parameters: z.object({ q: z.string() }),
    execute: guarded.execute(async ({ q }) => ({ q, hits: q.length })),
  });
  const count = tool({
    name: 'count',
    description: 'Count the model calls so far',
    parameters: z.object({}),
    execute: guarded.execute(async (_input, context?: RunContext) => context?.usage.requests ?? 0),
  });
  const agent = new Agent({ name: 'researcher', instructions: 'Use the tools.', tools: [lookup, count] });
  const own = async ({ modelData }: CallModelInputFilterArgs) => modelData;
  try {
    const streamed = await new Runner().run(agent, 'Look up agentctl.', guarded.runOptions({ stream: true, maxTurns: 10, callModelInputFilter: own }));
    await streamed.completed;
    const result = await run(agent, 'Look up agentctl again.', guarded.runOptions());
    return result.finalOutput;
  } catch (error) {
    if (error instanceof GuardrailStopError) return `${error.rule ?? ''} at step ${error.step ?? ''}`;
    throw error;
  } finally {
    await session.finish();
  }
}
