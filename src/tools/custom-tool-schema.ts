/**
 * The zod schema a custom tools module's export is checked against (custom-tools.ts), in a module
 * of its own so that zod is loaded only when a config names tool modules (start-up stays short otherwise).
 */
import { z } from 'zod';
import type { ToolContext } from './tool.js';

type RunFunction = (args: Record<string, unknown>, ctx: ToolContext) => unknown;

const toolSchema = z.object({
  // OpenAI's rule for function names; other servers accept the same set.
  name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, "_" or "-"'),
  description: z.string().min(1),
  parameters: z.record(z.string(), z.unknown()).refine((schema) => schema.type === 'object', {
    message: 'must be a JSON Schema with "type": "object"',
  }),
  idempotent: z.boolean().optional(),
  mutating: z.boolean().optional(),
  timeoutMs: z.number().int().positive().optional(),
  run: z.custom<RunFunction>((value) => typeof value === 'function', { message: 'must be a function' }),
});

export const moduleSchema = z.array(toolSchema);
