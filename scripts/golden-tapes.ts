/**
 * The golden tapes: one row per file in tapes/, with everything that makes the run what it is —
 * the scripted scenario (fixtures/scenarios/), the config (fixtures/configs/), the workspace
 * (fixtures/workspaces/), the task, the seed, extra `agentctl record` flags, what is typed on
 * standard input — the exit code `agentctl record` must give, and the checks the recording must
 * pass before it is written. scripts/record-tapes.ts records them (`npm run tapes:record`);
 * test/golden-tapes.test.ts re-records each and replays the committed files.
 */
import type { TerminalState } from '../src/core/states.js';

/** One line of `agentctl record --json`: an event, or the closing summary. */
export type RecordedLine = Record<string, unknown>;

/** Something a recording must show; a recording that fails one is not written. */
export interface TapeCheck {
  /** What it looks for, as the refusal names it: "skip duplicate_success (read_file) at step 2". */
  what: string;
  holds(lines: readonly RecordedLine[]): boolean;
}

export interface GoldenTape {
  /** The tape is `tapes/<name>.tape.jsonl`; `npm run tapes:record -- <name>` re-records just it. */
  name: string;
  /** One line: what the tape is evidence of. */
  shows: string;
  /** `fixtures/scenarios/<scenario>.json`, played by the scripted server. */
  scenario: string;
  /** `fixtures/configs/<config>.config.json`. */
  config: string;
  /** `fixtures/workspaces/<workspace>/`, copied to a temp directory for the run. */
  workspace: string;
  task: string;
  seed: number;
  /** `--name` of the recorded run. */
  runName: string;
  /** More `agentctl record` flags (`--stream`, `--interactive`). */
  flags?: readonly string[];
  /** Written to the recorder's standard input, which is then closed (end of input). */
  input?: string;
  /** Send SIGINT (Ctrl-C) to the recorder once the server has received this many chat requests. */
  interruptAfterRequests?: number;
  /** How the run ends: its final state and the start of its reason. */
  end: { state: TerminalState; reason: string };
  /** The exit code of `agentctl record`: its final state's. */
  exitCode: number;
  /** What the run must show besides its end. */
  checks: readonly TapeCheck[];
}

const guardrails = (lines: readonly RecordedLine[]): RecordedLine[] => lines.filter((l) => l.type === 'guardrail');

/** A guardrail decision with this verdict and rule, optionally at a step and for a tool. */
export function decision(verdict: string, rule: string, where: { step?: number; tool?: string } = {}): TapeCheck {
  const at = `${where.tool === undefined ? '' : ` (${where.tool})`}${where.step === undefined ? '' : ` at step ${where.step}`}`;
  return {
    what: `${verdict} ${rule}${at}`,
    holds: (lines) => guardrails(lines).some((l) => l.verdict === verdict && l.rule === rule
      && (where.step === undefined || l.step === where.step) && (where.tool === undefined || l.tool === where.tool)),
  };
}

/** No decision with this verdict and rule anywhere in the run. */
export function noDecision(verdict: string, rule: string): TapeCheck {
  return {
    what: `no ${verdict} ${rule}`,
    holds: (lines) => !guardrails(lines).some((l) => l.verdict === verdict && l.rule === rule),
  };
}

/** The run ends in `state`, with a reason starting with `reason`. */
export function ends(state: TerminalState, reason: string): TapeCheck {
  return {
    what: `run_end ${state} (${reason}…)`,
    holds: (lines) => lines.some((l) => l.type === 'run_end' && l.state === state && String(l.reason).startsWith(reason)),
  };
}

/** At least `min` events of `type` that satisfy `match`. */
export function events(what: string, type: string, min: number, match: (line: RecordedLine) => boolean = () => true): TapeCheck {
  return { what, holds: (lines) => lines.filter((l) => l.type === type && match(l)).length >= min };
}

/** No event of `type` satisfies `match`. */
export function noEvents(what: string, type: string, match: (line: RecordedLine) => boolean = () => true): TapeCheck {
  return { what, holds: (lines) => !lines.some((l) => l.type === type && match(l)) };
}

/** The tool names of the calls one model reply asked for, at `step`. */
function toolsAt(lines: readonly RecordedLine[], step: number): string[] {
  const response = lines.find((l) => l.type === 'llm_response' && l.step === step);
  const message = (response?.response as { message?: { tool_calls?: { function: { name: string } }[] } } | undefined)?.message;
  return (message?.tool_calls ?? []).map((c) => c.function.name);
}

/** The model's reply at `step` asked for these tools, in this order. */
export function replyCalls(step: number, tools: readonly string[]): TapeCheck {
  return {
    what: `one reply at step ${step} calling ${tools.join(', ')}`,
    holds: (lines) => JSON.stringify(toolsAt(lines, step)) === JSON.stringify(tools),
  };
}

const DEMO_TASK = 'The demo service will not start. Find out which host and port it is configured to listen on.';
/** The usual end: the model answered without asking for tools. */
const ANSWERED = { state: 'COMPLETED', reason: 'the model gave its final answer' } as const;
const LOG_TASK = 'The demo service crashed last night. Find its log file and tell me the last error it logged.';

/** Every golden tape, in the order of tapes/README.md. */
export const GOLDEN_TAPES: readonly GoldenTape[] = [
  {
    name: 'demo-loop',
    shows: 'a read allowed, the identical read skipped as a duplicate, blocked on its 3rd attempt, then the repetition stop (ERROR)',
    scenario: 'demo-loop', config: 'demo', workspace: 'demo', seed: 42, runName: 'demo',
    task: DEMO_TASK,
    end: { state: 'ERROR', reason: 'repetition' }, exitCode: 3,
    checks: [
      decision('allow', 'first_call', { step: 1, tool: 'read_file' }),
      decision('skip', 'duplicate_success', { step: 2, tool: 'read_file' }),
      decision('block', 'identical_call_block', { step: 3, tool: 'read_file' }),
      decision('stuck', 'repetition', { step: 4 }),
    ],
  },
  {
    name: 'failure-halt',
    shows: 'consecutive failures of read_file: warned at the 3rd, halted at the 8th, the call after the halt denied (ERROR tool_failures)',
    scenario: 'failure-halt', config: 'failure-halt', workspace: 'demo', seed: 42, runName: 'failure-halt',
    task: LOG_TASK,
    end: { state: 'ERROR', reason: 'tool_failures' }, exitCode: 3,
    checks: [
      replyCalls(0, ['read_file', 'read_file', 'read_file']),
      decision('warn', 'consecutive_failures_warn', { step: 0, tool: 'read_file' }),
      decision('halt', 'consecutive_failures_halt', { step: 1, tool: 'read_file' }),
      decision('block', 'after_halt', { step: 1, tool: 'list_dir' }),
    ],
  },
  {
    name: 'halt-nudge',
    shows: 'with haltNudges 1 the failure halt becomes a "change approach" message: the model lists the project instead and finishes (COMPLETED)',
    scenario: 'halt-nudge', config: 'halt-nudge', workspace: 'demo', seed: 42, runName: 'halt-nudge',
    task: LOG_TASK,
    end: ANSWERED, exitCode: 0,
    checks: [
      decision('warn', 'consecutive_failures_warn', { step: 1, tool: 'read_file' }),
      decision('halt', 'consecutive_failures_halt', { step: 2, tool: 'read_file' }),
      events('a halt_nudge user message at step 2', 'user_message', 1, (l) => l.internal === 'halt_nudge' && l.step === 2),
      events('list_dir runs after the nudge', 'tool_result', 1, (l) => l.tool === 'list_dir' && l.status === 'ok' && Number(l.step) > 2),
    ],
  },
  {
    name: 'max-tokens-recovery',
    shows: 'an answer cut off at the token limit twice (finish_reason length), continued each time, completed on the third part (COMPLETED)',
    scenario: 'max-tokens-recovery', config: 'max-tokens', workspace: 'demo', seed: 42, runName: 'max-tokens-recovery',
    task: DEMO_TASK,
    end: ANSWERED, exitCode: 0,
    checks: [
      decision('recover', 'max_tokens_recovery', { step: 1 }),
      decision('recover', 'max_tokens_recovery', { step: 2 }),
      events('two max_tokens_recovery user messages', 'user_message', 2, (l) => l.internal === 'max_tokens_recovery'),
    ],
  },
  {
    name: 'budget-exceeded',
    shows: 'a token budget: within it at step 0, the near-budget warning at step 1 (reserveTokens), over it at step 2 (BUDGET_EXCEEDED)',
    scenario: 'budget-exceeded', config: 'budget', workspace: 'demo', seed: 42, runName: 'budget-exceeded',
    task: DEMO_TASK,
    end: { state: 'BUDGET_EXCEEDED', reason: 'used 2350 tokens of a budget of 2000' }, exitCode: 5,
    checks: [
      decision('warn', 'near_token_budget', { step: 1 }),
      events('a budget event with nearBudget at step 1', 'budget', 1, (l) => l.nearBudget === true && l.step === 1),
      noEvents('no tool call at step 2', 'tool_call', (l) => l.step === 2),
    ],
  },
  {
    name: 'max-steps',
    shows: 'three steps, each reading something new, and the step limit (limits.maxSteps 3) ends the run (MAX_STEPS)',
    scenario: 'max-steps', config: 'max-steps', workspace: 'demo', seed: 42, runName: 'max-steps',
    task: DEMO_TASK,
    end: { state: 'MAX_STEPS', reason: 'reached the limit of 3 steps' }, exitCode: 4,
    checks: [
      events('three model calls', 'llm_request', 3),
    ],
  },
  {
    name: 'timed-out',
    shows: 'a model reply that would take 1.5 s in a run limited to 1 s: the deadline stops the call at 1 s (TIMED_OUT)',
    scenario: 'timed-out', config: 'timeout', workspace: 'demo', seed: 42, runName: 'timed-out',
    task: DEMO_TASK,
    end: { state: 'TIMED_OUT', reason: 'run time exceeded the limit of 1000 ms during the model call' }, exitCode: 6,
    checks: [
      events('the first reply acted on', 'tool_result', 1),
      noEvents('the late reply never arrives', 'llm_response', (l) => l.step === 1),
    ],
  },
  {
    name: 'provider-retries',
    shows: 'model calls retried: after a 429 with Retry-After (waits 1 s as told) and a 503, and after a 500 (seeded back-off) (COMPLETED)',
    scenario: 'provider-retries', config: 'retries', workspace: 'demo', seed: 42, runName: 'provider-retries',
    task: DEMO_TASK,
    end: ANSWERED, exitCode: 0,
    checks: [
      events('a 429 retried after its Retry-After', 'llm_error', 1, (l) => l.status === 429 && l.retryAfterMs === 1000 && l.retryInMs === 1000),
      events('a 503 retried', 'llm_error', 1, (l) => l.status === 503 && typeof l.retryInMs === 'number'),
      events('a 500 retried', 'llm_error', 1, (l) => l.status === 500 && typeof l.retryInMs === 'number'),
      events('step 0 answered on attempt 2', 'llm_response', 1, (l) => l.step === 0 && l.attempt === 2),
    ],
  },
  {
    name: 'stream-cut',
    shows: 'a streamed reply whose connection breaks half way through a tool call, retried and received whole, then a streamed answer (COMPLETED)',
    scenario: 'stream-cut', config: 'retries', workspace: 'demo', seed: 42, runName: 'stream-cut',
    task: DEMO_TASK,
    flags: ['--stream'],
    end: ANSWERED, exitCode: 0,
    checks: [
      events('part of the tool call streamed before the cut', 'llm_chunk', 1,
        (l) => l.step === 0 && l.attempt === 0 && (l.chunk as { toolCalls?: unknown[] }).toolCalls !== undefined),
      events('the cut itself, as a chunk with an error', 'llm_chunk', 1,
        (l) => l.step === 0 && l.attempt === 0 && (l.chunk as { error?: string }).error !== undefined),
      events('the cut stream retried', 'llm_error', 1, (l) => l.step === 0 && l.attempt === 0 && typeof l.retryInMs === 'number'),
      events('step 0 answered on attempt 1', 'llm_response', 1, (l) => l.step === 0 && l.attempt === 1),
    ],
  },
  {
    name: 'context-trim',
    shows: 'a small context window: sliding_window drops the oldest tool steps from later requests, a warning each time (COMPLETED)',
    scenario: 'context-trim', config: 'context-window', workspace: 'calc', seed: 42, runName: 'context-trim',
    task: 'Tell me what this project is and what state it is in.',
    end: ANSWERED, exitCode: 0,
    checks: [
      events('sliding_window warnings at steps 2 and 5', 'warning', 2,
        (l) => [2, 5].includes(Number(l.step)) && String(l.message).startsWith('context: sliding_window removed')),
    ],
  },
  {
    name: 'interactive-session',
    shows: '--interactive: three turns with the user\'s messages from standard input; the same read in a new turn runs again; end of input ends it (COMPLETED)',
    scenario: 'interactive-session', config: 'demo', workspace: 'demo', seed: 42, runName: 'interactive-session',
    task: 'Which port does the demo service listen on?',
    flags: ['--interactive'], input: 'And on which host?\nThanks!\n',
    end: { state: 'COMPLETED', reason: 'the session ended' }, exitCode: 0,
    checks: [
      events('the task and two typed messages', 'user_message', 3, (l) => l.internal === undefined),
      events('waits for input after each turn', 'state', 3, (l) => l.to === 'WAITING_FOR_INPUT'),
      decision('allow', 'first_call', { step: 2, tool: 'read_file' }),
      noDecision('skip', 'duplicate_success'),
    ],
  },
  {
    name: 'parallel-tool-calls',
    shows: 'one reply with four tool calls (list_dir, read_file twice, grep_files), run in order, each with its decisions and result (COMPLETED)',
    scenario: 'parallel-tool-calls', config: 'demo', workspace: 'demo', seed: 42, runName: 'parallel-tool-calls',
    task: DEMO_TASK,
    end: ANSWERED, exitCode: 0,
    checks: [
      replyCalls(0, ['list_dir', 'read_file', 'read_file', 'grep_files']),
      events('four results at step 0', 'tool_result', 4, (l) => l.step === 0 && l.status === 'ok'),
    ],
  },
  {
    name: 'mutation-resets-dedup',
    shows: 'read src/add.js, edit it, read it again: the second read runs (the edit made the first stale), not skipped; the test passes (COMPLETED)',
    scenario: 'mutation-resets-dedup', config: 'fix', workspace: 'calc', seed: 42, runName: 'mutation-resets-dedup',
    task: 'Make sh test.sh pass.',
    end: ANSWERED, exitCode: 0,
    checks: [
      decision('allow', 'first_call', { step: 0, tool: 'read_file' }),
      events('edit_file succeeds at step 1', 'tool_result', 1, (l) => l.step === 1 && l.tool === 'edit_file' && l.status === 'ok'),
      decision('allow', 'success_before_state_change', { step: 2, tool: 'read_file' }),
      noDecision('skip', 'duplicate_success'),
      events('the second read shows the fix', 'tool_result', 1, (l) => l.step === 2 && String(l.output).includes('return a + b;')),
    ],
  },
  {
    name: 'cancelled',
    shows: 'Ctrl-C (SIGINT) while the second model call is waiting for its answer (CANCELLED)',
    scenario: 'cancelled', config: 'demo', workspace: 'demo', seed: 42, runName: 'cancelled',
    task: DEMO_TASK,
    interruptAfterRequests: 2,
    end: { state: 'CANCELLED', reason: 'cancelled by the user' }, exitCode: 130,
    checks: [
      events('two model requests', 'llm_request', 2),
    ],
  },
];

/** The problems of a recording: the checks it fails (none: it shows what the tape is for). */
export function failedChecks(tape: GoldenTape, lines: readonly RecordedLine[]): string[] {
  const checks = [...tape.checks, ends(tape.end.state, tape.end.reason)];
  return checks.filter((check) => !check.holds(lines)).map((check) => check.what);
}

/** Throws, naming what is missing and what the run did instead, unless every check holds. */
export function checkRecording(tape: GoldenTape, lines: readonly RecordedLine[]): void {
  const failed = failedChecks(tape, lines);
  if (failed.length === 0) return;
  const verdicts = guardrails(lines).map((l) => `${String(l.step)}:${String(l.verdict)}:${String(l.rule)}`);
  const end = lines.find((l) => l.type === 'run_end');
  throw new Error(
    `the ${tape.name} run does not show what its tape is for: missing ${failed.join('; ')}; ` +
      `ended ${String(end?.state)} (${String(end?.reason)}); decisions seen: ${verdicts.join(' ')}`,
  );
}
