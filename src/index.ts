/**
 * The agentctl library API: `import { … } from 'agentctl'`. A deliberate list — what a program
 * recording, replaying or running agents needs, the store and tape files, the guardrail engine, and
 * the types — not every internal module. Everything here is covered by the project's semver.
 */
import { TapeStore, type OpenStoreOptions } from './tape/tape-store.js';

// Recording and replaying any agent: a recording or replaying `fetch` for any client that takes
// one, the `openai` SDK conveniences built on it, and tool functions recorded with them.
export { record, replay } from './library/record-replay.js';
export type { TapeOptions, TapeSession, SessionMode, Upstream } from './library/tape-options.js';
export { withTape, type WithTapeOptions } from './library/with-tape.js';
export { recordOpenAI, replayOpenAI, type OpenAIClientLike, type OpenAITape } from './library/record-openai.js';
export { TAPE_MODES, type TapeMode } from './core/tape-modes.js';
export { ToolNotReplayedError, type ToolFunction, type ToolPolicy } from './library/recorded-tool.js';
export type { FetchLike } from './library/fetch-like.js';
export type { FinishOptions } from './library/recording-session.js';
export type { ReplayState, ReplayedCall, RequestDivergence } from './replay/replay-engine.js';
export type { RequestDifference } from './replay/request-difference.js';
export type { PatchInput } from './replay/patches.js';

// The built-in agent: run it, or drive its loop with your own model client and tools.
export { runAgent, prepareRun, type RunAgentOptions, type PreparedRun } from './library/run-agent.js';
export { runLoop, type LoopDeps, type LoopInput, type LoopResult, type UserInput } from './agent/loop.js';
export type { ToolHost, ToolRunResult } from './agent/tool-host.js';
export { parseConfig, applyOverrides } from './agent/load-config.js';
export { loadConfigFile } from './agent/config-file.js';
export { DEFAULT_TOOLS, type AgentConfig, type AgentConfigInput } from './agent/config.js';

// Replay of a recorded run (what `agentctl replay` does).
export { replayRun, type ReplayOptions, type ReplayResult, type Verdict } from './replay/replay-run.js';
export { openTapeSource, type TapeSource } from './replay/tape-source.js';
export { parsePatches } from './replay/patches.js';

// The store and portable tape files.
export { TapeStore, type OpenStoreOptions, type NewRun } from './tape/tape-store.js';
export { openTapeFile, writeTapeFile, type TapeFile } from './tape/tape-file.js';
export { TAPE_VERSION, type RunMeta, type RunStatus, type RunKind, type TapeUpdate } from './core/run-meta.js';

/** Open (creating if needed) the tape store at `dir`. */
export function openStore(dir: string, options?: OpenStoreOptions): Promise<TapeStore> {
  return TapeStore.open(dir, options);
}

// The guardrail engine (docs/guardrails.md).
export {
  canonicalJson, callKey, parseToolCall, ReplayControl, LoopGuard, LoopGuardrails, runToolCalls, RULES,
  type CallPolicy, type DecisionInput, type LoopGuardConfig, type LoopGuardrailsConfig, type PipelineItem, type RuleName,
  type StepCall, type ToolCallPipelineOptions, type ToolExecutor,
} from './guardrails/index.js';

// Redaction, as every path of agentctl applies it.
export { createRedactor, runRedactor, REDACTED, type Redactor, type RedactorOptions } from './core/redact.js';

// Clocks and randomness for deterministic runs.
export { ManualClock, seededRandom, systemClock, type Clock, type Random } from './core/clock.js';

// Errors: every expected failure is an AgentctlError with a stable `code` and its exit code
// (README, "Error codes"). ToolNotReplayedError is exported above, with the recorded tools.
export {
  AgentctlError, isAgentctlError, InvalidOptionError, IoError, NotFoundError, ReplayDivergedError, StoreLockedError, TapeExhaustedError,
  TapeFormatError, UnexpectedError, UsageError, type ErrorCode,
} from './core/errors.js';
export { LlmError, isLlmError, type LlmErrorData } from './core/llm-error.js';

// Types.
export type * from './core/events.js';
export type * from './core/messages.js';
export type * from './core/llm.js';
export type * from './core/tools.js';
export type * from './core/decisions.js';
export { AGENT_STATES, isTerminalState, exitCodeForState, type AgentState, type TerminalState } from './core/states.js';
