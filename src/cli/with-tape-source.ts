import type { TapeSource } from '../replay/tape-source.js';
import { NotFoundError } from '../core/errors.js';
import { directoryInstead, isTapePath } from '../tape/tape-path.js';
import type { GlobalOptions } from './io.js';
import { withStore } from './with-store.js';

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
  let found = false;
  return withStore(options, { readOnly: true }, async (store) => {
    const meta = await store.resolveRun(ref);
    found = true;
    return fn({ meta, label: meta.id, events: () => store.readEvents(meta.id) });
  }).catch((error: unknown) => {
    // No store at all: a directory of that name is still the error to give (tape-path.ts).
    throw !found && error instanceof NotFoundError ? directoryInstead(ref, error) : error;
  });
}
