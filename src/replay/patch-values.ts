/**
 * `--patch N=text` / `--patch N=@file.json` values, read without zod: text patches need no schema,
 * and a file patch is validated by `patchMessage` (patches.ts, with its zod schema). The CLI calls
 * `loadPatches`, which loads patches.ts (and zod) only when a value names a file, so a replay without
 * file patches never loads zod for them (start-up stays short); the library's `parsePatches` is the
 * same reading with patches.ts already loaded.
 */
import { resolve } from 'node:path';
import { InvalidOptionError, NotFoundError } from '../core/errors.js';
import { readInputFile } from '../core/input-file.js';
import type { AssistantMessage } from '../core/messages.js';
import { MAX_RECORDED_BODY } from '../llm/transport/recorded-sizes.js';

/** Checks a patch file's JSON and makes it an assistant message (patches.ts: `patchMessage`). */
export type ToMessage = (value: unknown, iteration: number, label: string) => AssistantMessage;

/** Parse every `--patch` value, in order; `toMessage` checks the JSON of each file patch. */
export function parsePatchValues(values: readonly string[], cwd: string, toMessage: ToMessage): Map<number, AssistantMessage> {
  const patches = new Map<number, AssistantMessage>();
  for (const value of values) {
    const match = /^(\d+)=([\s\S]*)$/.exec(value);
    if (match === null) throw new InvalidOptionError(`--patch expects N=text or N=@file.json, got '${value}'`);
    const iteration = Number(match[1]);
    const body = match[2] ?? '';
    if (patches.has(iteration)) throw new InvalidOptionError(`--patch ${iteration} is given twice`);
    patches.set(iteration, body.startsWith('@') ? fromFile(resolve(cwd, body.slice(1)), iteration, toMessage) : { role: 'assistant', content: body });
  }
  return patches;
}

/**
 * A patch file: a model's reply, so no larger than the largest reply a tape records; read as
 * core/input-file.ts reads a file the user names (a regular file, bounded, a leading BOM dropped).
 */
function fromFile(path: string, iteration: number, toMessage: ToMessage): AssistantMessage {
  let json: unknown;
  try {
    json = JSON.parse(readInputFile(path, MAX_RECORDED_BODY));
  } catch (error) {
    const reason = error instanceof NotFoundError ? 'no such file' : (error as Error).message;
    throw new InvalidOptionError(`--patch ${iteration}=@${path}: ${reason}`);
  }
  return toMessage(json, iteration, `--patch ${iteration}=@${path}`);
}
