import { chmod, link, mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { editFileTool } from './edit-file.js';
import { grepFilesTool, MAX_GREP_MATCHES } from './grep-files.js';
import { listDirTool } from './list-dir.js';
import { readFileTool } from './read-file.js';
import { useTempDirs } from './test-support/temp-dirs.js';
import { ToolError, type Tool } from './tool.js';
import { writeFileTool } from './write-file.js';
import { hiddenEntries } from './workspace.js';

const tempDir = useTempDirs();
let ws: string;
let outside: string;

beforeEach(async () => {
  const root = await tempDir();
  ws = join(root, 'ws');
  outside = join(root, 'outside');
  await mkdir(join(ws, 'src'), { recursive: true });
  await mkdir(outside);
  await writeFile(join(outside, 'secret.txt'), 'TOP SECRET\n');
  await symlink(outside, join(ws, 'out-dir'));
  await symlink(join(outside, 'secret.txt'), join(ws, 'out-file'));
});

function run(tool: Tool, args: Record<string, unknown>): Promise<string> {
  return tool.run(args, { workspace: ws, signal: new AbortController().signal });
}

async function expectToolError(promise: Promise<string>, message: RegExp): Promise<void> {
  await expect(promise).rejects.toBeInstanceOf(ToolError);
  await expect(promise).rejects.toThrow(message);
}

describe('read_file', () => {
  const tool = readFileTool();

  it('is idempotent and not mutating', () => {
    expect(tool).toMatchObject({ name: 'read_file', idempotent: true, mutating: false, timeoutMs: 10_000 });
    expect(tool.parameters).toMatchObject({ type: 'object', required: ['path'] });
    expect(tool.parameters).not.toHaveProperty('$schema');
  });

  it('reads a whole file exactly', async () => {
    await writeFile(join(ws, 'src', 'a.txt'), 'one\ntwo\nthree\n');
    await expect(run(tool, { path: 'src/a.txt' })).resolves.toBe('one\ntwo\nthree\n');
    await expect(run(tool, { path: join(ws, 'src', 'a.txt') })).resolves.toBe('one\ntwo\nthree\n');
  });

  it('reads an empty file', async () => {
    await writeFile(join(ws, 'empty.txt'), '');
    await expect(run(tool, { path: 'empty.txt' })).resolves.toBe('');
  });

  it('pages with offset and limit, saying where it is', async () => {
    const lines = Array.from({ length: 10 }, (_, i) => `line ${i}`);
    await writeFile(join(ws, 'long.txt'), lines.join('\n'));
    await expect(run(tool, { path: 'long.txt', offset: 2, limit: 3 })).resolves.toBe(
      'line 2\nline 3\nline 4\n[lines 3-5 of 10; call read_file with offset=5 for more]',
    );
    await expect(run(tool, { path: 'long.txt', offset: 8 })).resolves.toBe('line 8\nline 9\n[lines 9-10 of 10]');
  });

  it('fails clearly: missing file, directory, offset past the end, bad arguments, binary', async () => {
    await writeFile(join(ws, 'short.txt'), 'x\n');
    await writeFile(join(ws, 'bin.dat'), Buffer.from([1, 0, 2]));
    await expectToolError(run(tool, { path: 'nope.txt' }), /'nope.txt' does not exist/);
    await expectToolError(run(tool, { path: 'src' }), /is a directory/);
    await expectToolError(run(tool, { path: 'short.txt', offset: 5 }), /past the end/);
    await expectToolError(run(tool, { path: 7 }), /invalid arguments for read_file: path/);
    await expectToolError(run(tool, { path: 'short.txt', limit: 0 }), /limit/);
    await expectToolError(run(tool, { path: 'bin.dat' }), /binary/);
  });

  it('refuses paths outside the workspace', async () => {
    await expectToolError(run(tool, { path: '../outside/secret.txt' }), /outside the workspace/);
    await expectToolError(run(tool, { path: join(outside, 'secret.txt') }), /outside the workspace/);
    await expectToolError(run(tool, { path: 'out-dir/secret.txt' }), /outside the workspace/);
    await expectToolError(run(tool, { path: 'out-file' }), /outside the workspace/);
  });
});

describe('list_dir', () => {
  const tool = listDirTool();

  it('lists entries sorted, marking directories and symlinks', async () => {
    await writeFile(join(ws, 'b.txt'), '');
    await writeFile(join(ws, 'a.txt'), '');
    expect(tool).toMatchObject({ idempotent: true, mutating: false });
    await expect(run(tool, {})).resolves.toBe('a.txt\nb.txt\nout-dir@\nout-file@\nsrc/');
    await expect(run(tool, { path: 'src' })).resolves.toBe('(empty directory)');
  });

  it('fails on a file, a missing path, and paths outside', async () => {
    await writeFile(join(ws, 'a.txt'), '');
    await expectToolError(run(tool, { path: 'a.txt' }), /not a directory/);
    await expectToolError(run(tool, { path: 'missing' }), /does not exist/);
    await expectToolError(run(tool, { path: '..' }), /outside the workspace/);
    await expectToolError(run(tool, { path: 'out-dir' }), /outside the workspace/);
  });
});

describe('grep_files', () => {
  const tool = grepFilesTool();

  beforeEach(async () => {
    await writeFile(join(ws, 'src', 'main.ts'), 'const a = 1;\n// TODO: fix\nexport function main() {}\n');
    await writeFile(join(ws, 'src', 'util.ts'), 'export function util() {}\r\n');
    await mkdir(join(ws, 'node_modules', 'pkg'), { recursive: true });
    await writeFile(join(ws, 'node_modules', 'pkg', 'index.js'), 'export function hidden() {}\n');
    await writeFile(join(ws, 'blob.bin'), Buffer.from('export function\0binary'));
  });

  it('finds matching lines in sorted order, skipping node_modules, binaries and symlinks', async () => {
    expect(tool).toMatchObject({ idempotent: true, mutating: false });
    await expect(run(tool, { pattern: 'export function \\w+' })).resolves.toBe(
      'src/main.ts:3: export function main() {}\nsrc/util.ts:1: export function util() {}',
    );
  });

  it('searches a single file or a subdirectory, and says when nothing matches', async () => {
    await expect(run(tool, { pattern: 'TODO', path: 'src/main.ts' })).resolves.toBe('src/main.ts:2: // TODO: fix');
    await expect(run(tool, { pattern: 'hidden', path: 'node_modules' })).resolves.toMatch(/index.js:1/);
    await expect(run(tool, { pattern: 'nothing-here' })).resolves.toMatch(/^no matches/);
  });

  it('caps the number of results', async () => {
    await writeFile(join(ws, 'many.txt'), 'hit\n'.repeat(MAX_GREP_MATCHES + 50));
    const output = await run(tool, { pattern: 'hit', path: 'many.txt' });
    const lines = output.split('\n');
    expect(lines).toHaveLength(MAX_GREP_MATCHES + 1);
    expect(lines.at(-1)).toMatch(/results capped at 200 matches/);
  });

  it('fails on an invalid regex, a missing path, and paths outside', async () => {
    await expectToolError(run(tool, { pattern: '(' }), /invalid regular expression/);
    await expectToolError(run(tool, { pattern: 'a(?=b)' }), /invalid regular expression: invalid or unsupported Perl syntax/);
    await expectToolError(run(tool, { pattern: 'x', path: 'missing' }), /does not exist/);
    await expectToolError(run(tool, { pattern: 'SECRET', path: 'out-dir' }), /outside the workspace/);
    await expectToolError(run(tool, { pattern: 'SECRET', path: '../outside' }), /outside the workspace/);
  });
});

describe('write_file', () => {
  const tool = writeFileTool();

  it('is mutating (and idempotent: same content, same effect)', () => {
    expect(tool).toMatchObject({ name: 'write_file', idempotent: true, mutating: true });
  });

  it('creates files and parent directories, and overwrites', async () => {
    await expect(run(tool, { path: 'new/dir/f.txt', content: 'héllo' })).resolves.toBe("created 'new/dir/f.txt' (6 bytes)");
    expect(await readFile(join(ws, 'new', 'dir', 'f.txt'), 'utf8')).toBe('héllo');
    await expect(run(tool, { path: 'new/dir/f.txt', content: '' })).resolves.toMatch(/^overwrote/);
    expect(await readFile(join(ws, 'new', 'dir', 'f.txt'), 'utf8')).toBe('');
  });

  it('refuses to write outside, including through a symlinked parent or file', async () => {
    await expectToolError(run(tool, { path: '../escape.txt', content: 'x' }), /outside the workspace/);
    await expectToolError(run(tool, { path: 'out-dir/new.txt', content: 'x' }), /outside the workspace/);
    await expectToolError(run(tool, { path: 'out-dir/deep/new.txt', content: 'x' }), /outside the workspace/);
    await expectToolError(run(tool, { path: 'out-file', content: 'x' }), /outside the workspace/);
    await symlink(join(outside, 'planted.txt'), join(ws, 'dangling'));
    await expectToolError(run(tool, { path: 'dangling', content: 'x' }), /outside the workspace/);
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET\n');
    await expect(readFile(join(outside, 'new.txt'))).rejects.toThrow(/ENOENT/);
    await expect(readFile(join(outside, 'planted.txt'))).rejects.toThrow(/ENOENT/);
  });

  it('never writes through a hard link: a file linked from outside is replaced, and the outside file keeps its content', async () => {
    await link(join(outside, 'secret.txt'), join(ws, 'linked.txt'));
    await chmod(join(ws, 'linked.txt'), 0o751);
    await expect(run(tool, { path: 'linked.txt', content: 'overwritten\n' })).resolves.toBe(
      "overwrote 'linked.txt' (12 bytes; it was a hard link to another file, which keeps its content)",
    );
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET\n');
    expect(await readFile(join(ws, 'linked.txt'), 'utf8')).toBe('overwritten\n');
    const replaced = await stat(join(ws, 'linked.txt'));
    expect(replaced.nlink).toBe(1);
    expect(replaced.mode & 0o7777).toBe(0o751);
    expect((await stat(join(outside, 'secret.txt'))).nlink).toBe(1);
  });

  it('fails on a directory target and on bad arguments', async () => {
    await expectToolError(run(tool, { path: 'src', content: 'x' }), /is a directory/);
    await expectToolError(run(tool, { path: 'a.txt' }), /invalid arguments for write_file: content/);
  });
});

describe('edit_file', () => {
  const tool = editFileTool();

  beforeEach(async () => {
    await writeFile(join(ws, 'code.ts'), 'let a = 1;\nlet b = 2;\nlet b2 = 2;\n');
  });

  it('is mutating and not idempotent', () => {
    expect(tool).toMatchObject({ name: 'edit_file', idempotent: false, mutating: true });
  });

  it('replaces exactly one occurrence, literally', async () => {
    await expect(run(tool, { path: 'code.ts', old: 'let b = 2;', new: "let b = '$&';" })).resolves.toBe(
      "edited 'code.ts': replaced 1 occurrence at line 2",
    );
    expect(await readFile(join(ws, 'code.ts'), 'utf8')).toBe("let a = 1;\nlet b = '$&';\nlet b2 = 2;\n");
  });

  it('fails when the text is missing or ambiguous, and leaves the file alone', async () => {
    await expectToolError(run(tool, { path: 'code.ts', old: 'let c', new: 'x' }), /not found/);
    await expectToolError(run(tool, { path: 'code.ts', old: '2;', new: '3;' }), /more than once/);
    await expectToolError(run(tool, { path: 'code.ts', old: '', new: 'x' }), /invalid arguments for edit_file: old/);
    await expectToolError(run(tool, { path: 'missing.ts', old: 'a', new: 'b' }), /does not exist/);
    expect(await readFile(join(ws, 'code.ts'), 'utf8')).toBe('let a = 1;\nlet b = 2;\nlet b2 = 2;\n');
  });

  it('never edits through a hard link: a file linked from outside is replaced, and the outside file keeps its content', async () => {
    await link(join(outside, 'secret.txt'), join(ws, 'linked.txt'));
    await expect(run(tool, { path: 'linked.txt', old: 'TOP', new: 'NO' })).resolves.toBe(
      "edited 'linked.txt': replaced 1 occurrence at line 1 (it was a hard link to another file, which keeps its content)",
    );
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET\n');
    expect(await readFile(join(ws, 'linked.txt'), 'utf8')).toBe('NO SECRET\n');
    expect((await stat(join(ws, 'linked.txt'))).nlink).toBe(1);
  });

  it('refuses files outside the workspace', async () => {
    await expectToolError(run(tool, { path: 'out-file', old: 'TOP', new: 'NO' }), /outside the workspace/);
    await expectToolError(run(tool, { path: 'out-dir/secret.txt', old: 'TOP', new: 'NO' }), /outside the workspace/);
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET\n');
  });
});


describe('errors the model sees', () => {
  it('never show the workspace’s absolute path: a name too long (ENAMETOOLONG) is reported with the path as given', async () => {
    const long = 'n'.repeat(300);
    const calls: Array<[Tool, Record<string, unknown>]> = [
      [readFileTool(), { path: long }],
      [readFileTool(), { path: `src/${long}/x.txt` }],
      [listDirTool(), { path: long }],
      [grepFilesTool(), { pattern: 'x', path: long }],
      [writeFileTool(), { path: long, content: 'x' }],
      [writeFileTool(), { path: `${long}/x.txt`, content: 'x' }],
      [editFileTool(), { path: long, old: 'a', new: 'b' }],
    ];
    for (const [tool, args] of calls) {
      const error = await run(tool, args).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, tool.name).toBeInstanceOf(ToolError);
      const message = (error as Error).message;
      expect(message, tool.name).not.toContain(ws);
      expect(message, tool.name).toMatch(/name too long/);
    }
  });
});

describe('the store in the workspace', () => {
  it('is out of every file tool’s reach: by its path, by the sandbox’s path, through a symlink; grep_files passes it over', async () => {
    const store = join(ws, '.agentctl', 'store');
    await mkdir(store, { recursive: true });
    await writeFile(join(store, 'CURRENT'), 'MANIFEST-000001\n');
    await writeFile(join(ws, 'notes.txt'), 'a MANIFEST of my own\n');
    await symlink(store, join(ws, 'store-link'));
    const hidden = await hiddenEntries(ws, store);
    const call = (tool: Tool, args: Record<string, unknown>): Promise<string> =>
      tool.run(args, { workspace: ws, hidden, signal: new AbortController().signal });
    const refused = /'\.agentctl', which holds agentctl's store; tools may not reach it/;
    for (const path of ['.agentctl/store/CURRENT', '/workspace/.agentctl/store/CURRENT', 'store-link/CURRENT', join(store, 'CURRENT')]) {
      await expectToolError(call(readFileTool(), { path }), refused);
    }
    await expectToolError(call(writeFileTool(), { path: '.agentctl/store/CURRENT', content: 'MANIFEST-999999\n' }), refused);
    await expectToolError(call(writeFileTool(), { path: '.agentctl/planted', content: 'x' }), refused);
    await expectToolError(call(editFileTool(), { path: '.agentctl/store/CURRENT', old: '000001', new: '999999' }), refused);
    await expectToolError(call(listDirTool(), { path: '.agentctl' }), refused);
    await expectToolError(call(grepFilesTool(), { pattern: 'MANIFEST', path: '.agentctl' }), refused);
    await expect(call(grepFilesTool(), { pattern: 'MANIFEST' })).resolves.toBe('notes.txt:1: a MANIFEST of my own');
    expect(await readFile(join(store, 'CURRENT'), 'utf8')).toBe('MANIFEST-000001\n');
    await expect(stat(join(ws, '.agentctl', 'planted'))).rejects.toThrow(/ENOENT/);
    // The rest of the workspace is as before.
    await expect(call(readFileTool(), { path: 'notes.txt' })).resolves.toBe('a MANIFEST of my own\n');
  });
});
