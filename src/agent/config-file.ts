/**
 * Configs read without loading zod up front, which would weigh on every replay's start-up: a
 * complete config — a recorded one, or a file that sets every field — passes the hand-written quick
 * check (quick-config-check.ts); any other value goes to `parseConfig` (load-config.ts, with the zod
 * schema), loaded only then, which fills in defaults or words the error as the schema alone would.
 */
import { dirname, resolve } from 'node:path';
import { InvalidOptionError, NotFoundError } from '../core/errors.js';
import { readInputFile } from '../core/input-file.js';
import type { AgentConfig } from './config.js';
import { quickConfig } from './quick-config-check.js';

/** `parseConfig(value, source)` (same result, same errors), loading the schema only when needed. */
export async function checkConfig(value: unknown, source: string): Promise<AgentConfig> {
  const quick = quickConfig(value);
  if (quick !== undefined) return quick;
  const { parseConfig } = await import('./load-config.js');
  return parseConfig(value, source);
}

/** The largest config file read: real ones are a few KiB, a system prompt and tool names. */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * Read a config file. A missing file is fine when it is only the default name (`required` false):
 * then every default applies. A missing file that was asked for is exit 10; bad JSON, a bad field,
 * a path that is no regular file (a directory, a FIFO, a device) or a file larger than
 * MAX_CONFIG_BYTES is exit 2 (core/input-file.ts); a disk that fails the read, exit 12.
 */
export async function loadConfigFile(path: string, required: boolean): Promise<AgentConfig> {
  return checkConfig(await readConfigJson(path, required), path);
}

/**
 * A config file's JSON as written — only the fields it sets, for laying over another config
 * (config-overlay.ts) — with the errors of `loadConfigFile`, bad fields left to the caller to check.
 */
export async function readConfigJson(path: string, required: boolean): Promise<unknown> {
  let text: string;
  try {
    text = readInputFile(path, MAX_CONFIG_BYTES);
  } catch (error) {
    if (error instanceof NotFoundError) {
      if (!required) return {};
      throw new NotFoundError(`no config file ${path}`);
    }
    throw error;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new InvalidOptionError(`${path}: not valid JSON (${(error as Error).message})`);
  }
}

/** The directory a config file's relative paths (`toolModules`) are resolved against. */
export const configDirOf = (configPath: string): string => dirname(resolve(configPath));
