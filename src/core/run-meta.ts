import type { RunTotals } from './events.js';
import type { TerminalState } from './states.js';

/** Current version of the tape format (store values and portable files). */
export const TAPE_VERSION = 1;

export type RunStatus = 'recording' | 'complete' | 'incomplete';
export type RunKind = 'record' | 'replay';
/** What recorded a run: `agentctl record`/`replay`, the library (a recording fetch), or `agentctl proxy`. */
export type RunSource = 'cli' | 'library' | 'proxy';

/** One `agentctl ci --update` of a tape. */
export interface TapeUpdate {
  /** ISO-8601 wall-clock time of the rewrite. */
  at: string;
  note: string;
}

/**
 * What recorded a run. Tapes from before `source` was kept: a run of the library has an empty config
 * (the built-in loop always records its whole config).
 */
export function recordedBy(meta: Pick<RunMeta, 'source' | 'config'>): RunSource {
  return meta.source ?? (Object.keys(meta.config).length === 0 ? 'library' : 'cli');
}

/** How to replay a run `agentctl replay` cannot: it was not the built-in loop that made it. */
export function replayHint(meta: Pick<RunMeta, 'id' | 'name'>, source: RunSource): string {
  const ref = meta.name ?? meta.id;
  const proxy = `serve it to your agent with \`agentctl proxy --replay ${ref}\``;
  return source === 'proxy' ? proxy : `replay it in your agent's code with replayOpenAI() or replay() from 'agentctl', or ${proxy}`;
}

/** What the store keeps about a run, besides its events. Never holds a key or a token. */
export interface RunMeta {
  /** ULID: sortable by creation time. */
  id: string;
  kind: RunKind;
  /** What recorded it; absent on tapes from before it was kept (they are all `cli`). */
  source?: RunSource;
  /** For a replay: the run or tape it replayed. */
  parentId?: string;
  name?: string;
  /** ISO-8601 wall-clock time the run was created. */
  createdAt: string;
  task: string;
  model: string;
  baseUrl?: string;
  config: Record<string, unknown>;
  seed: number;
  status: RunStatus;
  finalState?: TerminalState;
  totals?: RunTotals;
  /** Number of events written; kept up to date when the run finishes. */
  eventCount?: number;
  /** Rewrites of a golden tape by `agentctl ci --update`: when, and why (the run's own data is kept). */
  updates?: TapeUpdate[];
  tapeVersion: number;
}
