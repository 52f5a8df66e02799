import type { ToolCall } from '../../core/messages.js';
import type { ExecutorResult, PipelineItem, StepToolOutcome, ToolExecutor } from '../tool-call-pipeline.js';

let nextId = 0;

/** An OpenAI tool call; arguments given as an object are serialised, a string is taken as is. */
export function toolCall(name: string, args: Record<string, unknown> | string, id?: string): ToolCall {
  nextId += 1;
  return {
    id: id ?? `call_${nextId}`,
    type: 'function',
    function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) },
  };
}

/** Drain a pipeline: every yielded item and the return value. */
export async function drain(
  gen: AsyncGenerator<PipelineItem, StepToolOutcome, void>,
): Promise<{ items: PipelineItem[]; outcome: StepToolOutcome }> {
  const items: PipelineItem[] = [];
  for (;;) {
    const next = await gen.next();
    if (next.done === true) return { items, outcome: next.value };
    items.push(next.value);
  }
}

/** An executor that answers by tool name (default: ok, "<tool> output") and logs what it ran. */
export function scriptedExecutor(
  answers: Record<string, ExecutorResult | ExecutorResult[]> = {},
): ToolExecutor & { ran: Array<{ tool: string; args: Record<string, unknown> }> } {
  const ran: Array<{ tool: string; args: Record<string, unknown> }> = [];
  const queues = new Map(Object.entries(answers).map(([k, v]) => [k, Array.isArray(v) ? [...v] : v]));
  const execute = async (call: ToolCall, args: Record<string, unknown>): Promise<ExecutorResult> => {
    const tool = call.function.name;
    ran.push({ tool, args });
    const answer = queues.get(tool);
    if (answer === undefined) return { status: 'ok', output: `${tool} output` };
    if (!Array.isArray(answer)) return answer;
    return answer.shift() ?? { status: 'ok', output: `${tool} output` };
  };
  return Object.assign(execute, { ran });
}

/** The decision records of a list of items, optionally for one call. */
export function decisions(items: PipelineItem[], callId?: string): Array<Extract<PipelineItem, { kind: 'decision' }>['record']> {
  return items.flatMap((item) => (item.kind === 'decision' && (callId === undefined || item.callId === callId) ? [item.record] : []));
}
