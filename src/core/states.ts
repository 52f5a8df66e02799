/** The states a run ends in (docs/loop.md): a run_end event's `state`, a finished run's `finalState`. */
export const TERMINAL_STATES = ['COMPLETED', 'CANCELLED', 'TIMED_OUT', 'MAX_STEPS', 'BUDGET_EXCEEDED', 'ERROR'] as const;

/** Agent loop states (docs/loop.md): the running ones, then the terminal ones. */
export const AGENT_STATES = ['RUNNING', 'WAITING_FOR_TOOL', 'WAITING_FOR_INPUT', ...TERMINAL_STATES] as const;

export type AgentState = (typeof AGENT_STATES)[number];

export type TerminalState = (typeof TERMINAL_STATES)[number];

const TERMINAL: ReadonlySet<AgentState> = new Set<AgentState>(TERMINAL_STATES);

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
