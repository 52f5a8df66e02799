import { resolve } from 'node:path';

/** Where the store lives: `--store`, else `AGENTCTL_STORE`, else `./.agentctl/store`. */
export function storeDir(option: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const dir = option ?? env['AGENTCTL_STORE'] ?? '.agentctl/store';
  return resolve(dir);
}
