/**
 * Where a replay of the built-in loop is, shared by its parts (the tape model, the comparator, the
 * recorded tools, the tape's user input): the loop's step, and what the tape could not give it.
 * (What a replay did call by call, for the library and the proxy, is the replay engine's ReplayState.)
 */
export interface LoopProgress {
  /** The step of the latest event the loop produced. */
  step: number;
  /** The iteration at which the tape had no answer, if it happened. */
  exhaustedAt: number | null;
  /** Model calls answered by the live fallback. */
  liveCalls: number;
  /** Tools from the tape only: what the replay needed that the tape does not have (it ends there). */
  missing?: string;
}
