import { CheckedTapes } from '../tape/checked-tapes.js';
import { agentctlVersion } from './version.js';

/** The cache of tape files already checked, where `$AGENTCTL_CACHE` says (docs/tape-format.md); null when off. */
export function checkedTapes(env: NodeJS.ProcessEnv = process.env): CheckedTapes | null {
  return CheckedTapes.fromEnv(env, agentctlVersion());
}
