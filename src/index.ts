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
export { TapeStore, type OpenStoreOptions, type NewRun } from './tape/tape-store.js';
export { openTapeFile, writeTapeFile, type TapeFile } from './tape/tape-file.js';
export { RunRecorder } from './tape/run-recorder.js';
export { createRedactor, secretsFromEnv, REDACTED, type Redactor, type RedactorOptions } from './core/redact.js';
export { LlmError, isLlmError, type LlmErrorData } from './core/llm-error.js';

// The built-in agent.
export { runAgent, prepareRun, type RunAgentOptions, type PreparedRun } from './agent/run-agent.js';
export { buildRegistry } from './agent/tool-registry.js';
export { runLoop, type LoopDeps, type LoopInput, type LoopResult, type UserInput } from './agent/loop.js';
export { agentConfigSchema, DEFAULT_TOOLS, type AgentConfig, type AgentConfigInput } from './agent/config.js';
export { parseConfig, loadConfigFile, applyOverrides, configDirOf } from './agent/load-config.js';
export { liveToolHost, type ToolHost, type ToolRunResult } from './agent/tool-host.js';
export { OpenAiLlm } from './llm/openai-llm.js';
export * from './tools/index.js';

// Replay.
export { replayRun, type ReplayOptions, type ReplayResult, type Verdict } from './replay/replay-run.js';
export { openTapeSource, type TapeSource } from './replay/tape-source.js';
export { parsePatches } from './replay/patches.js';
export { TapeLlm, type TapeLlmOptions } from './llm/tape-llm.js';

// Recording and replaying any agent written on the openai SDK.
export * from './llm/index.js';

/** Open (creating if needed) the tape store at `dir`. */
export function openStore(dir: string, options?: OpenStoreOptions): Promise<TapeStore> {
  return TapeStore.open(dir, options);
}
