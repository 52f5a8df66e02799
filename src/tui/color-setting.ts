/**
 * Whether the UI shows colour. Apart from theme.ts on purpose: the UI's entry (index.ts) needs this
 * before Ink loads, and theme.ts loads React, which must not load before `loadInk` has chosen its
 * build (NODE_ENV): React and Ink's renderer must be the same build, or nothing is drawn.
 */

/** True when colour is off: `NO_COLOR` set (any value but empty), or the terminal has none. */
export function colorDisabled(env: NodeJS.ProcessEnv, stream: { hasColors?: () => boolean; isTTY?: boolean }): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return true;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return false;
  return stream.isTTY === true && typeof stream.hasColors === 'function' ? !stream.hasColors() : false;
}
