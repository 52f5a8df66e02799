/**
 * A quick, hand-written check of a *complete* configuration — every field present, as a recorded
 * config always is — written after the zod schema in config.ts (building that schema and parsing
 * with it is a noticeable part of a replay's start-up). It only ever says "valid" of a value the
 * schema accepts, with no default to fill in, and then returns what the schema would: a copy, keys
 * in the schema's order. Anything else — a missing field (a default applies), an unknown key, a
 * value it is unsure of — is left to the schema, which decides and words the error, so no config is
 * refused differently. quick-config-check.test.ts holds it to that, on random changes of complete
 * configs.
 */
import { isObjectMachineryKey } from '../core/object-keys.js';
import type { AgentConfig } from './config.js';
import { isRegExp } from './regexp-source.js';
import { serverProblem, type McpServerConfig } from '../mcp/server-config.js';

type Copy = (value: unknown) => { ok: true; value: unknown } | undefined;

const OK = <T>(value: T): { ok: true; value: T } => ({ ok: true, value });
const isPlain = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype && Object.getOwnPropertySymbols(v).length === 0;

const when = (test: (v: unknown) => boolean): Copy => (v) => (test(v) ? OK(v) : undefined);
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const string = when((v) => typeof v === 'string');
const nonEmpty = when((v) => typeof v === 'string' && v.length > 0);
const boolean = when((v) => typeof v === 'boolean');
const int = when((v) => Number.isSafeInteger(v));
const nonNegInt = when((v) => Number.isSafeInteger(v) && (v as number) >= 0);
const positiveInt = when((v) => Number.isSafeInteger(v) && (v as number) > 0);
const nonNeg = when((v) => isNumber(v) && v >= 0);
const between = (min: number, max: number): Copy => when((v) => isNumber(v) && v >= min && v <= max);
const oneOf = (...values: string[]): Copy => when((v) => typeof v === 'string' && values.includes(v));

function arrayOf(item: Copy): Copy {
  return (v) => {
    if (!Array.isArray(v) || Object.getPrototypeOf(v) !== Array.prototype) return undefined;
    const out: unknown[] = [];
    for (let i = 0; i < v.length; i++) {
      if (!Object.hasOwn(v, i)) return undefined;
      const copied = item(v[i]);
      if (copied === undefined) return undefined;
      out.push(copied.value);
    }
    return OK(out);
  };
}

function recordOf(value: Copy, keyOk: (key: string) => boolean = () => true): Copy {
  return (v) => {
    if (!isPlain(v)) return undefined;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(v)) {
      // A machinery key is refused (load-config.ts words why): never vouched for here.
      if (isObjectMachineryKey(key) || !keyOk(key)) return undefined;
      const copied = value(v[key]);
      if (copied === undefined) return undefined;
      out[key] = copied.value;
    }
    return OK(out);
  };
}

/** A strict object with every key of `shape` present (those in `optional` may be missing). */
function complete(shape: Readonly<Record<string, Copy>>, optional: readonly string[] = []): Copy {
  const keys = Object.keys(shape);
  return (v) => {
    if (!isPlain(v)) return undefined;
    let known = 0;
    for (const key of Object.keys(v)) {
      if (!Object.hasOwn(shape, key)) return undefined;
      known++;
    }
    const out: Record<string, unknown> = {};
    for (const key of keys) {
      if (!Object.hasOwn(v, key)) {
        if (optional.includes(key)) continue;
        return undefined;
      }
      const copied = shape[key]!(v[key]);
      if (copied === undefined) return undefined;
      out[key] = copied.value;
    }
    return known === Object.keys(out).length ? OK(out) : undefined;
  };
}

/** `inner`, then a check of the whole copy (a schema's refinement). */
const refined = (inner: Copy, ok: (value: unknown) => boolean): Copy => (v) => {
  const copied = inner(v);
  return copied !== undefined && ok(copied.value) ? copied : undefined;
};

// The same fields and checks as mcpServersSchema in mcp/server-config.ts.
const mcpServer = refined(
  complete(
    {
      type: oneOf('stdio', 'http', 'streamable-http'),
      command: nonEmpty,
      args: arrayOf(string),
      env: recordOf(string, (key) => key !== ''),
      cwd: nonEmpty,
      url: nonEmpty,
      headers: recordOf(string, (key) => key !== ''),
      tools: recordOf(complete({ idempotent: boolean, mutating: boolean }, ['idempotent', 'mutating']), (key) => /^[\x21-\x7e]{1,128}$/.test(key)),
      timeoutMs: positiveInt,
    },
    ['type', 'command', 'args', 'env', 'cwd', 'url', 'headers', 'tools', 'timeoutMs'],
  ),
  (server) => serverProblem(server as McpServerConfig) === undefined,
);
const mcpServers = recordOf(mcpServer, (key) => /^[A-Za-z0-9_-]{1,48}$/.test(key));

// The same fields, in the same order, as agentConfigSchema in config.ts.
const config = complete(
  {
    model: nonEmpty,
    systemPrompt: string,
    tools: arrayOf(nonEmpty),
    toolModules: arrayOf(nonEmpty),
    toolTimeouts: recordOf(positiveInt),
    mcpServers,
    seed: int,
    interactive: boolean,
    stream: boolean,
    maxTokens: nonNegInt,
    temperature: between(0, 2),
    guardrails: complete({
      identicalCallBlock: positiveInt,
      failureWarn: positiveInt,
      failureHalt: positiveInt,
      maxRepeatedToolSteps: positiveInt,
      maxTokensRecoveries: nonNegInt,
      haltNudges: nonNegInt,
      reserveTokens: nonNegInt,
      reserveCostFraction: between(0, 1),
    }),
    limits: complete({
      maxSteps: positiveInt,
      timeoutMs: nonNegInt,
      tokenBudget: nonNegInt,
      costLimit: nonNeg,
      maxRetries: nonNegInt,
      requestTimeoutMs: nonNegInt,
      streamIdleTimeoutMs: nonNegInt,
    }),
    context: complete({ strategy: oneOf('sliding_window', 'compact'), window: nonNegInt, keepLast: positiveInt }),
    redact: arrayOf(when((v) => typeof v === 'string' && isRegExp(v))),
    sandbox: (v) => (v === 'none' ? OK(v) : complete({ network: boolean })(v)),
    prices: recordOf(complete({ input: nonNeg, output: nonNeg })),
  },
  ['temperature', 'mcpServers'],
);

/** The config as the schema would give it, when the quick check can vouch for it; undefined → ask the schema. */
export function quickConfig(value: unknown): AgentConfig | undefined {
  return config(value)?.value as AgentConfig | undefined;
}
