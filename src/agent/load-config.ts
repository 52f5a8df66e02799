/**
 * Configuration values checked synchronously: `parseConfig` (the library's, and the record path's)
 * and `--set` overrides. This module loads zod with the schema (config.ts); code on a replay's path
 * reads configs through config-file.ts instead, which loads this module only when the quick check
 * cannot vouch for a value, so a replay's start-up does not pay for zod.
 */
import type { z } from 'zod';
import { InvalidOptionError } from '../core/errors.js';
import { isObjectMachineryKey, machineryKeyPath } from '../core/object-keys.js';
import { agentConfigSchema, type AgentConfig } from './config.js';
import { quickConfig } from './quick-config-check.js';

/** Validate a configuration object; `source` names it in error messages. */
export function parseConfig(value: unknown, source: string): AgentConfig {
  // A complete config (a recorded one) usually passes the quick check; the rest go to the schema.
  const quick = quickConfig(value);
  if (quick !== undefined) return quick;
  // A config goes on the tape, which holds no such key in agentctl's own records; and a schema's
  // record would drop a `__proto__` key without a word.
  const machinery = machineryKeyPath(value);
  if (machinery !== null) {
    throw new InvalidOptionError(`${source}: a key named "${machinery.slice(machinery.lastIndexOf('.') + 1)}" (at ${machinery}): no config can have one`);
  }
  const result = agentConfigSchema().safeParse(value);
  if (!result.success) throw new InvalidOptionError(`${source}: ${describe(result.error)}`);
  return result.data;
}

function describe(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'invalid configuration';
  const field = issue.path.join('.');
  if (issue.code === 'unrecognized_keys') {
    const where = field === '' ? '' : `${field}.`;
    return `unknown field ${issue.keys.map((k) => `'${where}${k}'`).join(', ')}`;
  }
  return `field '${field || '(root)'}': ${issue.message}`;
}

/**
 * Apply `--set key=value` overrides (dotted keys, e.g. `guardrails.maxRepeatedToolSteps=5`) to a
 * validated config and validate the result. Values are read as JSON when they parse (numbers,
 * booleans, arrays), else as plain strings — except for a key whose current value is a string
 * (`model`, `systemPrompt`, `context.strategy`), which takes the text as it is (or the string a
 * JSON string literal spells), so that `--set model=4` or `--set systemPrompt=null` mean the
 * strings they look like instead of failing validation as a number or null.
 */
export function applyOverrides(config: AgentConfig, overrides: readonly string[]): AgentConfig {
  const draft = structuredClone(config) as unknown as Record<string, unknown>;
  for (const override of overrides) {
    const eq = override.indexOf('=');
    if (eq <= 0) throw new InvalidOptionError(`--set expects key=value, got '${override}'`);
    const path = override.slice(0, eq).split('.');
    const raw = override.slice(eq + 1);
    let target = draft;
    for (const [i, part] of path.entries()) {
      if (part === '' || isObjectMachineryKey(part)) {
        throw new InvalidOptionError(`--set: bad key '${path.join('.')}'`);
      }
      if (i === path.length - 1) {
        target[part] = typeof target[part] === 'string' ? stringValue(raw) : parseValue(raw);
      } else {
        const next = target[part];
        if (next === undefined || typeof next !== 'object' || next === null || Array.isArray(next)) {
          throw new InvalidOptionError(`--set: unknown key '${path.join('.')}'`);
        }
        target = next as Record<string, unknown>;
      }
    }
  }
  return parseConfig(draft, '--set');
}

/** A `--set` value for a string key: a JSON string literal (`"gpt-4o"`) unquoted, anything else as written. */
function stringValue(raw: string): string {
  const parsed = parseValue(raw);
  return typeof parsed === 'string' ? parsed : raw;
}

/** A `--set` value: JSON when it parses, else the text itself (e.g. `--set tools=["read_file"]`, `--set seed=3`). */
function parseValue(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}
