/**
 * What a session does with its tape: one word, shared by the library (`record`, `replay`,
 * `withTape`), `agentctl proxy --mode` and `agentctl run`, so a choice made in one is spelled the
 * same in the others. The words are the record modes test suites know (vcrpy's `record_mode`,
 * Polly.js's `mode`), in agentctl's terms:
 *
 * - `record`: every call goes to the model and is recorded; the tape is replaced when the session ends.
 * - `replay`: offline and strict — a call the tape has no match for is refused, naming the first
 *   differing field; nothing reaches the network.
 * - `replay-or-record`: `replay` when the tape exists, `record` when it does not (record once, then
 *   replay in every run after).
 * - `new-episodes`: what the tape has a match for is served from it, anything else goes to the model;
 *   the session — served and new calls, in the order they were made — becomes the tape.
 * - `passthrough`: every call goes to the model, nothing is recorded or served.
 *
 * `AGENTCTL_MODE` in the environment overrides the mode a program asks for, for a whole test run
 * (e.g. `AGENTCTL_MODE=replay` in CI, `AGENTCTL_MODE=record` to re-record).
 */
import { InvalidOptionError } from './errors.js';

export const TAPE_MODES = ['record', 'replay', 'replay-or-record', 'new-episodes', 'passthrough'] as const;
export type TapeMode = (typeof TAPE_MODES)[number];

/** The environment variable that overrides the mode of every session of a process. */
export const MODE_ENV = 'AGENTCTL_MODE';

export function isTapeMode(value: unknown): value is TapeMode {
  return typeof value === 'string' && (TAPE_MODES as readonly string[]).includes(value);
}

/**
 * The mode a session runs in: `AGENTCTL_MODE` when set (and not empty), else the one asked for.
 * A value that is not a mode is refused (exit 2), naming where it came from.
 */
export function effectiveMode(asked: TapeMode, env: NodeJS.ProcessEnv = process.env): TapeMode {
  const fromEnv = env[MODE_ENV];
  if (fromEnv === undefined || fromEnv === '') return checkMode(asked, 'mode');
  return checkMode(fromEnv, MODE_ENV);
}

/** `value` as a mode, or an InvalidOptionError naming `where` and the modes there are. */
export function checkMode(value: unknown, where: string): TapeMode {
  if (isTapeMode(value)) return value;
  const shown = typeof value === 'string' ? JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value) : typeof value;
  throw new InvalidOptionError(`${where}: ${shown} is not a mode`, { hint: `one of ${TAPE_MODES.join(', ')}` });
}
