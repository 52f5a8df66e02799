import { CheckedTapes } from '../tape/checked-tapes.js';

/** Set by the CLI bundle's build (scripts/bundle-cli.mjs): a digest of the code it is made of. */
declare const AGENTCTL_BUILD_ID: string | undefined;

/**
 * The cache of tape files already checked, where `$AGENTCTL_CACHE` says (docs/tape-format.md); null
 * when off, or when this code is not a build that knows its own identity (not the CLI bundle): an
 * entry is trusted only by the build that wrote it.
 */
export function checkedTapes(env: NodeJS.ProcessEnv = process.env): CheckedTapes | null {
  const build = typeof AGENTCTL_BUILD_ID === 'string' ? AGENTCTL_BUILD_ID : null;
  return build === null ? null : CheckedTapes.fromEnv(env, build);
}
