/** The options and the session of `record()`, `replay()`, `withTape()` and the `openai` conveniences. */
import type { Clock } from '../core/clock.js';
import type { RunMeta } from '../core/run-meta.js';
import type { TapeMode } from '../core/tape-modes.js';
import type { PatchInput } from '../replay/patches.js';
import type { ReplayState } from '../replay/replay-engine.js';
import type { TapeStore } from '../tape/tape-store.js';
import type { FetchLike } from './fetch-like.js';
import type { ToolFunction, ToolPolicy } from './recorded-tool.js';
import type { FinishOptions } from './recording-session.js';
import type { Upstream } from './upstream-fetch.js';

export type { Upstream } from './upstream-fetch.js';

export interface TapeOptions {
  /**
   * The tape: a tape file (`tapes/checkout.tape.jsonl`, `.gz` for gzip), or a run in a store (its
   * directory or an open TapeStore) — for replay the run's id, id prefix or name; for a recording the
   * new run's name.
   */
  tape: string | { store: TapeStore | string; run?: string };
  /** What the session does with the tape (see TAPE_MODES). Default: 'record' for record(), 'replay' for replay(). `AGENTCTL_MODE` overrides it. */
  mode?: TapeMode;
  /** What a recorded run is about, shown by `agentctl ls/show`. Default 'library run' (new-episodes: the tape's). */
  task?: string;
  /** Extra redaction patterns (regular-expression source), on top of API keys, secret-named environment values and key-shaped strings. A replay needs the recording's, so requests hash the same. */
  redact?: string[];
  /** Measures event times and chunk offsets of a recording. Default: the system clock. */
  clock?: Clock;
  /** Where live calls really go (record; and new-episodes and passthrough unless `upstream.fetch`). Default: the global `fetch`. */
  fetch?: FetchLike;
  /** Where the live calls of new-episodes and passthrough go. Default: new-episodes, the endpoint the tape was recorded against; passthrough, where the client sent them; with the client's credentials. */
  upstream?: Upstream;
  /** Replace the answer of call N (0-based): text, or an assistant message — the shapes of `agentctl replay --patch`. */
  patches?: Readonly<Record<number, PatchInput>>;
  /** replay: refuse a request that matches no recorded one (default) — or, false, serve the next recorded call by position and report the divergence. */
  strict?: boolean;
  /** Run tools the tape has no outcome for even when they are mutating or not idempotent (replay). new-episodes runs them by default. */
  allowSideEffects?: boolean;
}

/** A mode as a session runs it: replay-or-record is replay or record, depending on the tape. */
export type SessionMode = Exclude<TapeMode, 'replay-or-record'>;

export interface TapeSession {
  /** The session's `fetch`: pass it as a client's `fetch` option. */
  readonly fetch: FetchLike;
  /** What the session does: `replay-or-record` resolved to `replay` or `record`; `new-episodes` with no tape yet is `record`. */
  readonly mode: SessionMode;
  /** The tape as messages name it: the file's path, or `run <ref> in <store>`. */
  readonly tape: string;
  /** The run being recorded (record, new-episodes; created at the first call), else undefined. */
  readonly runId: string | undefined;
  /** What the replay has done so far (a live view), when the session serves from a tape (replay, new-episodes). */
  readonly replay: ReplayState | undefined;
  /** Wrap a tool function so its calls and outcomes are recorded, and served on replay (see ToolPolicy). */
  recordTool<F extends ToolFunction>(name: string, fn: F, policy?: ToolPolicy): F;
  /**
   * A stdio MCP server's command wrapped in `agentctl mcp`, joined to this session: pass the result
   * as an MCP client's stdio server (the SDK's StdioClientTransport, @openai/agents' MCPServerStdio),
   * and the server's traffic is recorded onto the session's run, or served from its tape without
   * starting the server (docs/mcp.md). The first call starts a local link the session stops at finish().
   */
  mcpServer(server: McpServerSpec): Promise<McpServerParameters>;
  /**
   * End the session: a recording's run ends (`run_end` with the totals; a tape file is written, replacing
   * the old one whole) and its meta is returned; undefined when nothing was recorded. Idempotent.
   */
  finish(options?: FinishOptions): Promise<RunMeta | undefined>;
  /**
   * In replay: throw ReplayDivergedError (exit 7) unless the replay reproduced the tape — every request
   * matched a recorded call, none went past its end, and every recorded call was asked for; with a
   * strict replay, the same of the MCP servers' traffic (mcpServer()). The message names the tape and
   * the first differing field. In the other modes it does nothing.
   */
  assertReproduced(): void;
}

/** A stdio MCP server as a client's config names it (`mcpServer()`). */
export interface McpServerSpec {
  /** The server's name on the tape (1-48 of `A-Z a-z 0-9 _ -`): a replay finds the server's recorded traffic by it. */
  name: string;
  command: string;
  args?: readonly string[];
  /** Variables for the server on top of a small default (HOME, LOGNAME, PATH, SHELL, TERM, USER). */
  env?: Readonly<Record<string, string>>;
  cwd?: string;
}

/** What a stdio MCP client starts: the shape of the SDK's StdioServerParameters and of @openai/agents' MCPServerStdio options. */
export interface McpServerParameters {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}
