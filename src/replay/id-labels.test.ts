import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LlmRequestEvent, RunEvent, RunEventInput } from '../core/events.js';
import { BLANK_TIME, HashedSettings, IdLabels, isIdLabel } from './id-labels.js';
import { sameJson } from '../core/same-json.js';

const at = (input: RunEventInput, seq = 0): RunEvent => ({ ...input, seq, t: seq }) as RunEvent;

const call = (id: string, path = 'a.txt') => ({ id, type: 'function' as const, function: { name: 'read_file', arguments: JSON.stringify({ path }) } });

describe('IdLabels', () => {
  it('labels each distinct tool-call id by the step it first appears in and its order there, wherever the tape holds it', () => {
    const labels = new IdLabels();
    const response = labels.event(at({
      type: 'llm_response', step: 1, iteration: 1, attempt: 0, durationMs: 1,
      response: { message: { role: 'assistant', content: null, tool_calls: [call('call_zz'), call('call_aa')] }, finishReason: 'tool_calls', usage: { inputTokens: 1, outputTokens: 1 } },
    }));
    expect(response.type === 'llm_response' && response.response.message.tool_calls?.map((c) => c.id)).toEqual(['call#1.0', 'call#1.1']);
    expect(labels.event(at({ type: 'tool_call', step: 1, callId: 'call_aa', tool: 'read_file', arguments: '{}', key: 'k' }))).toMatchObject({ callId: 'call#1.1' });
    expect(labels.event(at({
      type: 'guardrail', step: 2, callId: 'call_new', gate: 'replay_control', verdict: 'skip', rule: 'duplicate_success', tool: 'read_file', key: 'k',
      counters: { before: {}, after: {} }, reason: 'duplicate of the identical call that succeeded at step 1 (call call_zz)',
    }))).toMatchObject({ callId: 'call#2.0', reason: 'duplicate of the identical call that succeeded at step 1 (call call#1.0)' });
    expect(labels.event(at({
      type: 'tool_result', step: 2, callId: 'call_new', tool: 'read_file', status: 'denied', durationMs: 0,
      output: 'Not run (duplicate): … at step 1 (call call_zz), and (call never_seen) stays',
    }))).toMatchObject({ callId: 'call#2.0', output: 'Not run (duplicate): … at step 1 (call call#1.0), and (call never_seen) stays' });
    const request = labels.event(at({
      type: 'llm_request', step: 3, iteration: 3, hash: 'h', prefix: 2, model: 'm', stream: true, tools: ['read_file'],
      append: [
        { role: 'assistant', content: null, tool_calls: [call('call_new')] },
        { role: 'tool', tool_call_id: 'call_new', content: 'see (call call_aa)' },
        { role: 'user', content: 'call_aa is just text here' },
      ],
    }));
    expect(request).toMatchObject({
      append: [
        { tool_calls: [{ id: 'call#2.0' }] },
        { tool_call_id: 'call#2.0', content: 'see (call call#1.1)' },
        { content: 'call_aa is just text here' },
      ],
    });
    const chunk = labels.event(at({
      type: 'llm_chunk', step: 3, iteration: 3, attempt: 0,
      chunk: { index: 1, offsetMs: 5, finished: false, toolCalls: [{ index: 0, id: 'call_x' }, { index: 0, arguments: '{}' }, { index: 1, id: 'call_aa' }] },
    }));
    expect(chunk).toMatchObject({ chunk: { offsetMs: 5, toolCalls: [{ index: 0, id: 'call#3.0' }, { index: 0, arguments: '{}' }, { index: 1, id: 'call#1.1' }] } });
  });

  it('counts labels per step, so more ids in one step do not shift those of the next', () => {
    const one = new IdLabels();
    const two = new IdLabels();
    expect([one.label('a', 0), one.label('b', 0), one.label('c', 1)]).toEqual(['call#0.0', 'call#0.1', 'call#1.0']);
    expect([two.label('x', 0), two.label('y', 1)]).toEqual(['call#0.0', 'call#1.0']);
    // A step seen again (it should not happen) still never hands out a label twice.
    expect(one.label('d', 0)).toBe('call#0.2');
  });

  it('returns an event without ids as it is, and never changes the event it is given', () => {
    const labels = new IdLabels();
    const state = at({ type: 'state', step: 0, from: null, to: 'RUNNING', reason: 'task received' });
    expect(labels.event(state)).toBe(state);
    const text = at({ type: 'llm_response', step: 0, iteration: 0, attempt: 0, durationMs: 1,
      response: { message: { role: 'assistant', content: 'hi' }, finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1 } } });
    expect(labels.event(text)).toBe(text);
    const result = at({ type: 'tool_result', step: 0, callId: 'c1', tool: 'read_file', status: 'ok', output: 'x', durationMs: 1 });
    const before = structuredClone(result);
    labels.event(result);
    expect(result).toEqual(before);
  });

  it('labels the ids of a transport reply, blanks its created times, and leaves opaque exchanges alone', () => {
    const labels = new IdLabels();
    const completion = {
      id: 'chatcmpl-9x', object: 'chat.completion', created: 1_732_000_000, model: 'gpt-x', system_fingerprint: 'fp_1',
      choices: [{ index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: null, tool_calls: [call('call_q')] } }],
    };
    const response = labels.event(at({
      type: 'llm_response', step: 0, iteration: 0, attempt: 0, durationMs: 1,
      response: { message: { role: 'assistant', content: null, tool_calls: [call('call_q')] }, finishReason: 'tool_calls', usage: { inputTokens: 1, outputTokens: 1 } },
      http: { status: 200, headers: { 'content-type': 'application/json', 'x-request-id': 'req_77', 'openai-processing-ms': '412' }, body: completion },
    }));
    expect(response).toMatchObject({
      http: { headers: { 'content-type': 'application/json', 'x-request-id': 'id#0.0', 'openai-processing-ms': BLANK_TIME }, body: {
        id: 'id#0.1', created: BLANK_TIME, model: 'gpt-x', system_fingerprint: 'fp_1',
        choices: [{ message: { tool_calls: [{ id: 'call#0.0', function: { name: 'read_file' } }] } }],
      } },
    });
    expect(completion.id).toBe('chatcmpl-9x');

    const raw = 'data: {"id":"chatcmpl-9y","created":1732000001,"choices":[{"delta":{"tool_calls":[{"index":0,"id":"call_r","function":{"name":"f"}}]}}]}\n\n'
      + 'data: [DONE]\n\n';
    const chunk = labels.event(at({ type: 'llm_chunk', step: 1, iteration: 1, attempt: 0, chunk: { index: 0, offsetMs: 0, finished: false }, raw }));
    expect(chunk.type === 'llm_chunk' && chunk.raw).toBe(
      'data: {"id":"id#1.0","created":"(time)","choices":[{"delta":{"tool_calls":[{"index":0,"id":"call#1.0","function":{"name":"f"}}]}}]}\n\ndata: [DONE]\n\n',
    );
    const keepAlive = at({ type: 'llm_chunk', step: 1, iteration: 1, attempt: 0, chunk: { index: 1, offsetMs: 0, finished: false }, raw: ': ping\n\n' });
    expect(labels.event(keepAlive)).toBe(keepAlive);

    // The Responses API's names for the same things.
    const item = labels.event(at({
      type: 'llm_response', step: 2, iteration: 2, attempt: 0, durationMs: 1,
      response: { message: { role: 'assistant', content: null }, finishReason: 'tool_calls', usage: { inputTokens: 1, outputTokens: 1 } },
      http: { status: 200, headers: {}, body: { id: 'resp_1', created_at: 5, output: [{ type: 'function_call', id: 'fc_1', call_id: 'call_s', name: 'f' }] } },
    }));
    expect(item).toMatchObject({ http: { body: { id: 'id#2.0', created_at: BLANK_TIME, output: [{ id: 'id#2.1', call_id: 'call#2.0' }] } } });

    const exchange = at({
      type: 'http_exchange', step: 0, method: 'GET', path: '/models', hash: 'h', durationMs: 1,
      response: { status: 200, headers: {}, body: { data: [{ id: 'gpt-x', created: 1 }] } },
    });
    expect(labels.event(exchange)).toBe(exchange);
  });

  it('tells a label from other text', () => {
    expect(['call#0.0', 'id#12.3'].every(isIdLabel)).toBe(true);
    expect(['call_0', 'call#0', 'x call#0.0', 3].some(isIdLabel)).toBe(false);
  });
});

describe('IdLabels: the tape kept, the replay translated into it', () => {
  it('keeps the tape side as it is, and names a replay id after the tape id at its position', () => {
    const tape = IdLabels.keepingIds();
    const replay = IdLabels.translatingInto(tape);
    const result = at({ type: 'tool_result', step: 1, callId: 'call_t1', tool: 'read_file', status: 'ok', output: 'see (call call_t0)', durationMs: 1 });
    expect([tape.label('call_t0', 0), tape.label('call_t1', 1), tape.label('call_t2', 1)]).toEqual(['call_t0', 'call_t1', 'call_t2']);
    expect(tape.event(result)).toBe(result);
    expect([replay.label('mine_0', 0), replay.label('mine_1', 1), replay.label('mine_2', 1), replay.label('mine_3', 1)])
      .toEqual(['call_t0', 'call_t1', 'call_t2', 'call#1.2']);
    // A quoted id this side never issued is marked on either side, so it is not the tape's call of that name.
    expect(replay.event(at({ type: 'tool_result', step: 1, callId: 'mine_1', tool: 'read_file', status: 'ok', output: 'see (call call_t0) and (call mine_0)', durationMs: 1 })))
      .toMatchObject({ callId: 'call_t1', output: 'see (call ?call_t0) and (call call_t0)' });
    expect(tape.event(at({ type: 'tool_result', step: 1, callId: 'call_t1', tool: 'read_file', status: 'ok', output: '(call never)', durationMs: 1 })))
      .toMatchObject({ output: '(call ?never)' });
  });

  it('never confuses a tape id that looks like a position name, or a mark, with one', () => {
    const tc = (callId: string, output = 'ok'): RunEvent => at({ type: 'tool_result', step: 0, callId, tool: 'read_file', status: 'ok', output, durationMs: 1 });
    const tape = IdLabels.keepingIds();
    const replay = IdLabels.translatingInto(tape);
    // The tape has one call, named like the position name the replay's second new id gets.
    const kept = [tc('call#0.1'), tc('call#0.1')].map((e) => tape.event(e));
    const replayed = [tc('x'), tc('y')].map((e) => replay.event(e));
    expect(kept.map((e) => e.type === 'tool_result' && e.callId)).toEqual(['!call#0.1', '!call#0.1']);
    expect(replayed.map((e) => e.type === 'tool_result' && e.callId)).toEqual(['!call#0.1', 'call#0.1']);
    expect(sameJson(kept[0], replayed[0])).toBe(true);
    expect(sameJson(kept[1], replayed[1])).toBe(false);
    // An id that looks like a mark is kept apart from the mark of a quote of an id never seen.
    expect(tape.event(tc('?ghost', 'see (call ghost)'))).toMatchObject({ callId: '!?ghost', output: 'see (call ?ghost)' });
    expect([tape.label('!bang', 1), tape.label('bang', 1)]).toEqual(['!!bang', 'bang']);
  });

  /**
   * Two runs' events, step by step: each step's events on both sides (ids from small pools, so they
   * repeat, swap and go missing), compared pairwise. Positional labels on both sides and the tape's
   * ids with the replay translated into them must find the same pairs equal.
   */
  const ids = fc.constantFrom('a', 'b', 'c', 'd');
  const eventAt = (step: number): fc.Arbitrary<RunEvent> =>
    fc.oneof(
      fc.record({ callId: ids, tool: fc.constantFrom('read_file', 'list_dir') }).map(({ callId, tool }) =>
        at({ type: 'tool_call', step, callId, tool, arguments: '{}', key: 'k' })),
      fc.record({ callId: ids, quoted: fc.option(ids, { nil: undefined }) }).map(({ callId, quoted }) =>
        at({ type: 'tool_result', step, callId, tool: 'read_file', status: 'ok', durationMs: 1, output: quoted === undefined ? 'ok' : `dup of (call ${quoted})` })),
      fc.record({ callId: fc.option(ids, { nil: undefined }), quoted: ids }).map(({ callId, quoted }) =>
        at({ type: 'guardrail', step, gate: 'replay_control', verdict: 'skip', rule: 'duplicate_success', tool: 'read_file', key: 'k',
          counters: { before: {}, after: {} }, reason: `seen at (call ${quoted})`, ...(callId === undefined ? {} : { callId }) })),
      fc.array(ids, { minLength: 1, maxLength: 3 }).map((calls) =>
        at({ type: 'llm_response', step, iteration: step, attempt: 0, durationMs: 1,
          response: { message: { role: 'assistant', content: null, tool_calls: calls.map((id) => call(id)) }, finishReason: 'tool_calls', usage: { inputTokens: 1, outputTokens: 1 } } })),
    );
  const steps = fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 4 }).chain((sizes) =>
    fc.tuple(...sizes.map((size, step) => {
      const side = fc.array(eventAt(step), { minLength: size, maxLength: size });
      return fc.tuple(side, side);
    })));

  it('finds the same pairs of events equal as positional labels do', () => {
    fc.assert(
      fc.property(steps, (pairs) => {
        const [posTape, posReplay] = [new IdLabels(), new IdLabels()];
        const keep = IdLabels.keepingIds();
        const translate = IdLabels.translatingInto(keep);
        for (const [tapeStep, replayStep] of pairs) {
          // The comparator labels a tape step whole before the replay's events of that step.
          const kept = tapeStep.map((e) => keep.event(e));
          const positional = tapeStep.map((e) => posTape.event(e));
          replayStep.forEach((event, i) => {
            const byPosition = sameJson(positional[i], posReplay.event(event));
            const byTape = sameJson(kept[i], translate.event(event));
            expect(byTape).toBe(byPosition);
          });
        }
      }),
      { numRuns: 400 },
    );
  });
});

describe('HashedSettings', () => {
  const request = (hash: string, over: Partial<LlmRequestEvent> = {}): LlmRequestEvent => ({
    type: 'llm_request', seq: 0, step: 0, t: 0, iteration: 0, hash, prefix: 0, append: [], model: 'm', stream: false, tools: ['read_file'], ...over,
  });

  it('lets requests that differ only in ids match once textually equal ones had equal hashes, and never after they had not', () => {
    const settings = new HashedSettings();
    expect(settings.agree(request('a'), request('b'))).toBe(false);
    settings.note(request('h0'), request('h0'));
    expect(settings.agree(request('a'), request('b'))).toBe(true);
    // Other visible settings: no evidence for those.
    expect(settings.agree(request('a', { tools: ['write_file'] }), request('b', { tools: ['write_file'] }))).toBe(false);
    expect(settings.agree(request('a'), request('b', { params: { seed: 1 } }))).toBe(false);
    // The same conversation with another hash: the unseen settings differ, from here on.
    settings.note(request('h1'), request('h2'));
    settings.note(request('h3'), request('h3'));
    expect(settings.agree(request('a'), request('b'))).toBe(false);
  });

  it('keeps each set of settings apart, whatever order the requests come in, and reads params by content', () => {
    const settings = new HashedSettings();
    const seeded = { params: { seed: 1, top_p: 0.5 } };
    settings.note(request('h0', seeded), request('h0', seeded));
    // The settings the last note was about are not the only ones remembered.
    settings.note(request('h1', { tools: ['write_file'] }), request('h2', { tools: ['write_file'] }));
    expect(settings.agree(request('a', { params: { top_p: 0.5, seed: 1 } }), request('b', seeded))).toBe(true);
    expect(settings.agree(request('a', { tools: ['write_file'] }), request('b', { tools: ['write_file'] }))).toBe(false);
    expect(settings.agree(request('a', { params: { seed: 2, top_p: 0.5 } }), request('b', { params: { seed: 2, top_p: 0.5 } }))).toBe(false);
    expect(settings.agree(request('a', seeded), request('b', { ...seeded, endpoint: 'responses' }))).toBe(false);
  });
});
