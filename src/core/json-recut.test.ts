import { describe, expect, it } from 'vitest';
import { jsonLeaves, recutJson, recutLeaves, withLeaves } from './json-recut.js';
import { createRedactor, REDACTED } from './redact.js';

const redact = createRedactor({ secrets: ['hunter2-is-my-password'] });
const utf8 = (text: string): number[] => [...new TextEncoder().encode(text)];

/** Several values (the data of a stream's events) recut together; the values after. */
function recutAll(values: readonly unknown[], scope = ''): unknown[] {
  const leaves = values.map((value) => jsonLeaves(value, scope));
  recutLeaves(leaves.flat(), redact);
  return values.map((value, i) => withLeaves(value, leaves[i] ?? []));
}

describe('recutJson', () => {
  it('cuts a secret spelled across logprob tokens where the tokens were cut, and drops the bytes of each token it changed', () => {
    const tokens = ['the id ', 'AKIAIOSF', 'ODNN7EXAMPLE', ' ok'];
    const entry = (token: string) => ({ token, logprob: -1, bytes: utf8(token), top_logprobs: [{ token, logprob: -1, bytes: utf8(token) }, { token: 'Z', logprob: -4, bytes: [90] }] });
    const body = { choices: [{ index: 0, message: { role: 'assistant', content: tokens.join('') }, logprobs: { content: tokens.map(entry) } }] };
    const out = recutJson(body, redact) as typeof body;
    const entries = out.choices[0]?.logprobs.content ?? [];
    expect(entries.map((e) => e.token)).toEqual(['the id ', REDACTED, '', ' ok']);
    expect(entries.map((e) => e.bytes)).toEqual([utf8('the id '), null, null, utf8(' ok')]);
    // The k-th alternatives are one text too (the chosen token first), though interleaved with the others.
    expect(entries.map((e) => e.top_logprobs[0]?.token)).toEqual(['the id ', REDACTED, '', ' ok']);
    expect(entries.map((e) => e.top_logprobs[1])).toEqual(tokens.map(() => ({ token: 'Z', logprob: -4, bytes: [90] })));
    expect(out.choices[0]?.message.content).toBe(`the id ${REDACTED} ok`);
    // The body given is not changed; a body without secrets is returned as it is.
    expect(body.choices[0]?.logprobs.content[1]?.token).toBe('AKIAIOSF');
    const clean = { choices: [{ index: 0, logprobs: { content: [entry('a'), entry('b')] } }] };
    expect(recutJson(clean, redact)).toBe(clean);
  });

  it('keeps the chosen tokens\' mark where the interleaved alternatives spell another key-shaped text over the secret', () => {
    // Read in turn, the alternatives spell "…  zqAIza…Qko zq…": 40 characters of base64 (a bare AWS
    // secret's shape) that start in the alternative " zq", not in the token where the Google key starts.
    const rules = createRedactor();
    const tokens = ['nXf{F ', 'AIzai3fjXgLbkYipgUWHeqyEhTOUqZF7byoQko', 'D end'];
    const entry = (token: string) => ({ token, bytes: utf8(token), top_logprobs: [{ token, bytes: utf8(token) }, { token: ' zq', bytes: utf8(' zq') }] });
    const body = { choices: [{ index: 0, logprobs: { content: tokens.map(entry) } }] };
    const out = recutJson(body, rules) as typeof body;
    const entries = out.choices[0]?.logprobs.content ?? [];
    expect(entries.map((e) => e.token)).toEqual(['nXf{F ', REDACTED, ' end']);
    expect(entries.map((e) => e.top_logprobs[0]?.token)).toEqual(['nXf{F ', REDACTED, ' end']);
    expect(entries.map((e) => e.top_logprobs[0]?.bytes)).toEqual([utf8('nXf{F '), null, null]);
  });

  it('groups a Responses API body\'s tokens by their place, however many an output has', () => {
    const body = {
      output: [{ type: 'message', content: [{ type: 'output_text', text: 'x', logprobs: [{ token: 'hunter2-', bytes: utf8('hunter2-') }, { token: 'is-my-password', bytes: utf8('is-my-password') }] }] }],
    };
    const out = recutJson(body, redact) as typeof body;
    expect(out.output[0]?.content[0]?.logprobs).toEqual([{ token: REDACTED, bytes: null }, { token: '', bytes: null }]);
  });

  it('leaves strings and other values alone', () => {
    expect(recutJson('hunter2-is-my-password', redact)).toBe('hunter2-is-my-password');
    expect(recutJson(null, redact)).toBeNull();
  });
});

describe('recutLeaves across values (a stream\'s events)', () => {
  it('keeps the text of each choice apart when the choices carry no index (their place in the array tells them apart)', () => {
    const events = [['hunter2-', 'AKIAIOSF'], ['is-my-', 'ODNN7EXAMPLE'], ['password', ' more']].map(([a, b]) => ({
      choices: [{ delta: { reasoning_content: a } }, { delta: { reasoning_content: b } }],
    }));
    const out = recutAll(events) as typeof events;
    expect(out.map((e) => e.choices.map((c) => c.delta.reasoning_content))).toEqual([[REDACTED, REDACTED], ['', ''], ['', ' more']]);
  });

  it('keeps tool calls apart by their own index, wherever they sit in the array', () => {
    const call = (index: number, args: string) => ({ index, function: { arguments: args } });
    const events = [
      { choices: [{ index: 0, delta: { tool_calls: [call(0, '{"a":"hunter2-is'), call(1, '{"b":"-my-password"}')] } }] },
      { choices: [{ index: 0, delta: { tool_calls: [call(1, '{"c":1}'), call(0, '-my-password"}')] } }] },
    ];
    const out = recutAll(events) as typeof events;
    const args = out.map((e) => e.choices[0]?.delta.tool_calls.map((c) => c.function.arguments));
    expect(args).toEqual([[`{"a":"${REDACTED}`, '{"b":"-my-password"}'], ['{"c":1}', '"}']]);
  });

  it('groups within a scope: the same path in another scope is another text', () => {
    const a = jsonLeaves({ delta: 'hunter2-is-' }, 'reasoning');
    const b = jsonLeaves({ delta: 'my-password' }, 'output');
    recutLeaves([...a, ...b], redact);
    expect([...a, ...b].map((leaf) => leaf.next)).toEqual(['hunter2-is-', 'my-password']);
  });

  it('does not mark a secret twice where a longer one continues over it', () => {
    // The group's secret starts in the first piece; the second piece holds another secret of its own, inside the first's span.
    const secrets = createRedactor({ secrets: ['hunter2-is-my-password', 'is-my-password'] });
    const leaves = [...jsonLeaves({ t: 'hunter2-' }), ...jsonLeaves({ t: 'is-my-password!' })];
    recutLeaves(leaves, secrets);
    expect(leaves.map((leaf) => leaf.next)).toEqual([REDACTED, '!']);
  });

  it('marks a secret where it starts in a reading that does not hold the start of a longer one over it', () => {
    // Choices without an index: the first choice's text reads "ok hunter2-is-my-password" (the
    // secret starts in the second event's string); all choices read in turn, "ok xx-hunter2-…",
    // hold a longer secret that starts in the second choice's "xx-".
    const secrets = createRedactor({ secrets: ['xx-hunter2-is-my-password', 'hunter2-is-my-password'] });
    const leaves = [...jsonLeaves({ c: [{ t: 'ok ' }, { t: 'xx-' }] }), ...jsonLeaves({ c: [{ t: 'hunter2-is-my-password' }] })];
    recutLeaves(leaves, secrets);
    expect(leaves.map((leaf) => leaf.next)).toEqual(['ok ', REDACTED, REDACTED]);
  });
});
