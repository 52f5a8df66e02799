import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { flushOut, note, out, stdoutStream, writeOut } from './io.js';

describe('standard output, buffered', () => {
  // Through the stream from here on, where a spy sees the writes. A fresh process writes to the
  // descriptor directly until something needs the stream: test/cli-stdout.test.ts.
  beforeAll(() => {
    stdoutStream();
  });
  afterEach(() => {
    flushOut();
    vi.restoreAllMocks();
  });

  it('writes the lines of one turn together, at the end of the turn, in order', async () => {
    const writes: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((text) => {
      writes.push(String(text));
      return true;
    });
    out('one');
    writeOut('two\n');
    out('three');
    expect(writes).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual(['one\ntwo\nthree\n']);
  });

  it('writes at once when 64 KB are held, and before anything goes to standard error', () => {
    const writes: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((text) => {
      writes.push(`out:${String(text).length}`);
      return true;
    });
    vi.spyOn(process.stderr, 'write').mockImplementation((text) => {
      writes.push(`err:${String(text)}`);
      return true;
    });
    const line = 'x'.repeat(1023);
    for (let i = 0; i < 63; i++) out(line);
    expect(writes).toEqual([]);
    out(line);
    expect(writes).toEqual([`out:${64 * 1024}`]);
    out('last');
    note('a note');
    expect(writes).toEqual([`out:${64 * 1024}`, 'out:5', 'err:a note\n']);
  });
});
