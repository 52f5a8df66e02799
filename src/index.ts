/**
 * The agentctl library API: `import { … } from 'agentctl'` — what an agent developer's program or
 * test suite uses to record and replay its own agent: the recording and replaying sessions, the
 * `openai` SDK conveniences, recorded tools, the guardrails for its own loop, the error classes, and
 * the types of what a tape holds.
 * The built-in agent, the guardrail engine and the store have subpaths of their own
 * (`agentctl/agent`, `agentctl/guardrails`, `agentctl/tape`: src/entry/). docs/library.md lists
 * every export of each (test/public-api.test.ts holds it to that). All of it is covered by semver.
 */

// Recording and replaying any agent: a recording or replaying `fetch` for any client that takes
// one, the `openai` SDK conveniences built on it, and tool functions recorded with them.
export { record, replay } from './library/record-replay.js';
export type { TapeOptions, TapeSession, SessionMode, Upstream, McpServerSpec, McpServerParameters } from './library/tape-options.js';
export { withTape, type WithTapeOptions } from './library/with-tape.js';
export { recordOpenAI, replayOpenAI, type OpenAIClientLike, type OpenAITape } from './library/record-openai.js';
export { TAPE_MODES, type TapeMode } from './core/tape-modes.js';
export { ToolNotReplayedError, type ToolFunction, type ToolPolicy } from './library/recorded-tool.js';
export type { FetchLike } from './library/fetch-like.js';
export type { FinishOptions } from './library/recording-session.js';

// The guardrails in any agent's own loop (docs/guardrails.md, "Any agent: the guardrails live"):
// the built-in loop's rules and `guardrails.*` settings, their decisions recorded onto the tape.
export { createGuardrails, type Guardrails, type GuardrailsOptions, type GuardedCall, type GuardedRun } from './library/live-guardrails.js';
export type {
  GuardrailDecision, GuardrailsConfig, ResolvedGuardrailsConfig, ToolFlags, StepCheck, ToolCheck, ToolSettled, ToolOutcome,
} from './guardrails/guardrail-session.js';
// The same guardrails driven by an agent framework's own hooks: typed structurally, none of these
// adapters loads its framework.
export { aiSdkGuardrails, type AiSdkGuardrails, type AiSdkMessage, type AiSdkStopCondition, type AiSdkToolCallOptions } from './adapters/ai-sdk.js';
export {
  langchainGuardrails, type LangChainGuardrailsMiddleware, type LangChainGuardrailsOptions, type LangChainToolMessageClass,
} from './adapters/langchain.js';
export { openaiAgentsGuardrails, type OpenAIAgentsGuardrails } from './adapters/openai-agents.js';

// What a replay did, and where a request differed from the recorded one.
export type { ReplayState, ReplayedCall, RequestDivergence } from './replay/replay-engine.js';
export type { RequestDifference } from './replay/request-difference.js';
export type { PatchInput } from './replay/patches.js';

// Errors: every expected failure is an AgentctlError with a stable `code` and its exit code
// (README, "Error codes"). ToolNotReplayedError is exported above, with the recorded tools.
export {
  AgentctlError, isAgentctlError, GuardrailStopError, InvalidOptionError, IoError, McpServerError, NotFoundError, ReplayDivergedError,
  StoreLockedError, TapeExhaustedError, TapeFormatError, UnexpectedError, UsageError, type AgentctlErrorOptions, type ErrorCode,
} from './core/errors.js';

// What a tape holds: the run's metadata and the events a recorded agent's run is made of.
export type { RunMeta } from './core/run-meta.js';
export type {
  RunEvent, RunEventType, RunStartEvent, RunEndEvent, RunTotals, LlmRequestEvent, LlmChunkEvent, LlmResponseEvent, LlmErrorEvent,
  HttpExchangeEvent, HttpReply, ToolCallEvent, ToolResultEvent, GuardrailEvent, DivergenceEvent, WarningEvent,
} from './core/events.js';
