import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { tapeLines, writeTapeFile } from '../../tape/tape-file.js';
import { note, stdoutStream, type GlobalOptions } from '../io.js';
import { withTapeSource } from '../with-tape-source.js';

/**
 * `agentctl export <run | file> [-o file]`: a portable tape file, or JSONL on standard output. A tape
 * file is read (and checked) as a run is, so it can be written again, gzipped or not.
 */
export async function runExport(ref: string, options: GlobalOptions & { output?: string }): Promise<void> {
  await withTapeSource(ref, options, async ({ meta, events }) => {
    if (options.output === undefined || options.output === '-') {
      await pipeline(Readable.from(tapeLines(meta, events())), stdoutStream(), { end: false });
      return;
    }
    await writeTapeFile(options.output, meta, events());
    if (!options.quiet) note(`exported ${meta.id} to ${options.output}`);
  });
}
