/** What the parts of one replay share: where the loop is, and where the tape ran out. */
export interface ReplayState {
  /** The step of the latest event the loop produced. */
  step: number;
  /** The iteration at which the tape had no answer, if it happened. */
  exhaustedAt: number | null;
  /** Model calls answered by the live fallback. */
  liveCalls: number;
  /** Tools from the tape only: what the replay needed that the tape does not have (it ends there). */
  missing?: string;
}
