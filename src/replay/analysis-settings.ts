/**
 * The settings an analysis of a recorded run judges it by: the guardrails' (`guardrails.*`), the
 * limits the budget check reads (`limits.tokenBudget`, `limits.costLimit`), the prices its cost is
 * counted in, and how a tool name finds its flags. A run of the built-in loop brings its own — the
 * config it recorded and its tools' specs (its MCP tools' among its custom tools), so the analysis
 * decides as the run did — and anything else (a library, proxy or `agentctl run` recording) starts
 * from the defaults, with the tools unknown (docs/guardrails.md §2: idempotent, not mutating) save
 * the MCP tools its recorded `tools/list` replies list, whose annotations give their flags
 * (analysis-mcp-tools.ts). What the caller gives is laid over either, key by key.
 *
 * Read without the config's schema (a recorded config is on the tape as plain JSON): only the fields
 * an analysis needs are taken, and the guardrails check their own values.
 */
import type { RunEvent, RunStartEvent } from '../core/events.js';
import { TapeFormatError, isAgentctlError } from '../core/errors.js';
import { recordedBy, type RunMeta } from '../core/run-meta.js';
import type { ToolSpec } from '../core/tools.js';
import type { BudgetLimits } from '../guardrails/budget-proximity.js';
import { resolveGuardrailsConfig, type GuardrailsConfig, type ToolFlags } from '../guardrails/guardrail-session.js';
import type { Price } from '../agent/prices.js';
import { createBuiltinTool, isBuiltinToolName } from '../tools/builtins.js';
import { specOf } from '../tools/tool.js';
import { listedToolSpecs } from './analysis-mcp-tools.js';

/** What the caller lays over the run's own settings; each left out keeps the run's. */
export interface AnalysisOptions {
  /** `guardrails.*`; `tools` gives flags by tool name, over a built-in run's recorded specs. */
  config?: GuardrailsConfig;
  /** `limits.tokenBudget` and `limits.costLimit`, for the budget check. */
  limits?: BudgetLimits;
  /** Prices per million tokens by model, over the built-in table (`prices`). */
  prices?: Readonly<Record<string, Price>>;
}

export interface AnalysisSettings {
  /** Recorded by the built-in loop: its guardrails ran, and its own events say how a call ended. */
  builtIn: boolean;
  config: GuardrailsConfig;
  lookup: (name: string) => ToolSpec | undefined;
  limits: BudgetLimits;
  prices: Readonly<Record<string, Price>>;
}

const GUARDRAIL_KEYS = [
  'identicalCallBlock', 'failureWarn', 'failureHalt', 'maxRepeatedToolSteps', 'maxTokensRecoveries', 'reserveTokens', 'reserveCostFraction', 'haltNudges',
] as const;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

export function analysisSettings(meta: RunMeta, events: readonly RunEvent[], options: AnalysisOptions = {}): AnalysisSettings {
  const builtIn = recordedBy(meta) === 'cli';
  const start = events.find((e): e is RunStartEvent => e.type === 'run_start');
  const recorded: Json = builtIn ? (start?.config ?? meta.config) : {};
  const config = recordedGuardrails(recorded.guardrails);
  if (builtIn) checkRecorded(config);
  for (const key of GUARDRAIL_KEYS) {
    const value = options.config?.[key];
    if (value !== undefined) config[key] = value;
  }
  const flags: Record<string, ToolFlags> = { ...options.config?.tools };
  if (Object.keys(flags).length > 0) config.tools = flags;
  const specs = builtIn ? recordedSpecs(recorded, start) : listedToolSpecs(events);
  // A built-in run's tool keeps its recorded spec, an MCP tool the flags its listing gave, with the
  // flags given laid over it; any other name is left to the session, which reads `config.tools` and
  // else the defaults of an unknown tool.
  const lookup = (name: string): ToolSpec | undefined => {
    const spec = specs(name);
    const given = flags[name];
    if (spec === undefined || given === undefined) return spec;
    return { ...spec, idempotent: given.idempotent ?? spec.idempotent, mutating: given.mutating ?? spec.mutating };
  };
  const recordedLimits = isObject(recorded.limits) ? recorded.limits : {};
  const limits: BudgetLimits = {
    tokenBudget: options.limits?.tokenBudget ?? numberOr(recordedLimits.tokenBudget, 0),
    costLimit: options.limits?.costLimit ?? numberOr(recordedLimits.costLimit, 0),
  };
  const prices = { ...recordedPrices(recorded.prices), ...options.prices };
  return { builtIn, config, lookup, limits, prices };
}

/** The recorded `guardrails` section's known keys (the session checks their values). */
function recordedGuardrails(section: unknown): GuardrailsConfig {
  const out: Record<string, unknown> = {};
  if (!isObject(section)) return {};
  for (const key of GUARDRAIL_KEYS) if (section[key] !== undefined) out[key] = section[key];
  return out as GuardrailsConfig;
}

/** A bad recorded guardrail value is bad tape data (exit 9), not the user's option. */
function checkRecorded(config: GuardrailsConfig): void {
  try {
    resolveGuardrailsConfig(config);
  } catch (error) {
    if (!isAgentctlError(error)) throw error;
    throw new TapeFormatError(`the recorded config is not valid: ${error.message}`);
  }
}

/**
 * The specs of a built-in run's tools: the config's built-in tools, and the custom tools (its tool
 * modules' and MCP servers' tools) its run_start recorded, which the loop offers whether or not
 * `tools` names them (agent/tool-registry.ts).
 */
function recordedSpecs(config: Json, start: RunStartEvent | undefined): (name: string) => ToolSpec | undefined {
  const enabled = new Set(Array.isArray(config.tools) ? config.tools.filter((t): t is string => typeof t === 'string') : []);
  const custom = new Map((start?.customTools ?? []).map((spec) => [spec.name, spec]));
  const cache = new Map<string, ToolSpec | undefined>();
  return (name) => {
    if (cache.has(name)) return cache.get(name);
    const spec = custom.get(name) ?? (enabled.has(name) && isBuiltinToolName(name) ? specOf(createBuiltinTool(name)) : undefined);
    cache.set(name, spec);
    return spec;
  };
}

function recordedPrices(section: unknown): Record<string, Price> {
  const out: Record<string, Price> = {};
  if (!isObject(section)) return out;
  for (const [model, price] of Object.entries(section)) {
    if (isObject(price) && typeof price.input === 'number' && typeof price.output === 'number') out[model] = { input: price.input, output: price.output };
  }
  return out;
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}
