import type { TapeStore } from '../tape/tape-store.js';
import type { GlobalOptions } from './io.js';
import { openStore, storeDir } from './store-dir.js';

/** Open the store named by the options, run `fn`, and always close it. */
export async function withStore<T>(
  options: GlobalOptions,
  open: { create?: boolean; readOnly?: boolean },
  fn: (store: TapeStore) => Promise<T>,
): Promise<T> {
  const store = await openStore(storeDir(options.store), open);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}
