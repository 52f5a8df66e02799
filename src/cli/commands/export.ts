import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { tapeLines, writeTapeFile } from '../../tape/tape-file.js';
import { note, stdoutStream, type GlobalOptions } from '../io.js';
import { withStore } from '../with-store.js';

/** `agentctl export <run> [-o file]`: a portable tape file, or JSONL on standard output. */
export async function runExport(ref: string, options: GlobalOptions & { output?: string }): Promise<void> {
  await withStore(options, { readOnly: true }, async (store) => {
    const meta = await store.resolveRun(ref);
    const events = store.readEvents(meta.id);
    if (options.output === undefined || options.output === '-') {
      await pipeline(Readable.from(tapeLines(meta, events)), stdoutStream(), { end: false });
      return;
    }
    await writeTapeFile(options.output, meta, events);
    if (!options.quiet) note(`exported ${meta.id} to ${options.output}`);
  });
}
