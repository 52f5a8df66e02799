import type { RunMeta } from '../core/run-meta.js';
import type { TapeStore } from '../tape/tape-store.js';

/** What a recording writes into, and what happens when it ends. */
export interface RecordTarget {
  store: TapeStore;
  /** The new run's name. */
  runName?: string;
  /** The run is finished: put it where it belongs (a file: exported, the directory removed) and let go of the store. */
  done(meta: RunMeta): Promise<void>;
  /** Let go of the store, keeping what it holds. */
  release(): Promise<void>;
}
