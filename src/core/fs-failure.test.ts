import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidOptionError, IoError, NotFoundError, TapeFormatError } from './errors.js';
import { readFailure, writeFailure } from './fs-failure.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-fs-failure-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** What `operation` rejects with: a real error of the operating system. */
async function failureOf(operation: Promise<unknown>): Promise<unknown> {
  return operation.then(
    () => {
      throw new Error('expected the operation to fail');
    },
    (error: unknown) => error,
  );
}

describe('writeFailure', () => {
  it('a full disk is an IoError (exit 12) naming the file and the reason', async () => {
    expect(existsSync('/dev/full'), 'this test needs /dev/full (Linux)').toBe(true);
    const cause = await failureOf(writeFile('/dev/full', 'x'));
    const error = writeFailure('/dev/full', cause);
    expect(error).toBeInstanceOf(IoError);
    expect(error).toMatchObject({ code: 'AGENTCTL_IO', exitCode: 12, message: 'cannot write /dev/full: no space left on the device (ENOSPC)', cause });
  });

  it('a path that cannot be used is an InvalidOptionError (exit 2): no such directory, a directory', async () => {
    const missing = join(dir, 'no-such-dir', 'out.json');
    const noDir = writeFailure(missing, await failureOf(writeFile(missing, 'x')));
    expect(noDir).toBeInstanceOf(InvalidOptionError);
    expect(noDir).toMatchObject({ code: 'AGENTCTL_INVALID_OPTION', exitCode: 2, message: `cannot write ${missing}: its directory does not exist` });
    const isDir = writeFailure(dir, await failureOf(writeFile(dir, 'x')));
    expect(isDir).toBeInstanceOf(InvalidOptionError);
    expect((isDir as Error).message).toBe(`cannot write ${dir}: it is a directory`);
  });

  it('an error that is not the operating system\'s is returned as it is', () => {
    const tape = new TapeFormatError('bad event', { file: 'a.tape.jsonl', line: 3 });
    expect(writeFailure('out.tape.jsonl', tape)).toBe(tape);
    // A stream's own error has a code but names no system call.
    const stream = Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
    expect(writeFailure('out.tape.jsonl', stream)).toBe(stream);
  });
});

describe('readFailure', () => {
  it('a file that does not exist is a NotFoundError; a directory, an InvalidOptionError', async () => {
    const missing = join(dir, 'missing.json');
    const notFound = readFailure(missing, await failureOf(readFile(missing)));
    expect(notFound).toBeInstanceOf(NotFoundError);
    expect(notFound).toMatchObject({ code: 'AGENTCTL_NOT_FOUND', exitCode: 10 });
    const isDir = readFailure(dir, await failureOf(readFile(dir)));
    expect(isDir).toBeInstanceOf(InvalidOptionError);
    expect((isDir as Error).message).toBe(`cannot read ${dir}: it is a directory`);
  });

  it('an I/O error is an IoError (exit 12)', async () => {
    // Reading a process's own memory from offset 0 fails with EIO: a real I/O error, no disk needed.
    expect(existsSync('/proc/self/mem'), 'this test needs /proc (Linux)').toBe(true);
    const cause = await failureOf(readFile('/proc/self/mem'));
    expect(cause).toMatchObject({ code: 'EIO' });
    const error = readFailure('/proc/self/mem', cause);
    expect(error).toBeInstanceOf(IoError);
    expect(error).toMatchObject({ code: 'AGENTCTL_IO', exitCode: 12, message: 'cannot read /proc/self/mem: an I/O error (EIO)' });
  });
});
