import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRedactor, REDACTED, secretsFromEnv } from './redact.js';

describe('createRedactor', () => {
  it('redacts OpenAI-style keys and bearer tokens anywhere in a value', () => {
    const redact = createRedactor();
    const value = {
      a: 'key is sk-proj-abcdefghijklmnop1234 ok',
      b: ['Authorization: Bearer eyJhbGciOi.JIUzI1NiJ9.x', { c: 'nothing here' }],
      n: 3,
      z: null,
    };
    expect(redact(value)).toEqual({
      a: `key is ${REDACTED} ok`,
      b: [`Authorization: ${REDACTED}`, { c: 'nothing here' }],
      n: 3,
      z: null,
    });
  });

  it('redacts exact secret values and extra patterns, and leaves the input unchanged', () => {
    const input = { text: 'token=hunter2hunter2 and code 123-45-6789' };
    const redact = createRedactor({ secrets: ['hunter2hunter2', 'short'], patterns: ['\\d{3}-\\d{2}-\\d{4}'] });
    expect(redact(input)).toEqual({ text: `token=${REDACTED} and code ${REDACTED}` });
    expect(input.text).toContain('hunter2hunter2');
  });

  it('takes secrets from secret-named environment variables only', () => {
    expect(secretsFromEnv({ OPENAI_API_KEY: 'abcdefgh1234', GITHUB_TOKEN: 'ghp_123456789', HOME: '/home/someone-long' })).toEqual([
      'abcdefgh1234',
      'ghp_123456789',
    ]);
  });

  it('never lets a configured secret through, wherever it is embedded', () => {
    fc.assert(
      // Secrets drawn from [a-z0-9] cannot overlap the marker's own characters.
      fc.property(fc.stringMatching(/^[a-z0-9]{8,30}$/), fc.string(), fc.string(), (secret, before, after) => {
        const redact = createRedactor({ secrets: [secret] });
        expect(redact({ v: [before + secret + after] }).v[0]).not.toContain(secret);
      }),
    );
  });

  it('is idempotent: redacting redacted text changes nothing', () => {
    const redact = createRedactor({ secrets: ['sk-live-0123456789'] });
    const once = redact('a sk-live-0123456789 b Bearer abcdefghijkl');
    expect(redact(once)).toBe(once);
  });
});
