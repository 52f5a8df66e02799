/**
 * `agentctl/tape`: the tape store (LevelDB) and portable tape files, read and written as agentctl
 * does, and the redaction every path of agentctl applies before anything is written.
 */
import { openTapeFile as openFile, type TapeFile } from '../tape/tape-file.js';
import { TapeStore, type OpenStoreOptions } from '../tape/tape-store.js';

export { TapeStore, type OpenStoreOptions, type NewRun } from '../tape/tape-store.js';
export { writeTapeFile, type TapeFile } from '../tape/tape-file.js';
export { TAPE_VERSION, type RunStatus, type RunKind, type TapeUpdate } from '../core/run-meta.js';

/**
 * Open a tape file (`.tape.jsonl`, `.tape.jsonl.gz`) and check its header; its events are read, and
 * checked line by line, as `events()` is iterated (a bad line is a TapeFormatError naming it).
 */
export function openTapeFile(path: string): Promise<TapeFile> {
  return openFile(path);
}

/** Open (creating if needed) the tape store at `dir`. */
export function openStore(dir: string, options?: OpenStoreOptions): Promise<TapeStore> {
  return TapeStore.open(dir, options);
}

// Redaction, as every path of agentctl applies it.
export { createRedactor, runRedactor, REDACTED, type Redactor, type RedactorOptions } from '../core/redact.js';
