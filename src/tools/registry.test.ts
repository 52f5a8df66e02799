import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../core/errors.js';
import { BUILTIN_TOOL_NAMES } from './builtins.js';
import { ToolRegistry } from './registry.js';
import type { Tool } from './tool.js';

const custom: Tool = {
  name: 'send_email',
  description: 'send',
  parameters: { type: 'object' },
  idempotent: false,
  mutating: false,
  timeoutMs: 5000,
  run: () => Promise.resolve('sent'),
};

describe('ToolRegistry', () => {
  it('builds from config names, in that order, with definitions for the provider', () => {
    const registry = ToolRegistry.fromNames(['exec_shell', 'read_file']);
    expect(registry.names()).toEqual(['exec_shell', 'read_file']);
    expect(registry.list().map((tool) => tool.name)).toEqual(['exec_shell', 'read_file']);
    const definitions = registry.definitions();
    expect(definitions).toHaveLength(2);
    expect(definitions[1]).toEqual({
      type: 'function',
      function: { name: 'read_file', description: expect.any(String) as string, parameters: expect.objectContaining({ type: 'object' }) as object },
    });
  });

  it('gives specs without run, and undefined on a miss', () => {
    const registry = ToolRegistry.fromNames([...BUILTIN_TOOL_NAMES]);
    expect(registry.spec('read_file')).toEqual({
      name: 'read_file',
      description: expect.any(String) as string,
      parameters: expect.any(Object) as object,
      idempotent: true,
      mutating: false,
      timeoutMs: 10_000,
    });
    expect(registry.spec('read_file')).not.toHaveProperty('run');
    expect(registry.get('nope')).toBeUndefined();
    expect(registry.spec('nope')).toBeUndefined();
    expect(registry.has('exec_shell')).toBe(true);
  });

  it('has the docs/guardrails.md §2 semantics for the built-ins', () => {
    const registry = ToolRegistry.fromNames([...BUILTIN_TOOL_NAMES]);
    const semantics = Object.fromEntries(
      registry.list().map((tool) => [tool.name, [tool.idempotent, tool.mutating, tool.timeoutMs]]),
    );
    expect(semantics).toEqual({
      read_file: [true, false, 10_000],
      list_dir: [true, false, 10_000],
      grep_files: [true, false, 10_000],
      write_file: [true, true, 10_000],
      edit_file: [false, true, 10_000],
      exec_shell: [false, true, 60_000],
    });
  });

  it('rejects an unknown name with an InvalidOptionError listing the available tools', () => {
    const build = (): ToolRegistry => ToolRegistry.fromNames(['read_file', 'rm_rf'], { custom: [custom] });
    expect(build).toThrow(InvalidOptionError);
    expect(build).toThrow(/unknown tool 'rm_rf'/);
    try {
      build();
    } catch (error) {
      expect((error as InvalidOptionError).hint).toBe(`available tools: ${BUILTIN_TOOL_NAMES.join(', ')}, send_email`);
      expect((error as InvalidOptionError).exitCode).toBe(2);
    }
  });

  it('selects custom tools by name and applies timeout overrides', () => {
    const registry = ToolRegistry.fromNames(['send_email', 'exec_shell'], {
      custom: [custom],
      timeouts: { exec_shell: 120_000, send_email: 1000 },
    });
    expect(registry.spec('exec_shell')?.timeoutMs).toBe(120_000);
    expect(registry.spec('send_email')).toMatchObject({ idempotent: false, timeoutMs: 1000 });
    expect(custom.timeoutMs).toBe(5000);
  });

  it('refuses duplicates and custom tools that shadow a built-in', () => {
    expect(() => ToolRegistry.fromNames(['read_file', 'read_file'])).toThrow(/defined more than once/);
    expect(() => ToolRegistry.fromNames([], { custom: [{ ...custom, name: 'read_file' }] })).toThrow(/name of a built-in/);
    expect(() => ToolRegistry.fromNames([], { custom: [custom, custom] })).toThrow(InvalidOptionError);
  });
});
