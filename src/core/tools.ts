import type { z } from 'zod';
import type { toolOutcomeStatusSchema } from './event-schema.js';
import type { toolSpecSchema } from './tool-spec-schema.js';

/**
 * Tool semantics (docs/guardrails.md §2). The guardrails read `idempotent` and `mutating`; the executor reads
 * `timeoutMs`; the provider sees `name`, `description` and `parameters`. The shape is the schema's
 * (tool-spec-schema.ts), which documents each field.
 */
export type ToolSpec = z.infer<typeof toolSpecSchema>;

/** Defaults for a tool with no spec (a registry miss): idempotent, not mutating (docs/guardrails.md §2). */
export const REGISTRY_MISS_SEMANTICS = { idempotent: true, mutating: false } as const;

/** How one tool call ended. */
export type ToolOutcomeStatus = z.infer<typeof toolOutcomeStatusSchema>;
