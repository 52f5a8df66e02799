/**
 * The agentctl library API: `import { … } from 'agentctl'`.
 */
import { TapeStore, type OpenStoreOptions } from './tape/tape-store.js';

export * from './core/errors.js';
export type * from './core/events.js';
export type * from './core/messages.js';
export type * from './core/llm.js';
export type * from './core/tools.js';
export type * from './core/decisions.js';
export type { RunMeta, RunStatus, RunKind } from './core/run-meta.js';
export { TAPE_VERSION } from './core/run-meta.js';
export { AGENT_STATES, isTerminalState, exitCodeForState, type AgentState, type TerminalState } from './core/states.js';
export { ManualClock, seededRandom, systemClock, type Clock, type Random } from './core/clock.js';
export * from './guardrails/index.js';
export { TapeStore, type OpenStoreOptions } from './tape/tape-store.js';
export { openTapeFile, writeTapeFile, type TapeFile } from './tape/tape-file.js';

/** Open (creating if needed) the tape store at `dir`. */
export function openStore(dir: string, options?: OpenStoreOptions): Promise<TapeStore> {
  return TapeStore.open(dir, options);
}
