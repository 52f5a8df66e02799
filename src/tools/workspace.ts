/**
 * The workspace: the one directory tools may touch. Every path a model hands a tool goes through
 * `resolveInWorkspace`, which resolves symlinks the way the OS will and refuses anything that lands
 * outside. Tools then operate on the returned real path, so what was checked is what is opened.
 *
 * Not covered: a process racing us to swap a checked directory for a symlink between the check
 * and the use (TOCTOU). The workspace belongs to the agent; this guards against the model's
 * mistakes and path tricks, not against a hostile local process.
 */
import { InvalidOptionError } from '../core/errors.js';
import { lstat, mkdir, mkdtemp, readlink, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, posix, relative, resolve, sep } from 'node:path';
import { SANDBOX_WORKSPACE } from './sandbox.js';
import { fsErrorMessage } from './tool-args.js';
import { ToolError } from './tool.js';

/** Linux gives up after 40 links (ELOOP); so do we, for links we follow by hand. */
const MAX_LINK_HOPS = 40;

/**
 * A workspace directory: `dir` (created if missing) or, with none, a fresh temp directory.
 * Returns its real path, the form `resolveInWorkspace` compares against.
 */
export async function createWorkspace(dir?: string): Promise<string> {
  if (dir === undefined) return realpath(await mkdtemp(join(tmpdir(), 'agentctl-ws-')));
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    const code = errorCode(error);
    if (code === 'EEXIST' || code === 'ENOTDIR') throw new InvalidOptionError(`the workspace ${dir} is not a directory`);
    if (code === 'EACCES' || code === 'EPERM') throw new InvalidOptionError(`the workspace ${dir} cannot be created: permission denied`);
    throw error;
  }
  return realpath(dir);
}

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
}

/**
 * Where `target` really points, for a path that may not exist yet: the realpath of its deepest
 * existing ancestor plus the missing components. A dangling symlink is followed to where it
 * points, because writing through it would create the file *there*.
 */
async function realpathLoose(target: string, hops = 0): Promise<string> {
  if (hops > MAX_LINK_HOPS) throw new ToolError('too many levels of symbolic links');
  try {
    return await realpath(target);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ELOOP') throw new ToolError('too many levels of symbolic links', { cause: error });
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
  }
  const parent = dirname(target);
  if (parent === target) return target; // the root always exists; unreachable in practice
  const realParent = await realpathLoose(parent, hops);
  const entry = await lstat(join(realParent, basename(target))).catch(() => undefined);
  if (entry?.isSymbolicLink()) {
    const link = await readlink(join(realParent, basename(target)));
    return realpathLoose(resolve(realParent, link), hops + 1);
  }
  return join(realParent, basename(target));
}

/** True when `path` is `root` or below it (both absolute and normalised). */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * The real absolute path of `path` (relative to the workspace, or absolute) if it stays inside
 * the workspace after resolving `..` and symlinks at every depth, and out of `hidden` (see
 * `hiddenEntries`); otherwise a ToolError the model can read. `path` need not exist.
 * `/workspace/…` — the workspace as exec_shell's sandbox shows it — is taken as the workspace too,
 * unless it means a place in the real workspace already.
 */
export async function resolveInWorkspace(workspace: string, path: string, hidden: readonly string[] = []): Promise<string> {
  if (path.includes('\0')) throw new ToolError('path contains a NUL character');
  const root = await realpath(workspace);
  let real = await resolveFrom(root, path);
  if (!isInside(root, real)) {
    const inSandbox = sandboxRelative(path);
    const mapped = inSandbox === undefined ? undefined : await resolveFrom(root, inSandbox);
    if (mapped === undefined || !isInside(root, mapped)) {
      throw new ToolError(`path '${path}' is outside the workspace; only paths inside the workspace are allowed`);
    }
    real = mapped;
  }
  const holder = hidden.find((entry) => isInside(entry, real));
  if (holder !== undefined) {
    throw new ToolError(`path '${path}' is in '${workspaceRelative(root, holder)}', which holds agentctl's store; tools may not reach it`);
  }
  return real;
}

/**
 * What of the workspace no tool may reach (real paths), given the store's directory: when the
 * store lies inside the workspace, the workspace's top-level entry that holds it (`.agentctl` for
 * the default `./.agentctl/store`). That entry rather than the store itself: a command that could
 * rename a directory above the store could put a store of its own making in its place, and the
 * sandbox's mask over a top-level entry can be neither renamed nor removed. An InvalidOptionError
 * when the workspace is the store or inside it: no tool could be kept out of it there.
 */
export async function hiddenEntries(workspace: string, storeDir: string | undefined): Promise<string[]> {
  if (storeDir === undefined) return [];
  // Either may not exist yet: a workspace is checked before it is made, a store is made when first written.
  const [root, store] = await Promise.all([realpathLoose(resolve(workspace)), realpathLoose(resolve(storeDir))]);
  if (isInside(store, root)) {
    throw new InvalidOptionError(`the workspace ${workspace} is inside agentctl's store ${storeDir}; give a workspace outside it`);
  }
  if (!isInside(root, store)) return [];
  const top = relative(root, store).split(sep)[0] ?? '';
  return [join(root, top)];
}

/** Where `path` really leads from `root`, or a ToolError about `path` as given. */
async function resolveFrom(root: string, path: string): Promise<string> {
  try {
    return await realpathLoose(resolve(root, path));
  } catch (error) {
    // ENAMETOOLONG, EACCES…: said about the path as given; Node's message would show the absolute one.
    if (error instanceof ToolError) throw error;
    throw new ToolError(fsErrorMessage(error, path), { cause: error });
  }
}

/** `path` relative to the sandbox's `/workspace`, when it is an absolute path there. */
function sandboxRelative(path: string): string | undefined {
  if (!posix.isAbsolute(path)) return undefined;
  const normal = posix.normalize(path);
  if (!isInside(SANDBOX_WORKSPACE, normal)) return undefined;
  return posix.relative(SANDBOX_WORKSPACE, normal) || '.';
}

/** `real` as the model should see it: relative to the workspace, `.` for the workspace itself. */
export function workspaceRelative(workspaceReal: string, real: string): string {
  const rel = relative(workspaceReal, real);
  return rel === '' ? '.' : rel.split(sep).join('/');
}
