/**
 * The event types are inferred from the zod schema (event-schema.ts); the code relies on them being
 * as precise as hand-written ones: a union discriminated on `type`, literal unions for gates,
 * verdicts and states, optional fields optional. These are compile-time assertions (`npm run
 * typecheck` fails when one does not hold); the runtime part checks the plain arrays the schema and
 * the quick check are made from.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { GATES, VERDICTS, type DecisionRecord, type Gate, type Verdict } from './decisions.js';
import { runEventSchema } from './event-schema.js';
import type { GuardrailEvent, LlmRequestEvent, ModelEndpoint, RunEndEvent, RunEvent, RunEventInput, RunEventType, StateEvent, UserMessageEvent } from './events.js';
import type { FinishReason, LlmChunk } from './llm.js';
import type { ChatMessage } from './messages.js';
import type { RunMeta } from './run-meta.js';
import { AGENT_STATES, TERMINAL_STATES, type AgentState, type TerminalState } from './states.js';

describe('event types inferred from the schema', () => {
  it('RunEvent is a union discriminated on `type`, one member per event type', () => {
    expectTypeOf<RunEventType>().toEqualTypeOf<
      | 'run_start' | 'state' | 'user_message' | 'llm_request' | 'llm_chunk' | 'llm_error' | 'llm_response' | 'tool_call'
      | 'guardrail' | 'tool_result' | 'mcp_exchange' | 'budget' | 'checkpoint' | 'warning' | 'http_exchange' | 'divergence' | 'run_end'
    >();
    expectTypeOf<Extract<RunEvent, { type: 'guardrail' }>>().toEqualTypeOf<GuardrailEvent>();
    expectTypeOf<Extract<RunEventInput, { type: 'state' }>>().toEqualTypeOf<Omit<StateEvent, 'seq' | 't'>>();
    const types = runEventSchema.options.map((option) => option.shape.type.value);
    expect(new Set(types).size).toBe(types.length);
  });

  it('gates, verdicts and states are literal unions, made from one array each', () => {
    expectTypeOf<GuardrailEvent['gate']>().toEqualTypeOf<Gate>();
    expectTypeOf<Gate>().toEqualTypeOf<'arguments' | 'loop_guard' | 'replay_control' | 'failures' | 'repetition' | 'max_tokens' | 'budget' | 'policy'>();
    expectTypeOf<GuardrailEvent['verdict']>().toEqualTypeOf<Verdict>();
    expectTypeOf<Verdict>().toEqualTypeOf<'allow' | 'skip' | 'block' | 'continue' | 'warn' | 'halt' | 'stuck' | 'recover'>();
    expectTypeOf<StateEvent['to']>().toEqualTypeOf<AgentState>();
    expectTypeOf<StateEvent['from']>().toEqualTypeOf<AgentState | null>();
    expectTypeOf<RunEndEvent['state']>().toEqualTypeOf<TerminalState>();
    expectTypeOf<RunMeta['finalState']>().toEqualTypeOf<TerminalState | undefined>();
    expectTypeOf<TerminalState>().toExtend<AgentState>();
    expect(AGENT_STATES.filter((state) => (TERMINAL_STATES as readonly string[]).includes(state))).toEqual([...TERMINAL_STATES]);
    expect(new Set(GATES).size).toBe(GATES.length);
    expect(new Set(VERDICTS).size).toBe(VERDICTS.length);
  });

  it('nested shapes keep their literal unions and optional fields', () => {
    expectTypeOf<GuardrailEvent>().toExtend<DecisionRecord>();
    expectTypeOf<LlmChunk['finishReason']>().toEqualTypeOf<FinishReason | undefined>();
    expectTypeOf<LlmRequestEvent['endpoint']>().toEqualTypeOf<ModelEndpoint | undefined>();
    expectTypeOf<ChatMessage['role']>().toEqualTypeOf<'system' | 'user' | 'assistant' | 'tool'>();
    expectTypeOf<Extract<ChatMessage, { role: 'assistant' }>['content']>().toEqualTypeOf<string | null>();
    // Optional: an event without the field is an event.
    expectTypeOf<{ type: 'user_message'; seq: 0; step: 0; t: 0; content: '' }>().toExtend<UserMessageEvent>();
    expectTypeOf<{ gate: 'budget'; verdict: 'warn'; rule: ''; reason: ''; counters: { before: Record<string, number>; after: Record<string, number> } }>().toExtend<DecisionRecord>();
  });
});
