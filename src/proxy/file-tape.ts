/**
 * A proxy session that records onto a tape FILE records into the store first (durable call by call,
 * as every recording is) and, when it ends, writes the run to the file with writeTapeFile (a
 * temporary file renamed over the tape: a reader never sees half a tape, and the old one stays until
 * the new one is whole). The run stays in the store as well (`agentctl ls`), so a session whose
 * process died is kept there too.
 */
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { writeTapeFile } from '../tape/tape-file.js';
import { TapeStore } from '../tape/tape-store.js';

/**
 * Write run `runId` of the store at `storeDir` to the tape file `file`, replacing it whole; its
 * directory is created if missing (`tapes/` in a fresh checkout), as test fixtures' are.
 */
export async function saveRunToTapeFile(storeDir: string, runId: string, file: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const store = await TapeStore.open(storeDir, { create: false });
  try {
    const meta = await store.getRun(runId);
    await writeTapeFile(file, meta, store.readEvents(runId));
  } finally {
    await store.close();
  }
}
