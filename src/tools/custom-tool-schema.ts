/**
 * The zod schema a custom tools module's export is checked against (custom-tools.ts), in a module
 * of its own so that zod is loaded only when a config names tool modules (start-up stays short otherwise).
 * Its fields are a tool spec's (core/tool-spec-schema.ts): the spec a tape records of the tool is
 * held to the same bounds when the tape is read.
 */
import { z } from 'zod';
import { toolDescriptionSchema, toolNameSchema, toolParametersSchema, toolTimeoutSchema } from '../core/tool-spec-schema.js';
import { MAX_CUSTOM_TOOLS } from '../core/tool-limits.js';
import type { ToolContext } from './tool.js';

type RunFunction = (args: Record<string, unknown>, ctx: ToolContext) => unknown;

const toolSchema = z.object({
  name: toolNameSchema,
  description: toolDescriptionSchema,
  parameters: toolParametersSchema,
  idempotent: z.boolean().optional(),
  mutating: z.boolean().optional(),
  timeoutMs: toolTimeoutSchema.optional(),
  run: z.custom<RunFunction>((value) => typeof value === 'function', { message: 'must be a function' }),
});

export const moduleSchema = z.array(toolSchema).max(MAX_CUSTOM_TOOLS);
