/**
 * A tool call in a few words, for the timeline: its name and its most telling argument values
 * (`read_file config/server.json`, `exec_shell npm test`), so that a call repeated step after step
 * looks the same on every row and different calls do not. The arguments are the model's text: each
 * value is laid out on one line with its control characters as escapes (core/terminal-text.ts).
 */
import { printableLine } from '../../core/terminal-text.js';

/** The argument shown first and bare: the first of these a call has (others follow as `key=value`). */
const TELLING_KEYS = ['command', 'pattern', 'path', 'query', 'url', 'file', 'name'] as const;

/** Characters kept of one value; the timeline clips the whole row to its width anyway. */
const VALUE_LIMIT = 80;

/** `read_file config/server.json`, `grep_files TODO path=src`, `edit_file src/a.ts old="x" new="y"`. */
export function callText(name: string, argumentsJson: string): string {
  const args = compactArguments(argumentsJson);
  return printableLine(args === '' ? name : `${name} ${args}`);
}

/** The argument values of a call, most telling first; text that is not a JSON object as it is. */
export function compactArguments(argumentsJson: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(argumentsJson);
  } catch {
    return cut(oneLine(argumentsJson));
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return cut(oneLine(argumentsJson));
  const record = parsed as Record<string, unknown>;
  const keys = Object.keys(record).filter((key) => record[key] !== undefined);
  const first = TELLING_KEYS.find((key) => keys.includes(key));
  const parts: string[] = [];
  if (first !== undefined) parts.push(bare(record[first]));
  for (const key of keys) if (key !== first) parts.push(`${key}=${quoted(record[key])}`);
  return parts.join(' ');
}

/** The value as it reads: text without quotes, anything else as compact JSON. */
function bare(value: unknown): string {
  return typeof value === 'string' ? cut(oneLine(value)) : cut(JSON.stringify(value) ?? String(value));
}

/** The value after `key=`: text in quotes when it is empty or has a space, so the next `key=` stands apart. */
function quoted(value: unknown): string {
  if (typeof value !== 'string') return bare(value);
  const text = cut(oneLine(value));
  return text === '' || text.includes(' ') ? JSON.stringify(text) : text;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function cut(text: string): string {
  return text.length <= VALUE_LIMIT ? text : `${text.slice(0, VALUE_LIMIT - 1)}…`;
}
