import { resolve } from 'node:path';
import type { OpenStoreOptions, TapeStore } from '../tape/tape-store.js';

/** Where the store lives: `--store`, else `AGENTCTL_STORE`, else `./.agentctl/store`. */
export function storeDir(option: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const dir = option ?? env['AGENTCTL_STORE'] ?? '.agentctl/store';
  return resolve(dir);
}

/**
 * Open the store at `dir`. LevelDB is imported here, when a command first needs the store, so that
 * start-up and commands that read only tape files (a `--no-save` replay, `view`, `diff` of files)
 * never load it.
 */
export async function openStore(dir: string, options: OpenStoreOptions): Promise<TapeStore> {
  const { TapeStore } = await import('../tape/tape-store.js');
  return TapeStore.open(dir, options);
}
