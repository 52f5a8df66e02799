/**
 * What `--set` and `--config` give an analysis (`agentctl analyze`, `agentctl ci --set` over runs
 * the built-in loop did not record): the settings an analysis reads — `guardrails.*`,
 * `limits.tokenBudget` and `limits.costLimit`, and from a config file `prices` too — checked as the
 * config's own (the `--set` parser of replay and ci), plus the flags of tools the recording cannot
 * tell: `guardrails.tools.<name>.idempotent` and `.mutating`, true or false. These flags are for
 * analyses only: the built-in loop's tools carry their own flags, so the config file has no such key.
 * Any other key is a usage error naming it: nothing else bears on what the guardrails decide.
 */
import type { AgentConfig } from '../agent/config.js';
import { applyOverrides, parseConfig } from '../agent/load-config.js';
import { UsageError } from '../core/errors.js';
import { quotedInput } from '../core/terminal-text.js';
import type { GuardrailsConfig, ToolFlags } from '../guardrails/guardrail-session.js';
import type { AnalysisOptions } from './analysis-settings.js';

const TOOL_FLAG = /^guardrails\.tools\.(.+)\.(idempotent|mutating)$/;
const LIMITS = ['tokenBudget', 'costLimit'] as const;
const HINT = 'an analysis reads guardrails.* (and guardrails.tools.<name>.idempotent|mutating), limits.tokenBudget and limits.costLimit';

type Json = Record<string, unknown>;

/** A key an analysis reads (tool flags apart). */
const readsKey = (key: string): boolean => key.startsWith('guardrails.') || LIMITS.some((name) => key === `limits.${name}`);
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The overrides an analysis reads, of a what-if's: ci's `--set` is a replay's, whose other keys
 * (`model`, `limits.maxSteps`, …) change nothing the guardrails decide over a recorded run.
 */
export function analysisOverrides(overrides: readonly string[]): string[] {
  return overrides.filter((override) => readsKey(override.slice(0, Math.max(0, override.indexOf('=')))));
}

/**
 * The analysis options of `overrides` (`key=value`, applied in order, over `file`: a config file's
 * JSON as written, already checked).
 */
export function analysisOptions(overrides: readonly string[], file?: unknown): AnalysisOptions {
  // By name in a map: a tool may be named `__proto__`, which on a plain object would set its prototype.
  const tools = new Map<string, ToolFlags>();
  const settings: string[] = [];
  for (const override of overrides) {
    const eq = override.indexOf('=');
    const key = eq <= 0 ? override : override.slice(0, eq);
    const flag = eq <= 0 ? null : TOOL_FLAG.exec(key);
    if (flag !== null) {
      const value = override.slice(eq + 1);
      if (value !== 'true' && value !== 'false') throw new UsageError(`--set ${quotedInput(key)} must be true or false, got '${quotedInput(value)}'`);
      const name = flag[1] as string;
      tools.set(name, { ...tools.get(name), [flag[2] as 'idempotent' | 'mutating']: value === 'true' });
      continue;
    }
    if (eq > 0 && !readsKey(key)) {
      throw new UsageError(`--set ${quotedInput(key)}: not a setting of an analysis`, { hint: HINT });
    }
    settings.push(override);
  }
  const set = settings.length === 0 ? null : applyOverrides(parseConfig({}, 'defaults'), settings);
  const options = fromFile(isObject(file) ? file : {});
  const config: GuardrailsConfig = { ...options.config };
  const limits = { ...options.limits };
  for (const override of settings) {
    const [section, name] = override.slice(0, override.indexOf('=')).split('.') as [string, string];
    if (section === 'guardrails') (config as Json)[name] = ((set as AgentConfig).guardrails as Json)[name];
    else (limits as Json)[name] = ((set as AgentConfig).limits as Json)[name];
  }
  if (tools.size > 0) config.tools = Object.fromEntries(tools);
  return { ...options, config, limits };
}

/** What a config file sets that an analysis reads: its guardrails, its token and cost limits, its prices. */
function fromFile(file: Json): AnalysisOptions {
  const options: AnalysisOptions = {};
  if (isObject(file.guardrails)) options.config = { ...file.guardrails } as GuardrailsConfig;
  if (isObject(file.limits)) {
    const limits: Json = {};
    for (const name of LIMITS) if (file.limits[name] !== undefined) limits[name] = file.limits[name];
    options.limits = limits;
  }
  if (isObject(file.prices)) options.prices = file.prices as AnalysisOptions['prices'] & object;
  return options;
}
