/**
 * Writing a workspace file without changing any other file. A file with more than one hard link
 * shares its content with another name, which may be outside the workspace (a path check cannot
 * see that): writing it in place would change that file too. Such a file is replaced instead — the
 * new content goes to a fresh file that is renamed over it, keeping its permissions — so only the
 * workspace's name gets the new content. Other files are written in place.
 */
import { randomBytes } from 'node:crypto';
import { chmod, chown, lstat, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

export interface WriteOutcome {
  /** The file was there before. */
  existed: boolean;
  /** It was a hard link to another file, and was replaced rather than written in place. */
  unlinked: boolean;
}

/** Write `content` to the real path `real` (its directory exists); never through a hard link. */
export async function writeWorkspaceFile(real: string, content: string, signal?: AbortSignal): Promise<WriteOutcome> {
  const before = await lstat(real).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  });
  if (before === undefined || !before.isFile() || before.nlink <= 1) {
    await writeFile(real, content, { encoding: 'utf8', ...(signal === undefined ? {} : { signal }) });
    return { existed: before !== undefined, unlinked: false };
  }
  const mode = before.mode & 0o7777;
  const temp = join(dirname(real), `.agentctl-${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(temp, content, { encoding: 'utf8', flag: 'wx', mode, ...(signal === undefined ? {} : { signal }) });
    await chmod(temp, mode); // the umask may have taken bits away
    // Only root may give a file away; anyone else's replacement is theirs, as their new files are.
    await chown(temp, before.uid, before.gid).catch(() => undefined);
    await rename(temp, real);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  return { existed: true, unlinked: true };
}

/** What the tools add to their message when a hard-linked file was replaced. */
export const UNLINKED_NOTE = 'it was a hard link to another file, which keeps its content';
