/**
 * withTape: one test on one tape file, whatever the test runner (vitest, jest, node:test):
 *
 *   it('checks out', () => withTape('checkout', async ({ fetch }) => {
 *     const client = new OpenAI({ fetch });
 *     …
 *   }));
 *
 * The tape is `<dir>/<name>.tape.jsonl` (dir 'tapes', relative to the working directory; a name that
 * is no clean path gets a short hash of itself appended, see tapeName). The mode
 * is 'replay-or-record' unless asked otherwise (`AGENTCTL_MODE` wins): the first run records the
 * tape, every run after replays it offline and strictly. After `fn`, the session is finished and, when
 * it replayed, must have reproduced the tape: otherwise ReplayDivergedError (exit 7) names the tape
 * and the first differing field. When `fn` throws in a replay that diverged, that divergence is what
 * is thrown (the error `fn` threw is its `cause`): it is why `fn` failed. A recording `fn` throws in is
 * still written, its run ended ERROR with the error's message, and the error is thrown on.
 */
import { createHash } from 'node:crypto';
import { join, posix } from 'node:path';
import { InvalidOptionError } from '../core/errors.js';
import { notReproduced } from './reproduced.js';
import type { TapeOptions, TapeSession } from './tape-options.js';
import { openTapeSession } from './tape-session.js';

export interface WithTapeOptions extends Omit<TapeOptions, 'tape'> {
  /** The directory of tape files. Default 'tapes' (relative to the working directory). */
  dir?: string;
  /** Write the tape gzipped (`<name>.tape.jsonl.gz`). */
  gzip?: boolean;
}

/** Run `fn` on the tape `name` (see the module comment); resolves to what `fn` returns. */
export async function withTape<T>(name: string, fn: (session: TapeSession) => T | Promise<T>, options: WithTapeOptions = {}): Promise<T> {
  const { dir = 'tapes', gzip = false, ...rest } = options;
  const tape = join(dir, `${tapeName(name)}.tape.jsonl${gzip ? '.gz' : ''}`);
  const session = await openTapeSession({ ...rest, tape }, { defaultMode: 'replay-or-record' });
  let result: T;
  try {
    result = await fn(session);
  } catch (error) {
    // The error fn threw is the one to see: a failure to write the tape now does not hide it.
    await session.finish({ state: 'ERROR', reason: error instanceof Error ? error.message : String(error) }).catch(() => undefined);
    if (session.mode === 'replay' && session.replay !== undefined) {
      const diverged = notReproduced(session.replay, session.tape, { cause: error });
      if (diverged !== undefined) throw diverged;
    }
    throw error;
  }
  await session.finish();
  session.assertReproduced();
  return result;
}

/**
 * A test's name as a path under the tapes directory: each `/`-separated part with every character
 * but letters, digits, `.`, `_` and `-` made `-`; no empty, `.` or `..` part, nothing absolute. Two
 * names must never share a tape (a test would replay another's): a name that is such a path already
 * is kept as it is, and one that had to change gets `-` and the first 6 hex digits of its SHA-256
 * appended, so `a b`, `a:b` and `a-b` are three tapes (`a-b-<hash>`, `a-b-<hash>`, `a-b`).
 */
export function tapeName(name: string): string {
  const parts = name.split('/').map((part) => part.trim().replace(/[^\p{L}\p{N}._-]+/gu, '-').replace(/^-+|-+$/g, ''));
  const kept = parts.filter((part) => part !== '' && part !== '.' && part !== '..');
  const path = posix.normalize(kept.join('/'));
  if (kept.length === 0 || posix.isAbsolute(path)) throw new InvalidOptionError(`withTape: ${JSON.stringify(name)} is no tape name`, { hint: 'name it with letters or digits, e.g. the test\'s name' });
  return path === name ? path : `${path}-${createHash('sha256').update(name).digest('hex').slice(0, 6)}`;
}
