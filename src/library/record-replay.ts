/**
 * Record and replay any agent at the transport. `record()` and `replay()` open a session on a tape
 * (a tape file, or a run in a store) and give a `fetch` for any client that takes a `fetch` option:
 *
 *   const rec = await record({ tape: 'tapes/triage.tape.jsonl' });
 *   const client = new OpenAI({ fetch: rec.fetch });          // a real OpenAI: every endpoint, every helper
 *   const lookup = rec.recordTool('lookup', lookupFn, { idempotent: true, mutating: false });
 *   …
 *   await rec.finish();                                      // the tape file is written
 *
 * They take the same options and return the same session; they differ only in the mode they default
 * to ('record', 'replay'). `mode` chooses another (tape-session.ts), and `AGENTCTL_MODE` overrides
 * both for a whole test run. Both also wrap tool functions (recordTool), so a replay never runs a side
 * effect again.
 */
import type { TapeOptions, TapeSession } from './tape-options.js';
import { openTapeSession } from './tape-session.js';

/** Open a session on `options.tape`, recording by default (see the module comment). */
export function record(options: TapeOptions): Promise<TapeSession> {
  return openTapeSession(options, { defaultMode: 'record' });
}

/** Open a session on `options.tape`, replaying it strictly by default (see the module comment). */
export function replay(options: TapeOptions): Promise<TapeSession> {
  return openTapeSession(options, { defaultMode: 'replay' });
}
