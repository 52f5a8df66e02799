/**
 * Small readers shared by the wires of the APIs whose bodies are read structurally (responses-wire.ts,
 * anthropic-wire.ts): the `openai` and `@anthropic-ai/sdk` packages are not imported here, so a field
 * is checked before it is used.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../guardrails/canonical-json.js';

export type Json = Record<string, unknown>;

export function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A string field's value, or '' when it is not a string. */
export function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export function parseJson(data: string): unknown {
  try {
    return JSON.parse(data) as unknown;
  } catch {
    return undefined; // not JSON: nothing the answer is made of
  }
}

/**
 * `[<type> <digest>]`: a short SHA-256 of the value's canonical JSON, so different values read
 * differently (and hash differently) though our message shape has no place for them.
 */
export function placeholder(type: string, value: unknown): string {
  const digest = createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 16);
  return `[${type} ${digest}]`;
}
