import { REGISTRY_MISS_SEMANTICS, type ToolSpec } from '../core/tools.js';

/** What the guardrails need to know about a tool. */
export interface ToolSemantics {
  idempotent: boolean;
  mutating: boolean;
  /** True when no spec was found and the registry-miss defaults apply. */
  registryMiss: boolean;
}

/**
 * The semantics of a tool, from its spec or, on a registry miss, the defaults of docs/guardrails.md §2
 * (idempotent, not mutating): deduplicating an unknown tool errs on the side of not repeating it,
 * and calling it non-mutating keeps it from wiping the guards' memory.
 */
export function toolSemantics(spec: ToolSpec | undefined): ToolSemantics {
  if (spec === undefined) return { ...REGISTRY_MISS_SEMANTICS, registryMiss: true };
  return { idempotent: spec.idempotent, mutating: spec.mutating, registryMiss: false };
}

/** A tool name resolved against a registry. */
export interface ResolvedTool extends ToolSemantics {
  name: string;
  /** The spec, or undefined on a registry miss. Never a copy: the registry's object, unmodified. */
  spec: ToolSpec | undefined;
}

/** Look `name` up and apply the registry-miss defaults. Does not mutate anything. */
export function resolveTool(name: string, lookup: (name: string) => ToolSpec | undefined): ResolvedTool {
  const spec = lookup(name);
  return { name, spec, ...toolSemantics(spec) };
}
