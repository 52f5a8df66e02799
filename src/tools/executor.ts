/**
 * Runs one tool call within bounds: a time limit, a shared output cap, and no way for a tool to
 * crash the run. Whatever happens, the caller gets a status and the text the model will see.
 */
import { systemClock } from '../core/clock.js';
import { capOutput } from './output-cap.js';
import type { ToolRegistry } from './registry.js';
import { ToolError } from './tool.js';

/** How long a timed-out tool gets to wind down (kill its processes) before the call is reported. */
const ABORT_GRACE_MS = 1000;

/** Options of one tool call. */
export interface ExecuteOptions {
  /** Directory the tool is confined to (see `createWorkspace`). */
  workspace: string;
  /** Paths inside it the tool may not reach (ToolContext `hidden`). */
  hidden?: readonly string[];
  /** Time limit for this call; default: the tool's spec `timeoutMs`. */
  timeoutMs?: number;
  /** Cancels the call (e.g. SIGINT); the call then ends as an error saying it was cancelled. */
  signal?: AbortSignal;
  /** Source of `durationMs`; injected so tests and replays control time. Default: the system clock. */
  clock?: { now(): number };
}

/** How one executed call ended. (`denied` is decided before execution, by the guardrails, so it is not here.) */
export interface ExecuteResult {
  status: 'ok' | 'error' | 'timeout';
  /** The tool message for the model: the tool's output, or the error / timeout explanation. */
  output: string;
  durationMs: number;
}

/** The reason a call was aborted for taking too long; tells a timeout apart from a cancellation. */
class ToolTimeout extends Error {}

/** The text the model sees for a thrown value. */
function errorText(error: unknown): string {
  if (error instanceof ToolError) return error.message;
  // Any other error is probably a bug in the tool; keep its class name as a clue.
  if (error instanceof Error) return error.name === 'Error' ? error.message : `${error.name}: ${error.message}`;
  return String(error);
}

/** A tool's return value as text: custom tools are JavaScript and may return anything. */
function outputText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * `text` with the workspace's absolute path taken out: a path inside it becomes relative, the
 * workspace itself `.`. Error messages (a Node error, a bug) may carry it, and the model works
 * with workspace paths only.
 */
export function withoutWorkspacePath(text: string, workspace: string): string {
  if (workspace === '' || workspace === '/' || !text.includes(workspace)) return text;
  const escaped = workspace.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return text
    .replace(new RegExp(`${escaped}/(?=[\\w.-])`, 'g'), '')
    .replace(new RegExp(`${escaped}(?![\\w.-])`, 'g'), '.');
}

type Settled = { kind: 'ok'; value: unknown } | { kind: 'error'; error: unknown };

/**
 * Run tool `name` with `args`. Never throws: an unknown tool, bad arguments or a tool that throws
 * give status `error` with the message; exceeding the time limit aborts the tool's signal and
 * gives `timeout`. The output is capped (OUTPUT_CAP_BYTES) in every case.
 */
export async function executeTool(
  registry: ToolRegistry,
  name: string,
  args: Record<string, unknown>,
  options: ExecuteOptions,
): Promise<ExecuteResult> {
  const clock = options.clock ?? systemClock;
  const started = clock.now();
  const finish = (status: ExecuteResult['status'], output: string): ExecuteResult => ({
    status,
    output: capOutput(output),
    durationMs: Math.max(0, clock.now() - started),
  });

  const tool = registry.get(name);
  if (tool === undefined) {
    return finish('error', `unknown tool '${name}'; available tools: ${registry.names().join(', ') || '(none)'}`);
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    return finish('error', `arguments for ${name} must be a JSON object`);
  }
  if (options.signal?.aborted) return finish('error', `tool '${name}' was cancelled before it ran`);

  const timeoutMs = options.timeoutMs ?? tool.timeoutMs;
  const controller = new AbortController();
  const onCancel = (): void => controller.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onCancel, { once: true });
  const timer = setTimeout(() => controller.abort(new ToolTimeout(`timed out after ${timeoutMs} ms`)), timeoutMs);

  // Start the tool now, not in a later microtask: it must see (and register for) its signal before
  // anyone can abort it. A synchronous throw is a rejection like any other.
  let running: Promise<unknown>;
  try {
    running = Promise.resolve(tool.run(args, { workspace: options.workspace, hidden: options.hidden ?? [], signal: controller.signal }));
  } catch (error) {
    running = Promise.reject(error);
  }
  // Settle into a value so that a tool which ignores its signal and rejects later is not an unhandled rejection.
  const settled = running.then(
    (value): Settled => ({ kind: 'ok', value }),
    (error: unknown): Settled => ({ kind: 'error', error }),
  );
  const aborted = new Promise<void>((resolve) => controller.signal.addEventListener('abort', () => resolve(), { once: true }));

  try {
    const first = await Promise.race([settled, aborted]);
    if (first !== undefined && !controller.signal.aborted) {
      if (first.kind === 'ok') return finish('ok', outputText(first.value));
      return finish('error', withoutWorkspacePath(errorText(first.error), options.workspace));
    }
    // Aborted: let the tool stop what it started (bounded), then report why.
    let grace: NodeJS.Timeout | undefined;
    await Promise.race([settled, new Promise<void>((resolve) => (grace = setTimeout(resolve, ABORT_GRACE_MS)))]);
    clearTimeout(grace);
    if (controller.signal.reason instanceof ToolTimeout) {
      return finish('timeout', `tool '${name}' timed out after ${timeoutMs} ms and was stopped`);
    }
    return finish('error', `tool '${name}' was cancelled`);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onCancel);
  }
}
