import { readFile } from 'node:fs/promises';
import type { z } from 'zod';
import { NotFoundError, UsageError } from '../core/errors.js';
import { agentConfigSchema, type AgentConfig } from './config.js';

/** Validate a configuration object; `source` names it in error messages. */
export function parseConfig(value: unknown, source: string): AgentConfig {
  const result = agentConfigSchema.safeParse(value);
  if (!result.success) throw new UsageError(`${source}: ${describe(result.error)}`);
  return result.data;
}

/**
 * Read a config file. A missing file is fine when it is only the default name (`required` false):
 * then every default applies. A missing file that was asked for is exit 10; bad JSON or a bad
 * field is exit 2.
 */
export async function loadConfigFile(path: string, required: boolean): Promise<AgentConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') {
      if (!required) return parseConfig({}, 'default config');
      throw new NotFoundError(`no config file ${path}`);
    }
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${path}: not valid JSON (${(error as Error).message})`);
  }
  return parseConfig(json, path);
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
 * booleans, arrays), else as plain strings.
 */
export function applyOverrides(config: AgentConfig, overrides: string[]): AgentConfig {
  const draft = structuredClone(config) as unknown as Record<string, unknown>;
  for (const override of overrides) {
    const eq = override.indexOf('=');
    if (eq <= 0) throw new UsageError(`--set expects key=value, got '${override}'`);
    const path = override.slice(0, eq).split('.');
    const raw = override.slice(eq + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // Not JSON: keep it as a string (e.g. --set model=gpt-4o).
    }
    let target = draft;
    for (const [i, part] of path.entries()) {
      if (part === '' || part === '__proto__' || part === 'constructor' || part === 'prototype') {
        throw new UsageError(`--set: bad key '${path.join('.')}'`);
      }
      if (i === path.length - 1) {
        target[part] = value;
      } else {
        const next = target[part];
        if (next === undefined || typeof next !== 'object' || next === null || Array.isArray(next)) {
          throw new UsageError(`--set: unknown key '${path.join('.')}'`);
        }
        target = next as Record<string, unknown>;
      }
    }
  }
  return parseConfig(draft, '--set');
}
