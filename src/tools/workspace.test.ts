import { mkdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join, posix, relative } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from './test-support/temp-dirs.js';
import { ToolError } from './tool.js';
import { InvalidOptionError } from '../core/errors.js';
import { createWorkspace, hiddenEntries, isInside, resolveInWorkspace, workspaceRelative } from './workspace.js';

const tempDir = useTempDirs();

/** A workspace with an `outside` sibling holding a secret, and symlinks that lead out of it. */
async function fixture(): Promise<{ ws: string; outside: string }> {
  const root = await tempDir();
  const ws = join(root, 'ws');
  const outside = join(root, 'outside');
  await mkdir(join(ws, 'src'), { recursive: true });
  await mkdir(outside);
  await writeFile(join(outside, 'secret.txt'), 'secret');
  await writeFile(join(ws, 'src', 'a.txt'), 'a');
  await symlink(outside, join(ws, 'out-dir'));
  await symlink(join(outside, 'secret.txt'), join(ws, 'out-file'));
  await symlink(join(outside, 'missing.txt'), join(ws, 'dangling-out'));
  await symlink('src', join(ws, 'src-link'));
  await symlink('src/new.txt', join(ws, 'dangling-in'));
  return { ws, outside };
}

describe('createWorkspace', () => {
  it('creates a missing directory and returns its real path', async () => {
    const root = await tempDir();
    const ws = await createWorkspace(join(root, 'a', 'b'));
    expect(ws).toBe(join(root, 'a', 'b'));
    expect((await stat(ws)).isDirectory()).toBe(true);
  });

  it('makes a fresh temp directory when given none', async () => {
    const first = await createWorkspace();
    const second = await createWorkspace();
    expect(first).not.toBe(second);
    expect((await stat(first)).isDirectory()).toBe(true);
    await Promise.all([rm(first, { recursive: true }), rm(second, { recursive: true })]);
  });
});

describe('resolveInWorkspace', () => {
  it('resolves relative and absolute paths inside the workspace, existing or not', async () => {
    const { ws } = await fixture();
    await expect(resolveInWorkspace(ws, 'src/a.txt')).resolves.toBe(join(ws, 'src', 'a.txt'));
    await expect(resolveInWorkspace(ws, join(ws, 'src', 'a.txt'))).resolves.toBe(join(ws, 'src', 'a.txt'));
    await expect(resolveInWorkspace(ws, 'new/deep/file.txt')).resolves.toBe(join(ws, 'new', 'deep', 'file.txt'));
    await expect(resolveInWorkspace(ws, 'src/../src/./a.txt')).resolves.toBe(join(ws, 'src', 'a.txt'));
    await expect(resolveInWorkspace(ws, '.')).resolves.toBe(ws);
  });

  it('takes /workspace — where exec_shell’s sandbox shows the workspace — as the workspace', async () => {
    const { ws } = await fixture();
    await expect(resolveInWorkspace(ws, '/workspace/src/a.txt')).resolves.toBe(join(ws, 'src', 'a.txt'));
    await expect(resolveInWorkspace(ws, '/workspace')).resolves.toBe(ws);
    await expect(resolveInWorkspace(ws, '/workspace/')).resolves.toBe(ws);
    await expect(resolveInWorkspace(ws, '/workspace/../etc/passwd')).rejects.toThrow(/outside the workspace/);
    await expect(resolveInWorkspace(ws, '/workspace/out-dir/secret.txt')).rejects.toThrow("path '/workspace/out-dir/secret.txt' is outside");
    await expect(resolveInWorkspace(ws, '/workspaces/a.txt')).rejects.toThrow(/outside the workspace/);
    // A workspace that really lives under /workspace keeps its own absolute paths.
    await expect(resolveInWorkspace(ws, join(ws, 'src', 'a.txt'))).resolves.toBe(join(ws, 'src', 'a.txt'));
  });

  it('follows symlinks that stay inside', async () => {
    const { ws } = await fixture();
    await expect(resolveInWorkspace(ws, 'src-link/a.txt')).resolves.toBe(join(ws, 'src', 'a.txt'));
    await expect(resolveInWorkspace(ws, 'dangling-in')).resolves.toBe(join(ws, 'src', 'new.txt'));
  });

  it.each([
    ['a .. escape', '../outside/secret.txt'],
    ['a deep .. escape', 'src/../../outside'],
    ['the parent itself', '..'],
    ['an absolute path outside', '/etc/passwd'],
    ['a symlinked directory leading out', 'out-dir/secret.txt'],
    ['the symlinked directory itself', 'out-dir'],
    ['a symlinked file leading out', 'out-file'],
    ['a new file under a symlinked parent', 'out-dir/new.txt'],
    ['a new file deep under a symlinked parent', 'out-dir/x/y/new.txt'],
    ['a dangling symlink leading out', 'dangling-out'],
  ])('refuses %s', async (_what, path) => {
    const { ws } = await fixture();
    const attempt = resolveInWorkspace(ws, path);
    await expect(attempt).rejects.toBeInstanceOf(ToolError);
    await expect(attempt).rejects.toThrow(/outside the workspace/);
  });

  it('refuses a symlink loop and a NUL byte with a ToolError', async () => {
    const { ws } = await fixture();
    await symlink('loop-b', join(ws, 'loop-a'));
    await symlink('loop-a', join(ws, 'loop-b'));
    await expect(resolveInWorkspace(ws, 'loop-a/x')).rejects.toBeInstanceOf(ToolError);
    await expect(resolveInWorkspace(ws, 'a\0b')).rejects.toBeInstanceOf(ToolError);
  });

  it('works when the workspace is given through a symlink', async () => {
    const { ws } = await fixture();
    const alias = join(await tempDir(), 'alias');
    await symlink(ws, alias);
    await expect(resolveInWorkspace(alias, 'src/a.txt')).resolves.toBe(join(ws, 'src', 'a.txt'));
    await expect(resolveInWorkspace(alias, join(alias, 'src', 'a.txt'))).resolves.toBe(join(ws, 'src', 'a.txt'));
  });

  it('property: a relative path with .. segments is refused exactly when it escapes lexically', async () => {
    const ws = await tempDir();
    const segment = fc.constantFrom('..', '.', 'a', 'b', 'c.txt', '...', '..a');
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { minLength: 1, maxLength: 8 }), async (segments) => {
        const path = segments.join('/');
        const lexical = posix.normalize(path);
        const escapes = lexical === '..' || lexical.startsWith('../');
        const result = await resolveInWorkspace(ws, path).then(
          (real) => ({ ok: true as const, real }),
          (error: unknown) => ({ ok: false as const, error }),
        );
        if (escapes) {
          expect(result.ok).toBe(false);
          if (!result.ok) expect(result.error).toBeInstanceOf(ToolError);
        } else {
          expect(result.ok).toBe(true);
          if (result.ok) expect(isInside(ws, result.real)).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('workspaceRelative', () => {
  it('shows paths relative to the workspace, with / separators', () => {
    expect(workspaceRelative('/w', '/w')).toBe('.');
    expect(workspaceRelative('/w', '/w/a/b.txt')).toBe('a/b.txt');
  });
});

describe('hiddenEntries', () => {
  it('is the workspace’s top-level entry that holds the store, nothing when the store is elsewhere', async () => {
    const { ws, outside } = await fixture();
    await expect(hiddenEntries(ws, undefined)).resolves.toEqual([]);
    await expect(hiddenEntries(ws, join(outside, '.agentctl', 'store'))).resolves.toEqual([]);
    // Not made yet, or made: the same entry.
    await expect(hiddenEntries(ws, join(ws, '.agentctl', 'store'))).resolves.toEqual([join(ws, '.agentctl')]);
    await mkdir(join(ws, 'data', 'stores', 'one'), { recursive: true });
    await expect(hiddenEntries(ws, join(ws, 'data', 'stores', 'one'))).resolves.toEqual([join(ws, 'data')]);
    // Reached through a symlink that leads into the workspace: where it really is.
    await expect(hiddenEntries(ws, join(ws, 'src-link', 'store'))).resolves.toEqual([join(ws, 'src')]);
    // A relative store directory is taken from the current directory, as the CLI does.
    await expect(hiddenEntries(ws, relative(process.cwd(), join(ws, '.agentctl', 'store')))).resolves.toEqual([join(ws, '.agentctl')]);
  });

  it('refuses a workspace that is the store or lies inside it', async () => {
    const { ws } = await fixture();
    for (const store of [ws, join(ws, '..')]) {
      const attempt = hiddenEntries(ws, store);
      await expect(attempt).rejects.toBeInstanceOf(InvalidOptionError);
      await expect(attempt).rejects.toThrow(/is inside agentctl's store/);
    }
  });
});
