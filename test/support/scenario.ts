/**
 * Scripted LLM scenarios: the data a `MockLlm` plays back, one step per request, in order.
 * The format is documented in fixtures/scenarios/README.md; this file is its single definition.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as path from 'node:path';
import { z } from 'zod';

const toolCallSchema = z.strictObject({
  name: z.string().min(1),
  /** A JSON string, sent as is, or any other JSON value, sent as its JSON text. */
  arguments: z.unknown().optional(),
  id: z.string().min(1).optional(),
});

const usageSchema = z.strictObject({
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
});

const replySchema = z.strictObject({
  content: z.string().optional(),
  tool_calls: z.array(toolCallSchema).optional(),
  /** Default: `tool_calls` when there are tool calls, else `stop`. `null`: no finish reason is sent at all. */
  finish_reason: z.enum(['stop', 'length', 'tool_calls', 'content_filter']).nullable().optional(),
  usage: usageSchema.optional(),
  model: z.string().optional(),
  /** How the content is split into stream chunks. Default: one chunk per word. */
  chunks: z.array(z.string()).optional(),
  /** Break the connection after this many SSE events (streams), or before answering (non-streams). */
  disconnectAfter: z.number().int().nonnegative().optional(),
  /** Streams: send this many SSE events, then go silent (connection open) until the client gives up. */
  stallAfter: z.number().int().nonnegative().optional(),
  /** Wait this long before answering (for timeout tests). */
  delayMs: z.number().int().nonnegative().optional(),
  /** Non-streams: send this as the 200 response body instead of a completion (a string as text). */
  body: z.unknown().optional(),
  /** Streams: send these SSE data payloads (a string as is, anything else as JSON), then `[DONE]`, instead of the reply's own. */
  events: z.array(z.unknown()).optional(),
});

const failureSchema = z.strictObject({
  status: z.number().int().min(400).max(599),
  /** `Retry-After` header: seconds, or a raw header value such as an HTTP date. */
  retryAfter: z.union([z.number().nonnegative(), z.string()]).optional(),
  /** `retry-after-ms` header (OpenAI's millisecond variant). */
  retryAfterMs: z.number().nonnegative().optional(),
  /** Response body; a string is sent as is, anything else as JSON. Default: an OpenAI-style error object. */
  body: z.unknown().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  delayMs: z.number().int().nonnegative().optional(),
});

/** A failure step has `status`; anything else is a reply. */
const stepSchema = z.union([failureSchema, replySchema]);

export const scenarioSchema = z.strictObject({
  description: z.string().optional(),
  steps: z.array(stepSchema),
});

export type ScriptedToolCall = z.infer<typeof toolCallSchema>;
export type ReplyStep = z.infer<typeof replySchema>;
export type FailureStep = z.infer<typeof failureSchema>;
export type ScenarioStep = z.infer<typeof stepSchema>;
export type Scenario = z.infer<typeof scenarioSchema>;

export function isFailureStep(step: ScenarioStep): step is FailureStep {
  return 'status' in step && typeof step.status === 'number';
}

/** The repository's fixtures/scenarios directory. */
export const SCENARIO_DIR = fileURLToPath(new URL('../../fixtures/scenarios/', import.meta.url));

/** Validate a scenario given as data; throws with the first problem and its path. */
export function parseScenario(data: unknown, source = 'scenario'): Scenario {
  const result = scenarioSchema.safeParse(data);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue === undefined || issue.path.length === 0 ? '' : ` at ${issue.path.join('.')}`;
    throw new Error(`${source}: invalid scenario${where}: ${issue?.message ?? 'unknown problem'}`);
  }
  return result.data;
}

/**
 * Read a scenario file. A bare name (`rate-limited-then-ok` or `rate-limited-then-ok.json`) is looked
 * up in fixtures/scenarios/; anything with a slash is a path.
 */
export function loadScenario(nameOrPath: string): Scenario {
  const file = nameOrPath.includes('/') || nameOrPath.includes(path.sep)
    ? nameOrPath
    : path.join(SCENARIO_DIR, nameOrPath.endsWith('.json') ? nameOrPath : `${nameOrPath}.json`);
  const text = readFileSync(file, 'utf8');
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file}: not valid JSON: ${(error as Error).message}`);
  }
  return parseScenario(data, file);
}
