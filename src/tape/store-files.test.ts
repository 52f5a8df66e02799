import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../core/errors.js';
import { copyStore, newestManifest, storeState } from './store-files.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentctl-store-files-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A directory holding the named files (each with its own name as content). */
function withFiles(name: string, files: string[]): string {
  const at = join(dir, name);
  mkdirSync(at);
  for (const file of files) writeFileSync(join(at, file), file);
  return at;
}

describe('storeState', () => {
  it('nothing there, an empty directory, or only what a failed open leaves (LOCK, LOG): no store, one may be made', () => {
    expect(storeState(join(dir, 'missing'))).toBe('none');
    expect(storeState(withFiles('empty', []))).toBe('none');
    expect(storeState(withFiles('failed-open', ['LOCK', 'LOG', 'LOG.old', 'notes.txt']))).toBe('none');
  });

  it('store data without CURRENT is a damaged store, whichever data it is', () => {
    for (const file of ['000005.ldb', '000007.sst', '000008.log', 'MANIFEST-000004', 'journal-01ABC.jsonl', 'journal-01ABC.jsonl.damaged']) {
      expect(storeState(withFiles(`no-current-${file}`, ['LOCK', file])), file).toBe('no-current');
    }
  });

  it('a path the system cannot look at is an agentctl error naming it, not a crash (exit 2)', () => {
    writeFileSync(join(dir, 'file'), '');
    expect(() => storeState(join(dir, 'file', 'store'))).toThrow(new InvalidOptionError(`cannot read ${join(dir, 'file', 'store')}: a part of the path is not a directory`));
    symlinkSync(join(dir, 'loop'), join(dir, 'loop'));
    expect(() => storeState(join(dir, 'loop'))).toThrow(/too many levels of symbolic links/);
  });

  it('CURRENT makes a store; a file is not a directory', () => {
    expect(storeState(withFiles('store', ['CURRENT', 'MANIFEST-000002', '000003.log']))).toBe('store');
    writeFileSync(join(dir, 'a-file'), '');
    expect(storeState(join(dir, 'a-file'))).toBe('not-a-directory');
  });
});

it('newestManifest: the highest-numbered, by number', () => {
  expect(newestManifest(withFiles('m', ['MANIFEST-000009', 'MANIFEST-000010', 'MANIFEST-000002', '000011.log']))).toBe('MANIFEST-000010');
  expect(newestManifest(withFiles('none', ['000011.log']))).toBeUndefined();
});

it('copyStore copies every file but the lock and the info log, and not directories', () => {
  const store = withFiles('store', ['CURRENT', 'MANIFEST-000004', '000005.ldb', '000006.log', 'journal-X.jsonl', 'LOCK', 'LOG', 'LOG.old']);
  mkdirSync(join(store, 'sub'));
  const copy = copyStore(store);
  try {
    expect(copy.startsWith(tmpdir())).toBe(true);
    expect(readdirSync(copy).sort()).toEqual(['000005.ldb', '000006.log', 'CURRENT', 'MANIFEST-000004', 'journal-X.jsonl']);
    expect(readFileSync(join(copy, '000005.ldb'), 'utf8')).toBe('000005.ldb');
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});
