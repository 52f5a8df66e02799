/**
 * The CLI's reading of `--patch` values (patch-values.ts): patches.ts, and zod with its schema, is
 * loaded only when a value names a file, so a replay without file patches never loads zod for them
 * (start-up stays short). The library's `parsePatches` (patches.ts) is the same reading with the
 * schema loaded.
 */
import type { AssistantMessage } from '../core/messages.js';
import { parsePatchValues, type ToMessage } from './patch-values.js';

/** A `--patch` value that names a file: `N=@file.json`. */
const FILE_PATCH = /^\d+=@/;

/** Parse every `--patch` value into a map from iteration to assistant message, loading the patch schema only if a value names a file. */
export async function loadPatches(values: readonly string[], cwd = process.cwd()): Promise<Map<number, AssistantMessage>> {
  if (!values.some((value) => FILE_PATCH.test(value))) return parsePatchValues(values, cwd, textOnly);
  const { patchMessage } = await import('./patches.js');
  return parsePatchValues(values, cwd, patchMessage);
}

const textOnly: ToMessage = () => {
  throw new Error('internal: a file patch reached the text-only reader');
};
