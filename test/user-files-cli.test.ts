/**
 * Files the user names, through the real binary: a `--config` file, a `--patch N=@file` and a tape
 * file are read only when they are regular files of a sane size — a FIFO, a device or a directory
 * is one `agentctl: …` line and exit 2, never a hang, unbounded memory or a stack — and a leading
 * UTF-8 byte order mark (as Windows editors write) is dropped. A directory never hides a run of
 * the same name.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';

const TAPE = new URL('../tapes/demo-loop.tape.jsonl', import.meta.url).pathname;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const ENV = { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined };

let dir: string;
let fifo: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-user-files-'));
  fifo = join(dir, 'fifo');
  execFileSync('mkfifo', [fifo]);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const replay = (...args: string[]) => runCli(['replay', TAPE, '--no-tui', '-q', '--no-save', ...args], { env: ENV, cwd: dir });

describe('a file named by the user that is no regular file', () => {
  it.each([
    ['--patch 1=@/dev/zero', ['--patch', '1=@/dev/zero'], 'agentctl: --patch 1=@/dev/zero: cannot read /dev/zero: it is a device, not a regular file\n'],
    ['--patch 1=@<fifo>', ['--patch', '1=@fifo'], () => `agentctl: --patch 1=@${fifo}: cannot read ${fifo}: it is a FIFO, not a regular file\n`],
    ['--config /dev/zero', ['--config', '/dev/zero'], 'agentctl: cannot read /dev/zero: it is a device, not a regular file\n'],
    ['--config <fifo>', ['--config', 'fifo'], () => `agentctl: cannot read ${fifo}: it is a FIFO, not a regular file\n`],
    ['--patch 1=@ (the working directory)', ['--patch', '1=@'], () => `agentctl: --patch 1=@${dir}: cannot read ${dir}: it is a directory\n`],
    ['--patch 1=@<directory>', ['--patch', '1=@/tmp'], 'agentctl: --patch 1=@/tmp: cannot read /tmp: it is a directory\n'],
  ])('%s: one line, exit 2', async (_name, args, message) => {
    const result = await replay(...args);
    expect(result.stderr).toBe(typeof message === 'string' ? message : message());
    expect(result.code).toBe(2);
  });

  it('a tape that is a FIFO: one line, exit 2, never opened', async () => {
    const result = await runCli(['show', fifo], { env: ENV });
    expect(result.stderr).toBe(`agentctl: cannot read ${fifo}: it is a FIFO, not a regular file\n`);
    expect(result.code).toBe(2);
  });
});

describe('a file named by the user that is too large', () => {
  it('a config file over 1 MiB: one line, exit 2', async () => {
    const config = join(dir, 'large-config.json');
    await writeFile(config, `{"systemPrompt":"${'x'.repeat(1024 * 1024)}"}`);
    const result = await replay('--config', config);
    expect(result.stderr).toBe(`agentctl: cannot read ${config}: it is larger than 1 MiB\n`);
    expect(result.code).toBe(2);
  });

  it('a patch file over the largest recorded reply (8 MiB): one line, exit 2', async () => {
    const patch = join(dir, 'large-patch.json');
    await writeFile(patch, `{"role":"assistant","content":"${'x'.repeat(8 * 1024 * 1024)}"}`);
    const result = await replay('--patch', `1=@${patch}`);
    expect(result.stderr).toBe(`agentctl: --patch 1=@${patch}: cannot read ${patch}: it is larger than 8 MiB\n`);
    expect(result.code).toBe(2);
  });
});

describe('a leading UTF-8 byte order mark is dropped', () => {
  it('a tape file, plain and gzip', async () => {
    const plain = join(dir, 'bom.tape.jsonl');
    const gz = join(dir, 'bom.tape.jsonl.gz');
    const bytes = Buffer.concat([BOM, readFileSync(TAPE)]);
    await writeFile(plain, bytes);
    await writeFile(gz, gzipSync(bytes));
    for (const file of [plain, gz]) {
      const result = await runCli(['replay', file, '--no-tui', '--no-save'], { env: ENV });
      expect(result.stderr, file).toBe('');
      expect(result.stdout, file).toContain('reproduced: every event matches the tape');
      expect(result.code, file).toBe(0);
    }
  });

  it('a config file and a patch file', async () => {
    const config = join(dir, 'bom-config.json');
    const patch = join(dir, 'bom-patch.json');
    await writeFile(config, Buffer.concat([BOM, Buffer.from('{}')]));
    await writeFile(patch, Buffer.concat([BOM, Buffer.from('{"role":"assistant","content":"patched"}')]));
    const configured = await replay('--config', config);
    expect(configured.stderr).toBe('');
    expect(configured.code).toBe(0);
    const patched = await runCli(['replay', TAPE, '--no-tui', '--no-save', '--patch', `1=@${patch}`], { env: ENV });
    expect(patched.stderr).not.toContain('not valid JSON');
    expect(patched.stderr).not.toContain('Unexpected token');
    expect(patched.stdout).toContain('patched');
  });
});

describe('a directory does not hide a run of the same name', () => {
  it('show <name> in a directory holding a directory of that name shows the run; a name no run has is the directory error', async () => {
    const store = join(dir, 'store');
    const named = join(dir, 'named.tape.jsonl');
    const [header = '', ...lines] = readFileSync(TAPE, 'utf8').split('\n');
    const parsed = JSON.parse(header) as { run: Record<string, unknown> };
    parsed.run.name = 'test';
    await writeFile(named, [JSON.stringify(parsed), ...lines].join('\n'));
    const imported = await runCli(['--store', store, 'import', named], { env: ENV });
    expect(imported.code, imported.stderr).toBe(0);
    await mkdir(join(dir, 'test'));
    await mkdir(join(dir, 'other'));

    const shown = await runCli(['--store', store, 'show', 'test'], { env: ENV, cwd: dir });
    expect(shown.stderr).toBe('');
    expect(shown.stdout).toContain(`run          ${String(parsed.run.id)}`);
    expect(shown.code).toBe(0);

    const hint = 'hint: give a tape file or a run id; agentctl ci other replays every tape in a directory\n';
    for (const storeDir of [store, join(dir, 'no-store')]) {
      const other = await runCli(['--store', storeDir, 'show', 'other'], { env: ENV, cwd: dir });
      expect(other.stderr, storeDir).toBe(`agentctl: other is a directory\n${hint}`);
      expect(other.code, storeDir).toBe(2);
    }
  });
});
