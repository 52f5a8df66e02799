/**
 * A config file laid over another config — `replay`/`ci --config` over the tape's recorded one: the
 * fields the file sets win, every other field stays as it was. Objects (`guardrails`, `limits`,
 * `toolTimeouts`…) are merged key by key; anything else, arrays included, is replaced whole, so a
 * file's `tools` is the list of tools, not an addition to it — and so is a file's `mcpServers`. The result is validated as any config
 * is (config-file.ts): one reading of a config, whatever its source.
 */
import type { AgentConfig, AgentConfigInput } from './config.js';
import { checkConfig } from './config-file.js';

/** `overlay` over `base`, validated; `source` names the overlay in error messages. */
export function overlayConfig(base: AgentConfig, overlay: AgentConfigInput, source: string): Promise<AgentConfig> {
  const merged = mergeConfig(base, overlay);
  // A file's `mcpServers` is the whole list of servers: a tape's own (never to be started, their
  // env redacted) must not slip in beside the user's through a key-by-key merge.
  if (isPlainObject(merged) && isPlainObject(overlay) && Object.hasOwn(overlay, 'mcpServers')) merged['mcpServers'] = overlay['mcpServers'];
  return checkConfig(merged, source);
}

/** Plain objects merged key by key, recursively; any other value of `overlay` replaces `base`'s. */
export function mergeConfig(base: unknown, overlay: unknown): unknown {
  if (!isPlainObject(base) || !isPlainObject(overlay)) return overlay;
  // Object.fromEntries defines own properties: a key named __proto__ (JSON.parse makes it an own
  // key) stays a key, for validation to refuse, and never becomes the result's prototype.
  return Object.fromEntries([
    ...Object.entries(base).filter(([key]) => !Object.hasOwn(overlay, key)),
    ...Object.entries(overlay).map(([key, value]) => [key, Object.hasOwn(base, key) ? mergeConfig(base[key], value) : value]),
  ]);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}
