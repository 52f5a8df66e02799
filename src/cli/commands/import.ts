import { openTapeFile, validateTapeFile } from '../../tape/tape-file.js';
import { out, type GlobalOptions } from '../io.js';
import { withStore } from '../with-store.js';
import { count as plural } from '../../core/plural.js';

/** `agentctl import <file>`: the whole file is checked before anything is written to the store. */
export async function runImport(file: string, options: GlobalOptions): Promise<void> {
  const tape = await openTapeFile(file);
  const count = await validateTapeFile(tape);
  await withStore(options, { create: true }, async (store) => {
    await store.putRun(tape.meta, tape.events());
  });
  if (options.json) out(JSON.stringify({ imported: tape.meta.id, events: count }));
  else if (!options.quiet) out(`imported ${tape.meta.id} (${plural(count, 'event')})`);
}
