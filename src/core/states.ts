/** Agent loop states (docs/loop.md). */
export const AGENT_STATES = [
  'RUNNING',
  'WAITING_FOR_TOOL',
  'WAITING_FOR_INPUT',
  'COMPLETED',
  'CANCELLED',
  'TIMED_OUT',
  'MAX_STEPS',
  'BUDGET_EXCEEDED',
  'ERROR',
] as const;

export type AgentState = (typeof AGENT_STATES)[number];

export type TerminalState = Extract<
  AgentState,
  'COMPLETED' | 'CANCELLED' | 'TIMED_OUT' | 'MAX_STEPS' | 'BUDGET_EXCEEDED' | 'ERROR'
>;

const TERMINAL: ReadonlySet<AgentState> = new Set<AgentState>([
  'COMPLETED',
  'CANCELLED',
  'TIMED_OUT',
  'MAX_STEPS',
  'BUDGET_EXCEEDED',
  'ERROR',
]);

export function isTerminalState(state: AgentState): state is TerminalState {
  return TERMINAL.has(state);
}

/** The process exit code for a run that ended in `state` (README, "Exit codes"). */
export function exitCodeForState(state: TerminalState): number {
  switch (state) {
    case 'COMPLETED':
      return 0;
    case 'ERROR':
      return 3;
    case 'MAX_STEPS':
      return 4;
    case 'BUDGET_EXCEEDED':
      return 5;
    case 'TIMED_OUT':
      return 6;
    case 'CANCELLED':
      return 130;
  }
}
