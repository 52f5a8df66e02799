/**
 * Tape files already checked: a tape is untrusted input, and reading one checks every line (schema,
 * order, request hashes: tape-checks.ts) — most of what reading a long tape costs. A file that
 * passed every check, read again unchanged by the same agentctl, would pass them again, so its
 * later reads can skip them. This cache remembers such files.
 *
 * An entry is found by what the file system says of the file open for reading (one descriptor for
 * the lookup, the read and the remembering) — device, inode, size, modification and change times
 * (the change time moves on every write and cannot be set back) — plus the caller's salt (the CLI
 * gives its build's digest) and CHECKS_REVISION, so a file written since, or an agentctl that
 * checks differently, finds none. The entry holds the sha-256 of each 64 KiB block of the file as it was
 * checked (block-digests.ts), and a later read verifies every block before it makes a line of it:
 * whatever the file system says, only the very bytes that were checked are read unchecked. A block
 * that differs fails that read (exit 9) and drops the entry. The entry also lists the lines that
 * were read through the event schema rather than the quick check, which a trusted read still parses
 * that way, so both reads give the same events.
 *
 * The cache is only an optimisation: an entry is written after a complete read found nothing wrong,
 * and never for a file that changed during it; any failure to read or write the cache is ignored.
 * Only files of at least `minBytes` are remembered (checking a small tape costs less than the entry).
 */
import { mkdir, readdir, readFile, rename, rm, stat, writeFile, type FileHandle } from 'node:fs/promises';
import type { BigIntStats } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { sha256Hex } from '../guardrails/call-key.js';
import { blockCount } from './block-digests.js';

/** Bump when what a tape read checks changes: entries written before no longer count. */
export const CHECKS_REVISION = 2;
const ENTRY_FORMAT = 'agentctl-checked-tape';
/** Files smaller than this are always checked. */
export const CHECKED_MIN_BYTES = 1024 * 1024;
/** Entries kept; past this, the least recently written are removed. */
const MAX_ENTRIES = 256;
const DIGEST = /^[0-9a-f]{64}$/;

/** What a check of a whole file found, to be remembered. */
export interface CheckedTape {
  /** sha-256 (hex) of each block of the file, in order. */
  blocks: string[];
  /** Lines (1-based) whose event was read through the event schema. */
  schemaLines: number[];
}

/** The cache's word on one file, as it is now. */
export interface TapeTrust {
  /** The file as it was checked before, or null: check it (and `remember` it if it passes). */
  known: CheckedTape | null;
  /** After a complete read that found nothing wrong (ignored when the file has changed since `open`). */
  remember(checked: CheckedTape): Promise<void>;
  /** The file is not what the entry says: drop the entry. */
  forget(): Promise<void>;
}

export interface CheckedTapesOptions {
  dir: string;
  /** What else the checks depend on: the CLI gives a digest of its build's code. */
  salt: string;
  minBytes?: number;
}

export class CheckedTapes {
  private readonly minBytes: number;

  constructor(private readonly options: CheckedTapesOptions) {
    this.minBytes = options.minBytes ?? CHECKED_MIN_BYTES;
  }

  /**
   * The cache in `$AGENTCTL_CACHE` (`off`: none), else `$XDG_CACHE_HOME/agentctl`, else
   * `~/.cache/agentctl`; its entries are under `checked-tapes/`.
   */
  static fromEnv(env: NodeJS.ProcessEnv, salt: string): CheckedTapes | null {
    const set = env['AGENTCTL_CACHE'];
    if (set === 'off') return null;
    const root = set !== undefined && set !== '' ? set : join(env['XDG_CACHE_HOME'] || join(homedir(), '.cache'), 'agentctl');
    return new CheckedTapes({ dir: join(root, 'checked-tapes'), salt });
  }

  /**
   * What the cache knows of the file open as `handle` (the caller reads it through that descriptor,
   * so the entry looked up, the bytes read and the file remembered are one file); null when the
   * file is too small to be remembered.
   */
  async open(handle: FileHandle): Promise<TapeTrust | null> {
    let info: BigIntStats;
    try {
      info = await handle.stat({ bigint: true });
    } catch {
      return null;
    }
    if (!info.isFile() || info.size < BigInt(this.minBytes)) return null;
    const entry = join(this.options.dir, `${keyOf(this.options.salt, info)}.json`);
    const known = await readEntry(entry, Number(info.size));
    return {
      known,
      remember: async (checked) => {
        const temp = `${entry}.${process.pid}.tmp`;
        try {
          const now = await handle.stat({ bigint: true });
          if (!sameFile(now, info) || checked.blocks.length !== blockCount(Number(info.size))) return;
          await mkdir(this.options.dir, { recursive: true });
          const body = { format: ENTRY_FORMAT, size: Number(info.size), blocks: checked.blocks, schemaLines: checked.schemaLines };
          await writeFile(temp, JSON.stringify(body));
          await rename(temp, entry);
          await this.prune();
        } catch {
          // Only an optimisation: the next read checks the file again.
          await rm(temp, { force: true }).catch(() => undefined);
        }
      },
      forget: async () => {
        await rm(entry, { force: true }).catch(() => undefined);
      },
    };
  }

  /**
   * Keep the MAX_ENTRIES most recently written entries; remove the temporary files of writes that
   * were killed (older than an hour: a write under way is not).
   */
  private async prune(): Promise<void> {
    const all = await readdir(this.options.dir);
    const hourAgo = Date.now() - 60 * 60 * 1000;
    await Promise.all(
      all.filter((name) => name.endsWith('.tmp')).map(async (name) => {
        const file = join(this.options.dir, name);
        if (((await stat(file).catch(() => null))?.mtimeMs ?? Infinity) < hourAgo) await rm(file, { force: true }).catch(() => undefined);
      }),
    );
    const names = all.filter((name) => name.endsWith('.json'));
    if (names.length <= MAX_ENTRIES) return;
    const dated = await Promise.all(
      names.map(async (name) => ({ name, at: (await stat(join(this.options.dir, name)).catch(() => null))?.mtimeMs ?? 0 })),
    );
    dated.sort((a, b) => b.at - a.at || (a.name < b.name ? -1 : 1));
    await Promise.all(dated.slice(MAX_ENTRIES).map(({ name }) => rm(join(this.options.dir, name), { force: true }).catch(() => undefined)));
  }
}

/**
 * The entry's name: the file by device and inode (whatever path reaches it), as it is now (size,
 * modification and change times), for this build's checks.
 */
function keyOf(salt: string, info: BigIntStats): string {
  const fields = [ENTRY_FORMAT, CHECKS_REVISION, salt, info.dev, info.ino, info.size, info.mtimeNs, info.ctimeNs];
  return sha256Hex(JSON.stringify(fields.map(String)));
}

function sameFile(a: BigIntStats, b: BigIntStats): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;
}

/** The entry at `file` for a tape of `size` bytes, or null when there is none or it is not one. */
async function readEntry(file: string, size: number): Promise<CheckedTape | null> {
  try {
    const blocks = blockCount(size);
    // Hex digests, and line numbers (a line is at least 2 bytes): an entry is never larger than this.
    if ((await stat(file)).size > 1024 + 70 * blocks + 9 * size) return null;
    const entry = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    if (entry.format !== ENTRY_FORMAT || entry.size !== size) return null;
    const digests = entry.blocks;
    const lines = entry.schemaLines;
    if (!Array.isArray(digests) || digests.length !== blocks || !digests.every((d) => typeof d === 'string' && DIGEST.test(d))) return null;
    if (!Array.isArray(lines) || !lines.every((n, i) => Number.isSafeInteger(n) && n > 1 && (i === 0 || n > (lines[i - 1] as number)))) return null;
    return { blocks: digests as string[], schemaLines: lines as number[] };
  } catch {
    return null;
  }
}
