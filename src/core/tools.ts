import type { z } from 'zod';
import type { toolOutcomeStatusSchema } from './event-schema.js';

/**
 * Tool semantics (docs/guardrails.md §2). The guardrails read `idempotent` and `mutating`; the executor reads
 * `timeoutMs`; the provider sees `name`, `description` and `parameters`.
 */
export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
  /** Same arguments → same effect: a second identical successful call is wasteful. */
  idempotent: boolean;
  /** Its success changes the workspace (resets identical-call and dedup memory). */
  mutating: boolean;
  /** Per-call time limit in milliseconds. */
  timeoutMs: number;
}

/** Defaults for a tool with no spec (a registry miss): idempotent, not mutating (docs/guardrails.md §2). */
export const REGISTRY_MISS_SEMANTICS = { idempotent: true, mutating: false } as const;

/** How one tool call ended. */
export type ToolOutcomeStatus = z.infer<typeof toolOutcomeStatusSchema>;
