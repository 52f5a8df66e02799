import type { TapeSource } from '../replay/tape-source.js';
import { isTapePath, runOrDirectory } from '../tape/tape-path.js';
import type { GlobalOptions } from './io.js';
import { openStore, storeDir } from './store-dir.js';

/**
 * Read what a `<run>` argument names with `fn`, as replay/tape-source.ts finds it: a tape file (its
 * reader loaded only then, so a run in the store is read as fast as before), or a run in the store,
 * opened read-only and closed again.
 */
export async function withTapeSource<T>(ref: string, options: GlobalOptions, fn: (source: TapeSource) => Promise<T>): Promise<T> {
  if (isTapePath(ref)) {
    const [{ openTapeFile }, { checkedTapes }] = await Promise.all([import('../tape/tape-file.js'), import('./tape-cache.js')]);
    const tape = await openTapeFile(ref, { checked: checkedTapes() });
    return fn({ meta: tape.meta, label: ref, events: () => tape.events() });
  }
  const store = await runOrDirectory(ref, openStore(storeDir(options.store), { readOnly: true }));
  try {
    const meta = await store.resolveRun(ref);
    return await fn({ meta, label: meta.id, events: () => store.readEvents(meta.id) });
  } finally {
    await store.close();
  }
}
