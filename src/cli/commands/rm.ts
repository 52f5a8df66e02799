import { UsageError } from '../../core/errors.js';
import { isTapePath } from '../../tape/tape-path.js';
import { out, type GlobalOptions } from '../io.js';
import { withStore } from '../with-store.js';

/** `agentctl rm <run>`: delete a run and its events. A path is refused: files are not rm's to delete. */
export async function runRm(ref: string, options: GlobalOptions): Promise<void> {
  if (isTapePath(ref)) {
    throw new UsageError(`'${ref}' is a path: rm deletes runs from the store, not files`, { hint: 'give the run id (agentctl ls lists them)' });
  }
  await withStore(options, { create: false }, async (store) => {
    const meta = await store.resolveRun(ref);
    await store.deleteRun(meta.id);
    if (!options.quiet) out(`removed ${meta.id}`);
  });
}
