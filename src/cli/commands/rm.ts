import { out, type GlobalOptions } from '../io.js';
import { withStore } from '../with-store.js';

/** `agentctl rm <run>`: delete a run and its events. */
export async function runRm(ref: string, options: GlobalOptions): Promise<void> {
  await withStore(options, { create: false }, async (store) => {
    const meta = await store.resolveRun(ref);
    await store.deleteRun(meta.id);
    if (!options.quiet) out(`removed ${meta.id}`);
  });
}
