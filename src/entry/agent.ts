/**
 * `agentctl/agent`: the built-in agent. Run it (runAgent), or drive its loop with your own model
 * client and tools (runLoop); its configuration; the replay of one of its runs (what `agentctl
 * replay` does); and the clocks and randomness that make its runs deterministic.
 */
import { openTapeSource as openSource, type TapeSource } from '../replay/tape-source.js';
import type { TapeStore } from '../tape/tape-store.js';

// Running the built-in agent, or its loop with your own model client and tools.
export { runAgent, prepareRun, type RunAgentOptions, type PreparedRun } from '../library/run-agent.js';
export { runLoop, type LoopDeps, type LoopInput, type LoopResult, type UserInput } from '../agent/loop.js';
export type { ToolHost, ToolRunResult } from '../agent/tool-host.js';
export { AGENT_STATES, isTerminalState, exitCodeForState, type AgentState, type TerminalState } from '../core/states.js';

// Its configuration.
export { parseConfig, applyOverrides } from '../agent/load-config.js';
export { loadConfigFile } from '../agent/config-file.js';
export { DEFAULT_TOOLS, type AgentConfig, type AgentConfigInput } from '../agent/config.js';
export type { ToolSpec, ToolOutcomeStatus } from '../core/tools.js';

// The model client the loop calls, the messages it sends and what comes back.
export { LlmError, isLlmError, type LlmErrorData } from '../core/llm-error.js';
export type {
  LlmClient, LlmCallOptions, LlmRequest, LlmResponse, LlmChunk, LlmErrorKind, ToolCallDelta, Usage, FinishReason, ModelEndpoint,
} from '../core/llm.js';
export type { ChatMessage, SystemMessage, UserMessage, AssistantMessage, ToolMessage, ToolCall, ToolDefinition } from '../core/messages.js';

// The events only the built-in loop writes (the rest are the package's top level).
export type { StateEvent, UserMessageEvent, GuardrailEvent, BudgetEvent, CheckpointEvent, LeftOutTool } from '../core/events.js';

// Replay of a recorded run of the built-in agent (what `agentctl replay` does).
export {
  replayRun, type ReplayOptions as ReplayRunOptions, type ReplayResult as ReplayRunResult, type Verdict as ReplayVerdict,
} from '../replay/replay-run.js';
export type { TapeSource } from '../replay/tape-source.js';

/**
 * The tape `ref` names: a tape file when it looks like one (or exists as a file), else a run (id,
 * id prefix or name) in the store `store` opens — only then is it called.
 */
export function openTapeSource(ref: string, store: () => Promise<TapeStore>): Promise<TapeSource> {
  return openSource(ref, store);
}

export { parsePatches } from '../replay/patches.js';

// Clocks and randomness for deterministic runs.
export { ManualClock, seededRandom, systemClock, type Clock, type Random } from '../core/clock.js';
