import { describe, expect, it } from 'vitest';
import type { ToolSpec } from '../core/tools.js';
import { resolveTool, toolSemantics } from './tool-semantics.js';

const spec = (name: string, idempotent: boolean, mutating: boolean): ToolSpec => ({
  name, description: name, parameters: { type: 'object' }, idempotent, mutating, timeoutMs: 1000,
});

describe('tool semantics (docs/guardrails.md §2)', () => {
  it('reads idempotent and mutating from the spec', () => {
    expect(toolSemantics(spec('write_file', true, true))).toEqual({ idempotent: true, mutating: true, registryMiss: false });
    expect(toolSemantics(spec('send_email', false, false))).toEqual({ idempotent: false, mutating: false, registryMiss: false });
  });

  it('uses the registry-miss defaults (idempotent, not mutating) when there is no spec', () => {
    expect(toolSemantics(undefined)).toEqual({ idempotent: true, mutating: false, registryMiss: true });
  });

  it('resolves through a lookup without copying or changing the spec', () => {
    const readFile = Object.freeze(spec('read_file', true, false));
    const registry = new Map([['read_file', readFile]]);
    const found = resolveTool('read_file', (n) => registry.get(n));
    expect(found.spec).toBe(readFile);
    expect(found).toMatchObject({ name: 'read_file', idempotent: true, mutating: false, registryMiss: false });
    const missing = resolveTool('nope', (n) => registry.get(n));
    expect(missing).toEqual({ name: 'nope', spec: undefined, idempotent: true, mutating: false, registryMiss: true });
  });
});
