/**
 * The run's redactor on every sample of every rule and on every common shape of secret, in every
 * encoding a recorder sees text in: plain (alone, at a line start, inside a line), as a JSON string
 * (a tool call's arguments: a file's lines after escaped line breaks), as JSON text inside JSON text
 * (a streamed tool call's arguments in the raw text of a server-sent event), and after a terminal
 * colour code. What it finds in plain text is what every rule finds scanned on its own; what it leaves
 * of an encoded text is the encoding of what it leaves of the plain one — so nothing of a secret
 * survives in any of them, and nothing around it is touched.
 */
import { describe, expect, it } from 'vitest';
import { createRedactor, REDACTED, runRedactor } from './redact.js';
import { everyRuleSpans } from './test-support/every-rule.js';
import { COMMON_SECRETS, RULE_SAMPLES } from './test-support/secrets.js';

const PLAIN: Record<string, (text: string) => string> = {
  alone: (text) => text,
  'at a line start': (text) => `# keys\n${text}\nnext line`,
  'inside a line': (text) => `the key is ${text} (rotated daily)`,
};
const LINE_BOUND = new Set(['private-key-body', 'kubernetes-secret', 'kubernetes-secret-data-first', 'private key body line']);

/** Encodings of a plain text, each with the function that encodes a plain text the same way. */
const ENCODED: Record<string, (plain: string) => string> = {
  'in a tool call\'s JSON arguments': (plain) => JSON.stringify({ path: '.env', content: plain }),
  'in JSON text inside JSON text': (plain) => JSON.stringify({ arguments: JSON.stringify({ path: '.env', content: plain }) }),
  'with JSON\'s optional escapes': (plain) => JSON.stringify({ content: plain }).replace(/\//g, '\\/').replace(/-/g, '\\u002d'),
  'after a terminal colour code': (plain) => `\x1b[32m${plain}\x1b[0m`,
  'as a colour-coded line of JSON': (plain) => JSON.stringify({ output: `\x1b[1;31m${plain}\x1b[0m` }),
};

const redact = runRedactor({ env: {} });
const withPattern = runRedactor({ env: {}, patterns: ['tok3n-[0-9]+'] });

const cases = [
  ...RULE_SAMPLES.map((s, i) => [`${s.rule} #${i}`, s.rule, s] as const),
  ...Object.entries(COMMON_SECRETS).map(([kind, s]) => [kind, kind, s] as const),
];

describe('the run\'s redactor on every sample, in every encoding', () => {
  it.each(cases)('%s', (_name, kind, sample) => {
    for (const [where, wrap] of Object.entries(PLAIN)) {
      if (where === 'inside a line' && LINE_BOUND.has(kind)) continue;
      // A key block cut before its END is redacted to the end of the text (what encodes it too): tried
      // where the text ends with it, and not encoded.
      const cut = kind === 'private-key' && !sample.text.includes('-----END');
      if (cut && !wrap(sample.text).endsWith(sample.text)) continue;
      const text = wrap(sample.text);
      const spans = redact.spans(text);
      expect(spans, `${where}: what every rule finds`).toEqual(everyRuleSpans(text));
      const out = redact.text(text);
      expect(out, where).not.toContain(sample.secret);
      expect(out, where).toContain(REDACTED);
      expect(redact.text(out), `${where}: redacted again`).toBe(out);
      expect(withPattern.text(text), `${where}, with a pattern of the user's`).toBe(out);
      for (const [how, encode] of Object.entries(ENCODED)) {
        if (cut) continue;
        expect(redact.text(encode(text)), `${where}, ${how}`).toBe(encode(out));
      }
    }
  });
});

describe('every sample in one text', () => {
  // A replay hashes its requests over what the tape holds, which the recording redacted: redacting it
  // again must change nothing, however the samples stand next to each other (a match that took more
  // than its secret could hide the next sample, found once the first is redacted).
  it('is redacted whole, and redacting the result again changes nothing', () => {
    const text = cases.map(([, , sample], i) => `# sample ${i}\n${sample.text}\n`).join('\n');
    const out = redact.text(text);
    for (const [name, , sample] of cases) expect(out, name).not.toContain(sample.secret.split('\n').reduce((a, b) => (b.length > a.length ? b : a), ''));
    expect(redact.text(out)).toBe(out);
  });
});

describe('what the redactor leaves alone', () => {
  it.each([
    ['prose', 'The basic functionality works; bearer tokens and authorization: required for every request. Ask the task-runner.'],
    ['token counts', '{"max_tokens": 4096, "inputTokens": 1234567890, "reasoning_tokens": 12}'],
    ['a git commit and a sha-256 digest', 'commit 3f2a9c1d4b5e6f708192a3b4c5d6e7f809112233\nsha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'],
    ['a digest under a bare key', '{"key":"dc8684682c4ab260f68c9119daed1a4f0a4b7b05b1f0e6f0f9ad1e1f1d1c3b2a"}'],
    ['a password read from elsewhere', 'const password = process.env.DB_PASSWORD;\npassword: "${DB_PASSWORD}"\nDB_PASSWORD=changeme'],
    ['code about keys', 'const apiKey = config.apiKey;\nconst tokenizer = "cl100k_base";\nfunction getPassword(user) {}\npassword: string;'],
    ['identifiers and paths', 'src/components/ButtonGroupWithIconsAndLabels.tsx and call_9f8e7d6c5b4a39281706f5e4'],
    ['a url without a password', 'https://user@example.com:8443/path?q=1 and postgres://db:5432/app'],
    ['a uuid', 'request 123e4567-e89b-12d3-a456-426614174000 done'],
    ['a value named like a secret, of low entropy', '{"session_token": "aaaabbbb1111", "api_key": "test_key_value_1"}'],
    ['forty base64 characters of low entropy', 'AAAAAAAAAAaaaaaaaaaa1111111111AAAAAAAAAA'],
  ])('%s', (_what, text) => {
    expect(redact.text(text)).toBe(text);
    expect(redact.text(JSON.stringify({ content: text }))).toBe(JSON.stringify({ content: text }));
  });
});

describe('secret values given to the redactor', () => {
  // A secret-named environment value with a quote and a backslash: JSON text writes it escaped.
  const value = 'pa"ss\\w0rd/with-quote';
  const env = runRedactor({ env: { DEPLOY_PASSWORD: value } });

  it('are found as written, as JSON text writes them, and as JSON text inside JSON text writes them', () => {
    const plain = `login with ${value} now`;
    for (const text of [plain, JSON.stringify({ content: plain }), JSON.stringify({ arguments: JSON.stringify({ content: plain }) })]) {
      const out = env.text(text);
      expect(out).toContain(REDACTED);
      expect(out).not.toContain('w0rd');
    }
    expect(env.text(JSON.stringify({ content: plain }))).toBe(JSON.stringify({ content: `login with ${REDACTED} now` }));
  });

  it('are found in a value\'s strings too, and the value stays valid JSON where its text was JSON', () => {
    const args = JSON.stringify({ path: 'deploy.sh', content: `#!/bin/sh\nexport PW='${value}'\n` });
    const out = env({ name: 'write_file', arguments: args });
    expect(JSON.parse(out.arguments)).toEqual({ path: 'deploy.sh', content: `#!/bin/sh\nexport PW='${REDACTED}'\n` });
  });

  it('and a user\'s patterns are searched in the text as it reads, too', () => {
    const custom = createRedactor({ patterns: ['swordfish-[0-9]+'] });
    expect(custom.text('{"a":"swordfish\\u002d42"}')).toBe(`{"a":"${REDACTED}"}`);
  });
});
