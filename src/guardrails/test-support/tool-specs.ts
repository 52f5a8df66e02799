import type { ToolSpec } from '../../core/tools.js';

/** A ToolSpec for tests: only `idempotent` and `mutating` matter to the guardrails. */
export function toolSpec(name: string, semantics: { idempotent: boolean; mutating: boolean }): ToolSpec {
  return { name, description: `${name} (test)`, parameters: { type: 'object' }, timeoutMs: 5_000, ...semantics };
}

/** The built-in examples of docs/guardrails.md §2, plus a non-idempotent one. */
export const SPECS = {
  read_file: toolSpec('read_file', { idempotent: true, mutating: false }),
  list_dir: toolSpec('list_dir', { idempotent: true, mutating: false }),
  grep_files: toolSpec('grep_files', { idempotent: true, mutating: false }),
  web_search: toolSpec('web_search', { idempotent: true, mutating: false }),
  write_file: toolSpec('write_file', { idempotent: true, mutating: true }),
  edit_file: toolSpec('edit_file', { idempotent: false, mutating: true }),
  exec_shell: toolSpec('exec_shell', { idempotent: false, mutating: true }),
  send_email: toolSpec('send_email', { idempotent: false, mutating: false }),
} as const;

/** A registry lookup over SPECS. */
export function lookupSpec(name: string): ToolSpec | undefined {
  return (SPECS as Record<string, ToolSpec>)[name];
}
