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

const PEM = [
  '-----BEGIN RSA PRIVATE KEY-----',
  'MIIEowIBAAKCAQEA1234567890abcdefghijklmnopqrstuvwxyzABCDEFGHIJKL',
  'MNOPQRSTUVWXYZ0123456789abcdefghijklmnopqrstuvwxyz+/ABCDEFGHIJKL',
  '-----END RSA PRIVATE KEY-----',
].join('\n');

// Every rule on its samples, in every context: secret-rules.test.ts.
describe('the built-in secret rules', () => {
  const redact = createRedactor();

  it('redacts a PEM private key block whole, and one cut off before its end', () => {
    expect(redact.text(`key:\n${PEM}\nafter`)).toBe(`key:\n${REDACTED}\nafter`);
    const cut = PEM.slice(0, PEM.indexOf('-----END'));
    expect(redact.text(`head ${cut}`)).toBe(`head ${REDACTED}`);
  });

  it('redacts an AWS secret key next to its key id, and one named as such, keeping the words around it', () => {
    const secret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
    expect(redact.text(`AKIAIOSFODNN7EXAMPLE:${secret}`)).toBe(`${REDACTED}:${REDACTED}`);
    expect(redact.text(`aws_secret_access_key = ${secret}`)).toBe(`aws_secret_access_key = ${REDACTED}`);
    expect(redact.text(`{"SecretAccessKey": "${secret}"}`)).toBe(`{"SecretAccessKey": "${REDACTED}"}`);
    // Forty base64 characters of every kind standing alone are one; forty hex digits (a commit) are not.
    expect(redact.text(`key ${secret}`)).toBe(`key ${REDACTED}`);
    expect(redact.text('commit 3f2a9c1d4b5e6f708192a3b4c5d6e7f809112233')).toBe('commit 3f2a9c1d4b5e6f708192a3b4c5d6e7f809112233');
  });

  it('replaces a secret that contains another whole, whichever is found first', () => {
    const inner = 'sk-inner-0123456789';
    const outer = `token-${inner}-suffix`;
    for (const secrets of [[inner, outer], [outer, inner]]) {
      expect(createRedactor({ secrets }).text(`a ${outer} b ${inner} c`)).toBe(`a ${REDACTED} b ${REDACTED} c`);
    }
  });

  it('leaves ordinary text alone and shares unchanged parts of a value', () => {
    const value = { a: { b: 'nothing secret', c: [1, 'plain'] }, d: 'ghp_1234567890abcdefghijklmnopqrstuvwxyzAB' };
    const out = redact(value);
    expect(out.a).toBe(value.a);
    expect(out.d).toBe(REDACTED);
    expect(redact('The port is 8080; sketch-me is fine; basically fine.')).toBe('The port is 8080; sketch-me is fine; basically fine.');
  });

  it('finds a user pattern\'s matches, and ignores one that matches the empty string', () => {
    const custom = createRedactor({ patterns: ['secret-[0-9]+', 'x*'] });
    expect(custom.text('a secret-42 b')).toBe(`a ${REDACTED} b`);
  });
});

describe('a key sent base64-encoded', () => {
  it('is redacted whole, alone or inside JSON, for the providers whose prefix encodes to a fixed text', () => {
    const redact = createRedactor();
    const keys = ['sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD', 'sk-svcacct-abcdefghijklmnopqrstuvwxyz0123456789', 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789',
      'ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz', 'AKIAIOSFODNN7EXAMPLE'];
    for (const key of keys) {
      const encoded = Buffer.from(key).toString('base64');
      expect(redact.text(encoded), key).toBe(REDACTED);
      expect(redact({ observations: [encoded, 'kept'] }), key).toEqual({ observations: [REDACTED, 'kept'] });
    }
    // A blob that merely holds those letters later on is not a key.
    expect(redact.text('aGVsbG8gd29ybGQgZ2hwX2hlbGxvIHdvcmxk')).toBe('aGVsbG8gd29ybGQgZ2hwX2hlbGxvIHdvcmxk');
  });
});

describe('keepsHex: a redactor that cannot change a digest', () => {
  const hex = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), maxLength: 200 });
  /** Hex text that starts like the rules whose prefixes are hex letters (AWS key ids start ACCA). */
  const nearMisses = fc.tuple(fc.constantFrom('', 'acca', 'abia', 'a3t', 'acca2345677777777777777', '4b1d'), hex).map(([a, b]) => a + b);

  it('holds for the built-in rules and for secrets with a character outside [0-9a-f], and then no hex text is changed', () => {
    for (const redact of [createRedactor(), createRedactor({ secrets: ['hunter2hunter2', 'ABCDEF0123456789'] })]) {
      expect(redact.keepsHex).toBe(true);
      fc.assert(fc.property(fc.oneof(hex, nearMisses), (text) => {
        expect(redact.text(text)).toBe(text);
      }), { numRuns: 2000 });
    }
  });

  it('does not hold with a pattern of the user\'s, or a secret of hex digits, which can match within a digest', () => {
    expect(createRedactor({ patterns: ['zzz'] }).keepsHex).toBe(false);
    const hexSecret = createRedactor({ secrets: ['0123abcd0123abcd'] });
    expect(hexSecret.keepsHex).toBe(false);
    expect(hexSecret.text('ff0123abcd0123abcdff')).not.toBe('ff0123abcd0123abcdff');
    expect(createRedactor({ patterns: ['\\d{6}'] }).text('ab123456cd')).not.toBe('ab123456cd');
  });
});
