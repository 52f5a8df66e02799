/**
 * `--config <file>` of `replay` and `ci`: the user's own config, laid over each tape's recorded
 * config — the fields the file sets win, the rest stay as recorded (config-overlay.ts) — or, with
 * `--config-replace`, taking its place whole (fields it leaves out at their defaults). The file is
 * read and checked once, before any tape is replayed: a bad field is one usage error, not one per tape.
 */
import { resolve } from 'node:path';
import type { AgentConfigInput } from '../agent/config.js';
import { checkConfig, configDirOf, loadConfigFile, readConfigJson } from '../agent/config-file.js';
import { UsageError } from '../core/errors.js';
import type { UsersConfig } from '../replay/replay-run.js';

export interface UsersConfigOptions {
  config?: string;
  configReplace?: boolean;
}

/** The replay options `--config` (and `--config-replace`) ask for; undefined without `--config`. */
export async function usersConfig(options: UsersConfigOptions): Promise<UsersConfig | undefined> {
  const file = options.config;
  if (file === undefined) {
    if (options.configReplace === true) throw new UsageError('--config-replace needs --config <file>: the config that replaces the recorded one');
    return undefined;
  }
  const path = resolve(file);
  const configDir = configDirOf(file);
  if (options.configReplace === true) return { config: await loadConfigFile(path, true), configDir };
  const json = await readConfigJson(path, true);
  // Its fields checked on their own, as any config file is: an overlay with a bad field fails here.
  await checkConfig(json, path);
  return { configOverlay: json as AgentConfigInput, configDir };
}
