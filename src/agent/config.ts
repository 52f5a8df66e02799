/**
 * The agent configuration (`agentctl.config.json`), validated with zod. Every key is also a name that
 * `--set key=value` accepts. A bad field is a usage error (exit 2) naming the field and what was
 * expected. Defaults make an empty file — or no file — a working configuration.
 */
import { z } from 'zod';
import { untrustedPatternError } from '../core/untrusted-pattern.js';
import { mcpServersSchema } from '../mcp/server-config-schema.js';
import { isRegExp } from './regexp-source.js';

const positiveInt = z.number().int().positive();
const nonNegInt = z.number().int().nonnegative();
const nonNeg = z.number().nonnegative();

export const DEFAULT_SYSTEM_PROMPT =
  'You are a careful software agent working in a sandboxed workspace. Use the tools to inspect and change files, ' +
  'then answer with a short summary when the task is done.';

/** Built-in tools enabled when the config names none. */
export const DEFAULT_TOOLS = ['read_file', 'list_dir', 'grep_files', 'write_file', 'edit_file', 'exec_shell'];

/** The schema, built on demand by agentConfigSchema(). */
function buildAgentConfigSchema() {
  const guardrailsSchema = z.strictObject({
    identicalCallBlock: positiveInt.default(3),
    failureWarn: positiveInt.default(3),
    failureHalt: positiveInt.default(8),
    maxRepeatedToolSteps: positiveInt.default(3),
    maxTokensRecoveries: nonNegInt.default(2),
    haltNudges: nonNegInt.default(0),
    reserveTokens: nonNegInt.default(512),
    reserveCostFraction: z.number().min(0).max(1).default(0.1),
  });

  const limitsSchema = z.strictObject({
    maxSteps: positiveInt.default(50),
    /** 0 = no time limit. */
    timeoutMs: nonNegInt.default(0),
    /** 0 = no token budget. */
    tokenBudget: nonNegInt.default(0),
    /** 0 = no cost limit. */
    costLimit: nonNeg.default(0),
    maxRetries: nonNegInt.default(3),
    /** One model request (all of its stream) may take this long before it is a recoverable error; 0 = no limit. */
    requestTimeoutMs: nonNegInt.default(180_000),
    /** A stream that sends nothing for this long is a recoverable error; 0 = no limit. */
    streamIdleTimeoutMs: nonNegInt.default(60_000),
  });

  /**
   * How `exec_shell` is confined: by default a sandbox, bubblewrap on Linux and sandbox-exec on macOS
   * (the workspace read-write, the system read-only, no network unless `network` is true); `"none"`
   * runs it unconfined (recorded).
   */
  const sandboxSchema = z.union([z.literal('none'), z.strictObject({ network: z.boolean().default(false) })]);

  const contextSchema = z.strictObject({
    strategy: z.enum(['sliding_window', 'compact']).default('sliding_window'),
    /** Context window in estimated tokens; 0 = never trim. */
    window: nonNegInt.default(0),
    /** Messages `compact` keeps at the end. */
    keepLast: positiveInt.default(8),
  });

  /** Price per million tokens. */
  const priceSchema = z.strictObject({ input: nonNeg, output: nonNeg });

  return z.strictObject({
    model: z.string().min(1).default('gpt-4o-mini'),
    systemPrompt: z.string().default(DEFAULT_SYSTEM_PROMPT),
    tools: z.array(z.string().min(1)).default(DEFAULT_TOOLS),
    /** JS modules exporting custom tools, relative to the config file. */
    toolModules: z.array(z.string().min(1)).default([]),
    /**
     * Per-tool time limits in ms that replace the tools' own (`{ "exec_shell": 120000 }`); each name
     * must be an enabled tool. Also settable one at a time: `--set toolTimeouts.exec_shell=5000`.
     */
    toolTimeouts: z.record(z.string(), positiveInt).default({}),
    /**
     * MCP servers whose tools the agent gets beside the built-in ones, by name (src/mcp/server-config.ts,
     * docs/loop.md). Absent rather than empty by default, so a config without servers reads as before.
     */
    mcpServers: mcpServersSchema().optional(),
    seed: z.number().int().default(0),
    /** Keep the session open after each turn for the next user message (`--interactive`). */
    interactive: z.boolean().default(false),
    stream: z.boolean().default(false),
    /** Per-response output token cap sent to the model; 0 = let the server decide. */
    maxTokens: nonNegInt.default(0),
    temperature: z.number().min(0).max(2).optional(),
    guardrails: guardrailsSchema.prefault({}),
    limits: limitsSchema.prefault({}),
    context: contextSchema.prefault({}),
    /** Extra secret patterns (RE2 regular expressions) redacted from the tape, as `--redact` adds. */
    redact: z.array(z.string().refine(isRegExp, { error: (issue) => `not a valid regular expression: ${String(issue.input)} (${untrustedPatternError(String(issue.input)) ?? ''})` })).default([]),
    sandbox: sandboxSchema.default({ network: false }),
    /** Overrides or additions to the built-in price table, by model name. */
    prices: z.record(z.string(), priceSchema).default({}),
  });
}

let schema: ReturnType<typeof buildAgentConfigSchema> | undefined;
/**
 * The zod schema of a configuration, built the first time it is needed: building it is a noticeable
 * part of a replay's start-up, and a recorded config usually passes quick-config-check.ts instead.
 */
export function agentConfigSchema(): ReturnType<typeof buildAgentConfigSchema> {
  return (schema ??= buildAgentConfigSchema());
}

/** A complete, validated configuration. */
export type AgentConfig = z.infer<ReturnType<typeof buildAgentConfigSchema>>;
/** What a config file may contain: any subset. */
export type AgentConfigInput = z.input<ReturnType<typeof buildAgentConfigSchema>>;
