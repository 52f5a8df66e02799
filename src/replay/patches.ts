/**
 * Patches: what the model says at iteration N (0-based) instead of what the tape recorded — one
 * shape for `--patch N=text` / `--patch N=@file.json` and the library's `patches` option. A file holds a whole assistant message, tool calls included:
 * `{"content": "…", "tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]}`
 * (the OpenAI shape `{"id", "type": "function", "function": {"name", "arguments": "…"}}` works too).
 *
 * This module holds the zod schema of a patch message; the CLI loads it only for a file patch
 * (load-patches.ts), the library's `parsePatches` and `patches` option use it directly.
 */
import { z } from 'zod';
import { InvalidOptionError } from '../core/errors.js';
import type { AssistantMessage, ToolCall } from '../core/messages.js';
import { parsePatchValues } from './patch-values.js';

const args = z.union([z.string(), z.record(z.string(), z.unknown())]);
const callSchema = z.union([
  z.strictObject({ id: z.string().optional(), name: z.string().min(1), arguments: args.default({}) }),
  z.strictObject({
    id: z.string().optional(),
    type: z.literal('function').optional(),
    function: z.strictObject({ name: z.string().min(1), arguments: args.default({}) }),
  }),
]);
const messageSchema = z.strictObject({
  role: z.literal('assistant').optional(),
  content: z.string().nullable().optional(),
  tool_calls: z.array(callSchema).optional(),
});

/** Parse every `--patch` value into a map from iteration to assistant message (the CLI uses `loadPatches`, load-patches.ts). */
export function parsePatches(values: readonly string[], cwd = process.cwd()): Map<number, AssistantMessage> {
  return parsePatchValues(values, cwd, patchMessage);
}

/** What a patch may be: the text the model says, or an assistant message (text and/or tool calls). */
export type PatchInput =
  | string
  | {
    role?: 'assistant';
    content?: string | null;
    /** `{name, arguments}` (arguments as an object or JSON text), or the OpenAI shape `{id, type, function: {name, arguments}}`. */
    tool_calls?: Array<{ id?: string; name: string; arguments?: string | Record<string, unknown> } | { id?: string; type?: 'function'; function: { name: string; arguments?: string | Record<string, unknown> } }>;
  };

/** The library's `patches` option: the same shapes as `--patch`, keyed by call number. */
export function patchesFromRecord(patches: Readonly<Record<number, PatchInput>>): Map<number, AssistantMessage> {
  const out = new Map<number, AssistantMessage>();
  for (const [key, value] of Object.entries(patches)) {
    if (!/^\d+$/.test(key)) throw new InvalidOptionError(`patch key '${key}' is not a call number (0, 1, 2, …)`);
    const iteration = Number(key);
    out.set(iteration, patchMessage(value, iteration, `patch ${iteration}`));
  }
  return out;
}

/** One patch, validated: text, or an assistant message in either tool-call shape. */
export function patchMessage(value: unknown, iteration: number, label: string): AssistantMessage {
  if (typeof value === 'string') return { role: 'assistant', content: value };
  const parsed = messageSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InvalidOptionError(`${label}: ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`);
  }
  const calls: ToolCall[] = (parsed.data.tool_calls ?? []).map((call, i) => {
    const fn = 'function' in call ? call.function : call;
    return {
      id: call.id ?? `patch_${iteration}_${i}`,
      type: 'function',
      function: { name: fn.name, arguments: typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments) },
    };
  });
  const message: AssistantMessage = { role: 'assistant', content: parsed.data.content ?? null };
  if (calls.length > 0) message.tool_calls = calls;
  return message;
}
