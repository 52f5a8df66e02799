import { sha256Hex } from './call-key.js';
import { canonicalJson } from './canonical-json.js';

/** One tool call of a step as the repetition gate sees it: a name and the parsed arguments. */
export interface StepCall {
  name: string;
  arguments: unknown;
}

/** Argument values longer than this are cut before comparison (docs/guardrails.md §6). */
export const SIGNATURE_VALUE_LIMIT = 200;

/**
 * The signature of a step's tool calls (docs/guardrails.md §6): the calls in order, each as its name and its
 * `[key, value]` pairs sorted by key, every value cut to 200 characters. Values are rendered
 * deterministically (strings as they are, anything else as canonical JSON), and the structure is
 * written as JSON so that no name or value can be mistaken for a separator.
 *
 * Arguments that are not an object (a call whose JSON did not parse) count as one unnamed value.
 */
export function stepSignature(calls: readonly StepCall[]): string {
  return JSON.stringify(calls.map((call) => [call.name, argumentPairs(call.arguments)]));
}

/** sha-256 hex of stepSignature: what is compared and checkpointed, short whatever the step. */
export function stepSignatureDigest(calls: readonly StepCall[]): string {
  return sha256Hex(stepSignature(calls));
}

/** `read_file(path=src/a.ts, offset=0)`: a short human rendering for decision reasons. */
export function describeStep(calls: readonly StepCall[], limit = 120): string {
  const text = calls
    .map((call) => `${call.name}(${argumentPairs(call.arguments).map(([k, v]) => (k === '' ? v : `${k}=${v}`)).join(', ')})`)
    .join('; ');
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}

function argumentPairs(args: unknown): Array<[string, string]> {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return [['', renderValue(args)]];
  const record = args as Record<string, unknown>;
  return Object.keys(record)
    .filter((k) => record[k] !== undefined)
    .sort()
    .map((k) => [k, renderValue(record[k])]);
}

function renderValue(value: unknown): string {
  const text = typeof value === 'string' ? value : canonicalJson(value);
  return text.length <= SIGNATURE_VALUE_LIMIT ? text : text.slice(0, SIGNATURE_VALUE_LIMIT);
}
