/** How a run is named on the command line: by full id, unique id prefix (any case), or name. */
import { InvalidOptionError, NotFoundError } from '../core/errors.js';
import type { RunMeta } from '../core/run-meta.js';
import { directoryInstead } from './tape-path.js';

/** The ids an ambiguous prefix's error lists; `…` says there are more. */
const SHOWN_MATCHES = 5;

/**
 * The run `ref` names among `matches` (runs whose id starts with it, or whose name it is; newest
 * first): the newest of that name, else the one prefix match. Exit 10 when none, exit 2 when a
 * prefix is ambiguous; a `ref` that is no run but a directory is that error (exit 2).
 */
export function pickRun(ref: string, matches: readonly RunMeta[]): RunMeta {
  const byName = matches.find((m) => m.name === ref);
  if (byName !== undefined) return byName;
  if (matches.length === 1) return matches[0] as RunMeta;
  if (matches.length > 1) {
    const shown = matches.slice(0, SHOWN_MATCHES).map((m) => m.id);
    if (matches.length > SHOWN_MATCHES) shown.push('…');
    throw new InvalidOptionError(`'${ref}' matches ${matches.length} runs: ${shown.join(', ')}`, {
      hint: 'give more of the run id',
    });
  }
  // A directory of the same name, never a tape (tape-path.ts), is named when no run is.
  throw directoryInstead(ref, notFound(ref));
}

export function notFound(ref: string): NotFoundError {
  return new NotFoundError(`no run '${ref}'`, { hint: 'list runs with: agentctl ls' });
}
