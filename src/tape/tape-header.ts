/** A tape file's first line: the format's name and version, and the run's metadata. */
import { canonicalJson } from '../guardrails/canonical-json.js';
import { TAPE_VERSION, type RunMeta } from '../core/run-meta.js';

export const TAPE_FORMAT = 'agentctl-tape';

/** The header line of a run's tape, without its newline. */
export function headerLine(meta: RunMeta): string {
  return canonicalJson({ format: TAPE_FORMAT, version: TAPE_VERSION, run: meta });
}
