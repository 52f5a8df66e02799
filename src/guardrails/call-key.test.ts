import { describe, expect, it } from 'vitest';
import type { ToolCall } from '../core/messages.js';
import { callKey, parseCallArguments, parseToolCall, rawCallKey } from './call-key.js';

describe('callKey (docs/guardrails.md §1)', () => {
  it('is pinned: sha-256 hex of tool + ":" + canonical JSON (keys are stored on tapes)', () => {
    // Digests computed independently with `printf '%s' '<text>' | sha256sum`.
    expect(callKey('read_file', { path: 'src/main.ts' })).toBe('8516f18419712384118ef383df30753738df05d0c294a2aa246eb531be9b5a05');
    expect(callKey('grep_files', { regex: false, pattern: 'TODO', path: 'src' })).toBe(
      '77d7a0c6db5ed53f59477a4f53ee625d3b8129964c75a0fbb909f6a19cbcda42',
    );
    expect(callKey('list_dir', {})).toBe('167ca2e475b32e896258d9de3fe1cf490d6e7fbc2ce704d5186d32949ea59290');
  });

  it('ignores key order and separates tools and values', () => {
    expect(callKey('read_file', { path: 'a', offset: 0 })).toBe(callKey('read_file', { offset: 0, path: 'a' }));
    expect(callKey('read_file', { path: 'a' })).not.toBe(callKey('list_dir', { path: 'a' }));
    expect(callKey('read_file', { path: 'a' })).not.toBe(callKey('read_file', { path: 'b' }));
    expect(callKey('read_file', { offset: 1 })).not.toBe(callKey('read_file', { offset: '1' }));
  });
});

describe('parseCallArguments (docs/guardrails.md §1)', () => {
  it('parses a JSON object and keys the parsed value', () => {
    const parsed = parseCallArguments('read_file', '{ "path": "src/main.ts" }');
    expect(parsed).toEqual({ ok: true, args: { path: 'src/main.ts' }, key: callKey('read_file', { path: 'src/main.ts' }) });
  });

  it('gives the same key for differently formatted and ordered argument text', () => {
    const a = parseCallArguments('grep_files', '{"pattern":"x","path":"src"}');
    const b = parseCallArguments('grep_files', '{\n  "path": "src",\n  "pattern": "x"\n}');
    expect(a.key).toBe(b.key);
  });

  it('fails invalid JSON with a tool error, keyed over the raw text', () => {
    const raw = '{"command": "npm test"';
    const parsed = parseCallArguments('exec_shell', raw);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.error).toMatch(/^arguments are not valid JSON: /);
    expect(parsed.rule).toBe('invalid_json');
    expect(parsed.raw).toBe(raw);
    expect(parsed.key).toBe(rawCallKey('exec_shell', raw));
    // Pinned: sha-256 of `exec_shell:` + the raw text.
    expect(parsed.key).toBe('5d9925aef5d88f3ca29a34e89aad8bf382adf066222f0770706e9dc4ac755e95');
  });

  it('refuses JSON that is not an object', () => {
    for (const [raw, kind] of [['[1]', 'an array'], ['"x"', 'a string'], ['null', 'null'], ['3', 'a number']] as const) {
      const parsed = parseCallArguments('t', raw);
      expect(parsed.ok).toBe(false);
      if (parsed.ok) continue;
      expect(parsed.rule).toBe('non_object_arguments');
      expect(parsed.error).toBe(`arguments must be a JSON object, got ${kind}`);
    }
  });

  it('reads empty arguments text as {}', () => {
    expect(parseCallArguments('list_dir', '')).toEqual({ ok: true, args: {}, key: callKey('list_dir', {}) });
    expect(parseCallArguments('list_dir', '  \n').ok).toBe(true);
  });

  it('parseToolCall reads name and arguments from an OpenAI tool call', () => {
    const call: ToolCall = { id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } };
    expect(parseToolCall(call)).toEqual(parseCallArguments('read_file', '{"path":"a"}'));
  });
});
