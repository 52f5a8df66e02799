/**
 * A tape line may not hold a key named like JavaScript's object machinery in agentctl's own records
 * (core/object-keys.ts says why), as no record agentctl writes has one — but it must hold any key in
 * what a client, a model or a server sent, or agentctl would write tapes it then refuses.
 */
import { machineryKeyPath } from '../core/object-keys.js';

/**
 * Fields that hold what a client, a model or a server sent, kept as data and never read key by key:
 * request and reply bodies, a request's parameters (a JSON schema there may well have a property
 * named `constructor`), a tool's JSON Schema (`parameters`, from a tool module or an MCP server), an
 * MCP reply (`reply` of an exchange, `mcp` of a tool result: what a server answered, whatever its
 * keys), and the recorded and replayed values a divergence quotes.
 */
const PAYLOADS: ReadonlySet<string> = new Set(['body', 'params', 'parameters', 'reply', 'mcp', 'recorded', 'replayed']);

/**
 * Where the first machinery key in a parsed line is (`run.config.__proto__`), or null. `text` is the
 * line: one that spells none of the keys, nor any `\u` escape that could spell one, is not walked.
 */
export function forbiddenKey(text: string, value: unknown): string | null {
  if (!text.includes('__proto__') && !text.includes('constructor') && !text.includes('prototype') && !text.includes('\\u')) return null;
  return machineryKeyPath(value, PAYLOADS);
}
