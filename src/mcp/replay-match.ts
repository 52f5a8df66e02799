/**
 * Which recorded request a replayed one is (docs/mcp.md, "Replay"): matched by content, never by
 * position or id. A `tools/call` is the first unused recorded call of the same tool with the same
 * call key (its redacted arguments); `initialize` is matched by its method alone (clients differ in
 * their own name and version, not in what the server answers); the list methods by their cursor;
 * anything else by its canonical params (`_meta`, the client's progress token, left out). A request
 * other than a tool call may be served again when every equal recorded one is used: answering a
 * second `tools/list` from the tape changes nothing anywhere.
 *
 * When nothing matches, the nearest recorded request of the same method (of the same tool) says
 * how the replay departed from the tape: its first differing field.
 */
import { firstDifference } from '../core/first-difference.js';
import { printableJson } from '../core/terminal-text.js';
import { canonicalJson } from '../guardrails/canonical-json.js';
import type { McpDivergence } from './link.js';
import type { CallEntry, RecordedTape, RequestEntry } from './recorded-tape.js';

export type Matched<E> = { entry: E } | { divergence: McpDivergence };

const LIST_METHODS = new Set(['tools/list', 'resources/list', 'resources/templates/list', 'prompts/list']);

/** A value as a divergence line shows it: JSON, cut short. */
export function shown(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = printableJson(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function divergenceOf(what: string, prefix: string, recorded: unknown, replayed: unknown): McpDivergence | undefined {
  const difference = firstDifference(recorded, replayed);
  if (difference === null) return undefined;
  const path = difference.path === '(value)' ? prefix : difference.path.startsWith('[') ? `${prefix}${difference.path}` : `${prefix}.${difference.path}`;
  return {
    message: `${what}: ${path}: recorded ${shown(difference.recorded)}, replayed ${shown(difference.replayed)}`,
    path,
    recorded: difference.recorded,
    replayed: difference.replayed,
  };
}

/** A `tools/call` of `tool` whose redacted arguments are `args` (keyed `key`). */
export function matchCall(tape: RecordedTape, tool: string, key: string, args: unknown): Matched<CallEntry> {
  const same = tape.entries.filter((entry): entry is CallEntry => entry.kind === 'call' && entry.tool === tool);
  const entry = same.find((candidate) => !candidate.used && candidate.key === key);
  if (entry !== undefined) return { entry };
  const what = `tools/call ${tool}`;
  if (same.length === 0) return { divergence: { message: `${what}: not on the tape` } };
  const nearest = same.find((candidate) => !candidate.used && candidate.key !== key) ?? same[0] as CallEntry;
  return {
    divergence: divergenceOf(what, 'arguments', nearest.args, args) ?? {
      message: `${what}: called more often than on the tape (each recorded call with these arguments was answered)`,
    },
  };
}

function withoutMeta(params: Record<string, unknown> | undefined): Record<string, unknown> {
  if (params === undefined) return {};
  const { _meta: _ignored, ...rest } = params;
  return rest;
}

function sameRequest(method: string, recorded: Record<string, unknown> | undefined, replayed: Record<string, unknown> | undefined): boolean {
  if (method === 'initialize') return true;
  if (LIST_METHODS.has(method)) return recorded?.['cursor'] === replayed?.['cursor'];
  return canonicalJson(withoutMeta(recorded)) === canonicalJson(withoutMeta(replayed));
}

/** Any other request, its params redacted as the tape's are. */
export function matchRequest(tape: RecordedTape, method: string, params: Record<string, unknown> | undefined): Matched<RequestEntry> {
  const same = tape.entries.filter((entry): entry is RequestEntry => entry.kind === 'request' && entry.method === method);
  const equal = same.filter((candidate) => sameRequest(method, candidate.params, params));
  const entry = equal.find((candidate) => !candidate.used) ?? equal[0];
  if (entry !== undefined) return { entry };
  if (same.length === 0) return { divergence: { message: `${method}: not on the tape` } };
  const nearest = same.find((candidate) => !candidate.used) ?? same[0] as RequestEntry;
  return {
    divergence: divergenceOf(method, 'params', withoutMeta(nearest.params), withoutMeta(params)) ?? { message: `${method}: not on the tape` },
  };
}
