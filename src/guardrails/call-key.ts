import * as crypto from 'node:crypto';
import { canonicalJson } from './canonical-json.js';
import { RULES } from './rules.js';
import type { ToolCall } from '../core/messages.js';

/**
 * The call key (docs/guardrails.md §1): sha-256 hex of `tool + ":" + canonicalJson(args)`. Keys are stored on
 * tapes, so the algorithm must never change; tests pin literal digests to catch a change.
 */
export function callKey(tool: string, args: unknown): string {
  return sha256Hex(`${tool}:${canonicalJson(args)}`);
}

/** The key of a call whose arguments could not be parsed: hashed over the raw text as received. */
export function rawCallKey(tool: string, raw: string): string {
  // canonicalJson output is always valid JSON and `raw` here never is, so these keys cannot
  // collide with callKey's.
  return sha256Hex(`${tool}:${raw}`);
}

/**
 * sha-256 hex of UTF-8 text (or of bytes). One-shot `crypto.hash` (Node ≥ 20.12) is about twice as
 * fast as a Hash object for inputs this small; older Node 20 releases fall back to createHash. Both
 * give the same digest.
 */
export const sha256Hex: (data: string | Buffer) => string =
  typeof (crypto as { hash?: unknown }).hash === 'function'
    ? (data) => crypto.hash('sha256', data, 'hex')
    : (data) => crypto.createHash('sha256').update(data).digest('hex');

/** The outcome of parsing a tool call's JSON-string arguments. */
export type ParsedArguments =
  | { ok: true; args: Record<string, unknown>; key: string }
  | { ok: false; raw: string; key: string; error: string; rule: typeof RULES.invalidJson | typeof RULES.nonObjectArguments };

/**
 * Parse the arguments text of an OpenAI tool call and key it. Valid JSON objects are keyed by
 * callKey; anything else is keyed over the raw text and carries the tool-error text the model
 * receives instead of a result.
 *
 * An empty or all-whitespace string is read as `{}`: several OpenAI-compatible servers send that
 * for a tool without parameters, and failing it would punish the model for the server's habit.
 */
export function parseCallArguments(tool: string, raw: string): ParsedArguments {
  if (raw.trim() === '') return { ok: true, args: {}, key: callKey(tool, {}) };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return { ok: false, raw, key: rawCallKey(tool, raw), error: `arguments are not valid JSON: ${detail}`, rule: RULES.invalidJson };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    const kind = parsed === null ? 'null' : Array.isArray(parsed) ? 'an array' : `a ${typeof parsed}`;
    return {
      ok: false,
      raw,
      key: rawCallKey(tool, raw),
      error: `arguments must be a JSON object, got ${kind}`,
      rule: RULES.nonObjectArguments,
    };
  }
  const args = parsed as Record<string, unknown>;
  return { ok: true, args, key: callKey(tool, args) };
}

/**
 * The key computed for a call object, with the name and arguments text it was computed from: a step's
 * call is keyed by the loop, the pipeline and the recorded tools, and only the first computes it.
 */
const keyCache = new WeakMap<ToolCall, { tool: string; raw: string; key: string }>();

/**
 * parseCallArguments for a whole ToolCall. The arguments are parsed afresh each time (callers get
 * their own object), the key is computed once per call object (again if its name or text changed).
 */
export function parseToolCall(call: ToolCall): ParsedArguments {
  const tool = call.function.name;
  const raw = call.function.arguments;
  const cached = keyCache.get(call);
  if (cached !== undefined && cached.tool === tool && cached.raw === raw) {
    const args = parseObject(raw);
    if (args !== undefined) return { ok: true, args, key: cached.key };
  }
  const parsed = parseCallArguments(tool, raw);
  keyCache.set(call, { tool, raw, key: parsed.key });
  return parsed;
}

/** The arguments as an object when they parse to one (blank text is `{}`); undefined otherwise. */
function parseObject(raw: string): Record<string, unknown> | undefined {
  if (raw.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
