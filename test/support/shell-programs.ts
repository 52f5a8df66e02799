/**
 * PATH directories for exec_shell's programs as a machine may have them: some of the real ones
 * (links to those on this machine's PATH), and stand-ins that fail as a broken sandbox does.
 *
 *   const path = await programsDir(dir, { real: ['bash'] });            // bash, no bwrap
 *   const path = await programsDir(dir, { real: ['bash'], scripts: { bwrap: BWRAP_WITHOUT_NAMESPACES } });
 */
import { chmod, mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { findProgram } from '../../src/tools/index.js';

/** A `bwrap` that fails as bubblewrap does where user namespaces are not allowed (many containers). */
export const BWRAP_WITHOUT_NAMESPACES =
  '#!/bin/sh\necho "bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces." >&2\nexit 1\n';

/**
 * A new directory under `parent` holding `real` (links to this machine's programs; a test that
 * needs one that is not installed fails saying so) and `scripts` (executable files of that text).
 */
export async function programsDir(parent: string, programs: { real?: readonly string[]; scripts?: Record<string, string> }): Promise<string> {
  await mkdir(parent, { recursive: true });
  const dir = await mkdtemp(join(parent, 'bin-'));
  for (const name of programs.real ?? []) {
    const found = await findProgram(name, process.env['PATH']);
    if (found === undefined) throw new Error(`${name} is not installed on this machine; this test needs it`);
    await symlink(found, join(dir, name));
  }
  for (const [name, text] of Object.entries(programs.scripts ?? {})) {
    await writeFile(join(dir, name), text);
    await chmod(join(dir, name), 0o755);
  }
  return dir;
}
