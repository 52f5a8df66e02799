/** Real temporary directories for tool tests, removed after each test. */
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

/** Returns a function that makes a fresh real temp dir; all of them are deleted after each test. */
export function useTempDirs(): (prefix?: string) => Promise<string> {
  const made: string[] = [];
  afterEach(async () => {
    await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });
  return async (prefix = 'agentctl-tools-test-') => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)));
    made.push(dir);
    return dir;
  };
}
