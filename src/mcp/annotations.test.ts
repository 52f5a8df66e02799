/**
 * The tool annotations as agentctl reads them: only boolean hints and a string title are kept; a
 * read-only tool is idempotent and changes nothing, any other changes things and is idempotent only
 * when it says so; a call the tape lacks may run on replay only for a tool that says it is read-only
 * and does not deny being idempotent (no annotations: not safe).
 */
import { describe, expect, it } from 'vitest';
import { annotationsOf, flagsOf, replaySafe } from './annotations.js';

describe('MCP tool annotations', () => {
  it('keeps the boolean hints and a string title, nothing else', () => {
    expect(annotationsOf({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false, title: 'Look', other: 1 })).toEqual({
      readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false, title: 'Look',
    });
    expect(annotationsOf({ readOnlyHint: 'true', idempotentHint: 1, title: 3 })).toEqual({});
    for (const value of [null, undefined, 'x', [{ readOnlyHint: true }]]) expect(annotationsOf(value)).toEqual({});
  });

  it('maps them to the guardrails\' flags', () => {
    expect(flagsOf({ readOnlyHint: true })).toEqual({ idempotent: true, mutating: false });
    expect(flagsOf({ readOnlyHint: true, idempotentHint: false })).toEqual({ idempotent: true, mutating: false });
    expect(flagsOf({ readOnlyHint: false, idempotentHint: true })).toEqual({ idempotent: true, mutating: true });
    expect(flagsOf({ idempotentHint: false })).toEqual({ idempotent: false, mutating: true });
    expect(flagsOf({})).toEqual({ idempotent: false, mutating: true });
    expect(flagsOf(undefined)).toEqual({ idempotent: false, mutating: true });
  });

  it('lets a call the tape lacks run only for a read-only tool that does not deny being idempotent', () => {
    expect(replaySafe({ readOnlyHint: true })).toBe(true);
    expect(replaySafe({ readOnlyHint: true, idempotentHint: true })).toBe(true);
    expect(replaySafe({ readOnlyHint: true, idempotentHint: false })).toBe(false);
    expect(replaySafe({ readOnlyHint: false, idempotentHint: true })).toBe(false);
    expect(replaySafe({ idempotentHint: true, destructiveHint: false })).toBe(false);
    expect(replaySafe(undefined)).toBe(false);
  });
});
