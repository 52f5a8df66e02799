/**
 * Drives the whole agent loop in-process for scenario tests: `runAgent` with the real OpenAI
 * adapter against a scripted mock server on 127.0.0.1, real tools in a temp copy of a fixture
 * workspace, a ManualClock and a seeded Random. Everything a test starts is stopped after it.
 *
 *   const harness = useLoopHarness();
 *   const run = await harness.run('duplicate-read', { config: { limits: { maxSteps: 5 } } });
 *   run.events; run.result; run.bodies; run.server.remaining();
 */
import { cp, mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import type { RunEvent } from '../../src/core/events.js';
import type { AgentConfigInput } from '../../src/agent/config.js';
import type { LoopResult, UserInput } from '../../src/agent/loop.js';
import { runAgent } from '../../src/library/run-agent.js';
import { startMockLlm, type MockLlm } from './mock-llm.js';
import { loadScenario, type Scenario, type ScenarioStep } from './scenario.js';

/** The repository's fixtures/workspaces directory. */
export const WORKSPACE_DIR = fileURLToPath(new URL('../../fixtures/workspaces/', import.meta.url));
/** The repository's fixtures directory (custom tool modules are resolved against it). */
export const FIXTURES_DIR = fileURLToPath(new URL('../../fixtures/', import.meta.url));

/** A key-shaped secret: it must never show up in an event. */
export const TEST_API_KEY = 'sk-loop-test-SECRET-0123456789abcdef';

/** The config every scenario starts from; a test's `config` is merged over it (one level deep). */
export const BASE_CONFIG = {
  model: 'test-model',
  systemPrompt: 'You are a test agent.',
  seed: 7,
} satisfies AgentConfigInput;

/** A chat message as the mock server received it. */
export interface WireMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_call_id?: string;
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
}

/** A chat-completions request body as the mock server received it. */
export interface WireRequest {
  model: string;
  stream?: boolean;
  messages: WireMessage[];
  tools?: Array<{ type: 'function'; function: { name: string } }>;
}

export interface HarnessOptions {
  config?: AgentConfigInput;
  /** Fixture under fixtures/workspaces/ copied into a fresh temp dir; default `calc`. */
  fixture?: string;
  task?: string;
  clock?: ManualClock;
  signal?: AbortSignal;
  input?: UserInput;
  /** Called with the fresh workspace before the run starts (add files, e.g. next to it). */
  prepare?: (workspace: string) => Promise<void> | void;
  /** Directory `toolModules` are resolved against; default fixtures/. */
  configDir?: string;
  /** Called with each event as it is yielded, before the loop resumes (advance the clock, abort…). */
  onEvent?: (event: RunEvent, events: readonly RunEvent[]) => void;
}

export interface HarnessRun {
  events: RunEvent[];
  result: LoopResult;
  server: MockLlm;
  /** The temp workspace the tools ran in (real path). */
  workspace: string;
  clock: ManualClock;
  /** The chat-completions request bodies the server received, in order. */
  bodies: WireRequest[];
}

export interface LoopHarness {
  /** Run `scenario` (a name under fixtures/scenarios/, or inline steps) to its end. */
  run(scenario: string | Scenario | ScenarioStep[], options?: HarnessOptions): Promise<HarnessRun>;
  /** A fresh temp copy of a fixture workspace, removed after the test; returns its real path. */
  workspace(fixture?: string): Promise<string>;
}

/** Registers cleanup (servers closed, temp dirs removed) after each test of the calling file. */
export function useLoopHarness(): LoopHarness {
  const servers: MockLlm[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
    await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  });

  async function workspace(fixture = 'calc'): Promise<string> {
    // The workspace is a child of its own temp dir, so a test can put files "outside" it.
    const root = await realpath(await mkdtemp(join(tmpdir(), 'agentctl-loop-')));
    dirs.push(root);
    const ws = join(root, 'ws');
    await mkdir(ws);
    await cp(join(WORKSPACE_DIR, fixture), ws, { recursive: true });
    return ws;
  }

  async function run(scenario: string | Scenario | ScenarioStep[], options: HarnessOptions = {}): Promise<HarnessRun> {
    const script = typeof scenario === 'string' ? loadScenario(scenario) : scenario;
    const server = await startMockLlm(script);
    servers.push(server);
    const ws = await workspace(options.fixture);
    await options.prepare?.(ws);
    const clock = options.clock ?? new ManualClock(1_000);
    const events: RunEvent[] = [];
    const agent = runAgent({
      task: options.task ?? 'Fix the failing test in this project.',
      config: mergeConfig(BASE_CONFIG, options.config ?? {}),
      configDir: options.configDir ?? FIXTURES_DIR,
      baseURL: server.baseURL,
      apiKey: TEST_API_KEY,
      workspace: ws,
      clock,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.input === undefined ? {} : { input: options.input }),
    });
    let result: LoopResult;
    for (;;) {
      const next = await agent.next();
      if (next.done === true) {
        result = next.value;
        break;
      }
      events.push(next.value);
      options.onEvent?.(next.value, events);
    }
    const bodies = server.requests
      .filter((r) => r.method === 'POST' && r.path.endsWith('/chat/completions'))
      .map((r) => r.body as WireRequest);
    return { events, result, server, workspace: ws, clock, bodies };
  }

  return { run, workspace };
}

/** `base` with `over` laid on top; nested objects (limits, guardrails…) are merged one level deep. */
export function mergeConfig(base: AgentConfigInput, over: AgentConfigInput): AgentConfigInput {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const prior = out[key];
    out[key] = isPlainObject(prior) && isPlainObject(value) ? { ...prior, ...value } : value;
  }
  return out as AgentConfigInput;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The events of one type, typed. */
export function ofType<T extends RunEvent['type']>(events: readonly RunEvent[], type: T): Array<Extract<RunEvent, { type: T }>> {
  return events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);
}

/** The states the run went through, in order (`to` of every state event). */
export function statePath(events: readonly RunEvent[]): string[] {
  return ofType(events, 'state').map((e) => e.to);
}

/** Guardrail events of one gate, optionally for one call. */
export function decisions(events: readonly RunEvent[], gate: string, callId?: string): Array<Extract<RunEvent, { type: 'guardrail' }>> {
  return ofType(events, 'guardrail').filter((e) => e.gate === gate && (callId === undefined || e.callId === callId));
}

/** The tool messages of a request body, by tool_call_id. */
export function toolMessages(body: WireRequest | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of body?.messages ?? []) if (m.role === 'tool' && m.tool_call_id !== undefined) out.set(m.tool_call_id, m.content ?? '');
  return out;
}

/** The last event, which must be run_end. */
export function runEnd(events: readonly RunEvent[]): Extract<RunEvent, { type: 'run_end' }> {
  const last = events.at(-1);
  if (last?.type !== 'run_end') throw new Error(`the last event is ${last?.type ?? 'missing'}, not run_end`);
  return last;
}

/**
 * Every tool message in `messages` directly follows (within its block of tool messages) the
 * assistant message that asked for it. Returns the problems found; empty when the list is valid.
 */
export function orphanToolMessages(messages: ReadonlyArray<Pick<WireMessage, 'role' | 'tool_call_id' | 'tool_calls'>>): string[] {
  const problems: string[] = [];
  let open = new Set<string>();
  for (const [i, m] of messages.entries()) {
    if (m.role === 'assistant') open = new Set((m.tool_calls ?? []).map((c) => c.id));
    else if (m.role === 'tool') {
      if (m.tool_call_id === undefined || !open.has(m.tool_call_id)) problems.push(`message ${i}: tool result ${m.tool_call_id ?? '?'} without its call`);
    } else open = new Set();
  }
  return problems;
}
