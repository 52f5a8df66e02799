/**
 * Which file of a store is damaged, for when LevelDB reports corruption without naming one
 * (`Corruption: corrupted compressed block contents`, `Corruption: checksum mismatch`): LevelDB's
 * reads do not check table blocks' checksums, and its reports name no file; this checks the files'
 * own checksums. Only run once LevelDB has failed.
 *
 * LevelDB's table format (its doc/table_format.md): blocks, each followed by a byte saying how it is
 * compressed and a masked CRC-32C of the block and that byte; at the end a 48-byte footer with the
 * position and size of the index block (varints) and a magic number. The index block (compressed
 * with Snappy, or not) holds one entry per data block, whose value is that block's position and size.
 * The manifest (doc/log_format.md): 32 KiB blocks of records, each with a masked CRC-32C of its type
 * and data, its length and its type; fewer than 7 bytes left in a block are zeros.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';

const TABLE = /^\d+\.(?:ldb|sst)$/;
const MANIFEST = /^MANIFEST-\d+$/;
const FOOTER_BYTES = 48;
const TRAILER_BYTES = 5;
const MAGIC = Buffer.from([0x57, 0xfb, 0x80, 0x8b, 0x24, 0x75, 0x47, 0xdb]);
const LOG_BLOCK = 32 * 1024;
const RECORD_HEADER = 7;
/** How much of a store is read looking for the damage before giving up (the report then names the directory). */
const READ_BUDGET = 1 << 30;

export interface Damage {
  file: string;
  problem: string;
}

/**
 * The first file in `dir` that is not what LevelDB wrote, and what is wrong with it: the manifest
 * `CURRENT` names, then the table files. Undefined when none is found.
 */
export function damagedFile(dir: string): Damage | undefined {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return undefined;
  }
  let current: string | undefined;
  try {
    current = readFileSync(join(dir, 'CURRENT'), 'utf8').trim();
  } catch {
    current = undefined;
  }
  const manifest = current !== undefined && names.includes(current) ? fileDamage(join(dir, current)) : undefined;
  if (manifest !== undefined) return manifest;
  let read = 0;
  for (const name of names.filter((n) => TABLE.test(n)).sort()) {
    const file = join(dir, name);
    const damage = fileDamage(file);
    if (damage !== undefined) return damage;
    read += statSync(file, { throwIfNoEntry: false })?.size ?? 0;
    if (read > READ_BUDGET) return undefined;
  }
  return undefined;
}

/** What is wrong with `file`, a table or a manifest that does not check out; undefined for any other file. */
export function fileDamage(file: string): Damage | undefined {
  const name = basename(file);
  const check = TABLE.test(name) ? tableProblem : MANIFEST.test(name) ? logProblem : undefined;
  if (check === undefined) return undefined;
  let problem: string | undefined;
  try {
    problem = check(readFileSync(file));
  } catch {
    return undefined;
  }
  return problem === undefined ? undefined : { file, problem };
}

/** What is wrong with a file of log records (a manifest), or undefined when every record checks out. */
export function logProblem(bytes: Buffer): string | undefined {
  for (let block = 0; block < bytes.length; block += LOG_BLOCK) {
    const end = Math.min(block + LOG_BLOCK, bytes.length);
    for (let at = block; end - at >= RECORD_HEADER; ) {
      const length = bytes.readUInt16LE(at + 4);
      const type = bytes[at + 6] as number;
      if (type === 0 && length === 0) break; // zeros: the rest of the block is unused
      if (at + RECORD_HEADER + length > end) return `record at byte ${at} is cut short`;
      if (bytes.readUInt32LE(at) !== masked(crc32c(bytes.subarray(at + 6, at + RECORD_HEADER + length)))) return `record at byte ${at} fails its checksum`;
      at += RECORD_HEADER + length;
    }
  }
  return undefined;
}

/** What is wrong with a table file's bytes, or undefined when every block checks out. */
export function tableProblem(bytes: Buffer): string | undefined {
  if (bytes.length < FOOTER_BYTES || !bytes.subarray(bytes.length - MAGIC.length).equals(MAGIC)) return 'it is cut short or not a table (no footer)';
  const footer = new Reader(bytes, bytes.length - FOOTER_BYTES);
  // The metaindex lists the filter blocks; the index, the data blocks: each entry's value is a block's handle.
  for (const [what, handle] of [['metaindex', footer.handle()], ['index', footer.handle()]] as const) {
    const listing = block(bytes, handle);
    if (typeof listing === 'string') return `its ${what} ${listing}`;
    for (const listed of handles(listing)) {
      const problem = block(bytes, listed);
      if (typeof problem === 'string') return problem;
    }
  }
  return undefined;
}

/** The values of a block's entries, read as block handles. */
function* handles(contents: Buffer): Generator<{ offset: number; size: number }> {
  const entries = new Reader(contents, 0);
  const end = contents.length - 4 - 4 * contents.readUInt32LE(contents.length - 4);
  while (entries.at < end) {
    entries.varint(); // key bytes shared with the previous entry
    const keyBytes = entries.varint();
    const valueBytes = entries.varint();
    entries.at += keyBytes;
    yield new Reader(contents.subarray(entries.at, entries.at + valueBytes), 0).handle();
    entries.at += valueBytes;
  }
}

/** The contents of the block at `handle`, uncompressed; or what is wrong with it. */
function block(bytes: Buffer, handle: { offset: number; size: number }): Buffer | string {
  const { offset, size } = handle;
  if (offset + size + TRAILER_BYTES > bytes.length) return `block at byte ${offset} lies past the end of the file`;
  const stored = bytes.subarray(offset, offset + size + 1);
  if (bytes.readUInt32LE(offset + size + 1) !== masked(crc32c(stored))) return `block at byte ${offset} fails its checksum`;
  const type = bytes[offset + size];
  if (type === 0) return bytes.subarray(offset, offset + size);
  if (type === 1) return unsnappy(bytes.subarray(offset, offset + size)) ?? `block at byte ${offset} is not valid Snappy`;
  return `block at byte ${offset} has an unknown compression (${String(type)})`;
}

class Reader {
  constructor(
    private readonly bytes: Buffer,
    public at: number,
  ) {}

  varint(): number {
    let value = 0;
    for (let shift = 0; shift < 64; shift += 7) {
      const byte = this.bytes[this.at++];
      if (byte === undefined) throw new RangeError('varint past the end');
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
    }
    throw new RangeError('varint too long');
  }

  handle(): { offset: number; size: number } {
    return { offset: this.varint(), size: this.varint() };
  }
}

/** Snappy's raw format, decompressed; undefined when the bytes are not valid Snappy. */
function unsnappy(input: Buffer): Buffer | undefined {
  try {
    const reader = new Reader(input, 0);
    const out = Buffer.alloc(reader.varint());
    let at = 0;
    while (reader.at < input.length) {
      const tag = input[reader.at++] as number;
      let length: number;
      let offset = 0;
      if ((tag & 3) === 0) {
        length = (tag >> 2) + 1;
        if (length > 60) {
          const extra = length - 60;
          length = input.readUIntLE(reader.at, extra) + 1;
          reader.at += extra;
        }
        if (reader.at + length > input.length || at + length > out.length) return undefined;
        input.copy(out, at, reader.at, reader.at + length);
        reader.at += length;
        at += length;
        continue;
      }
      if ((tag & 3) === 1) {
        length = ((tag >> 2) & 7) + 4;
        offset = ((tag >> 5) << 8) | (input[reader.at++] as number);
      } else {
        length = (tag >> 2) + 1;
        const bytes = (tag & 3) === 2 ? 2 : 4;
        offset = input.readUIntLE(reader.at, bytes);
        reader.at += bytes;
      }
      if (offset === 0 || offset > at || at + length > out.length) return undefined;
      // Byte by byte: a copy may overlap what it writes (a run of a repeated pattern).
      for (let i = 0; i < length; i++, at++) out[at] = out[at - offset] as number;
    }
    return at === out.length ? out : undefined;
  } catch {
    return undefined;
  }
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32C (Castagnoli), as LevelDB computes it. */
export function crc32c(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = (CRC_TABLE[(crc ^ byte) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** LevelDB stores a CRC rotated and offset, so that a CRC of data holding CRCs is not confused with them. */
function masked(crc: number): number {
  return ((((crc >>> 15) | (crc << 17)) >>> 0) + 0xa282ead8) >>> 0;
}
