/**
 * A real OpenAI-compatible HTTP server for tests, on 127.0.0.1 and a free port. It plays a scripted
 * scenario in order — one step per chat-completions request, whatever the request says — for both
 * streaming (SSE, ending `data: [DONE]`) and non-streaming calls, and records every request.
 *
 *   const llm = await startMockLlm(loadScenario('rate-limited-then-ok'));
 *   const client = new OpenAiLlm({ baseURL: llm.baseURL, apiKey: 'sk-test' });
 *   …
 *   llm.assertConsumed();
 *   await llm.close();
 *
 * Why not @copilotkit/aimock: it can order replies (`sequenceIndex`), but it cannot end a stream
 * without a finish reason (its builders default a missing one to "stop"), sends `Retry-After` only
 * on 429 and only as seconds (no HTTP date, no `retry-after-ms`, none on 503), and scripting a plain
 * ordered list takes per-fixture sequence bookkeeping. Those are exactly the cases we must test.
 */
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isFailureStep, parseScenario } from './scenario.js';
import type { FailureStep, ReplyStep, Scenario, ScenarioStep } from './scenario.js';

/** One request the server received. */
export interface RecordedRequest {
  method: string;
  path: string;
  /** Lower-cased header names, as Node gives them. */
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, or the raw text when it was not JSON. */
  body: unknown;
  /** The 0-based scenario step that answered it; -1 when none did (unknown path, script used up). */
  step: number;
}

export interface MockLlm {
  /** Pass as `baseURL` to the OpenAI SDK / OpenAiLlm, e.g. `http://127.0.0.1:41234/v1`. */
  readonly baseURL: string;
  /** Every request received, in arrival order. */
  readonly requests: readonly RecordedRequest[];
  /** How many steps have not been played yet. */
  remaining(): number;
  /** Throws unless every step was played and no request arrived after the script ran out. */
  assertConsumed(): void;
  /** Stop the server and drop open connections. */
  close(): Promise<void>;
}

const CHAT_PATHS = new Set(['/v1/chat/completions', '/chat/completions']);
const CREATED = 1_700_000_000;

/** Start a server playing `scenario` (a Scenario, or just its steps). */
export async function startMockLlm(scenario: Scenario | ScenarioStep[]): Promise<MockLlm> {
  const steps = parseScenario(Array.isArray(scenario) ? { steps: scenario } : scenario).steps;
  const requests: RecordedRequest[] = [];
  let next = 0;
  let overflow = 0;

  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: `mock-llm crashed: ${String(error)}` } });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await readBody(req);
    const body = parseJson(text);
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const record: RecordedRequest = { method: req.method ?? 'GET', path, headers: req.headers, body, step: -1 };
    requests.push(record);
    if (req.method === 'GET' && (path === '/v1/models' || path === '/models')) {
      sendJson(res, 200, { object: 'list', data: [{ id: 'mock-model', object: 'model', created: CREATED, owned_by: 'mock-llm' }] });
      return;
    }
    if (req.method !== 'POST' || !CHAT_PATHS.has(path)) {
      sendJson(res, 404, { error: { message: `mock-llm: no route for ${req.method ?? ''} ${path}`, type: 'invalid_request_error' } });
      return;
    }
    const step = steps[next];
    if (step === undefined) {
      overflow += 1;
      sendJson(res, 400, {
        error: { message: `mock-llm: the scenario has no step left for request ${requests.length} (${steps.length} steps)`, type: 'mock_exhausted' },
      });
      return;
    }
    record.step = next;
    next += 1;
    if (step.delayMs !== undefined && step.delayMs > 0) await sleep(step.delayMs);
    if (res.destroyed) return;
    if (isFailureStep(step)) {
      sendFailure(res, step);
      return;
    }
    const request = (typeof body === 'object' && body !== null ? body : {}) as ChatRequestBody;
    if (request.stream === true) await sendStream(res, step, request, record.step);
    else if (step.disconnectAfter !== undefined) res.socket?.destroy();
    else if (typeof step.body === 'string') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(step.body);
    } else sendJson(res, 200, step.body !== undefined ? step.body : completion(step, request, record.step));
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    remaining: () => steps.length - next,
    assertConsumed(): void {
      const problems: string[] = [];
      if (next < steps.length) problems.push(`${steps.length - next} of ${steps.length} scenario steps were not played`);
      if (overflow > 0) problems.push(`${overflow} request(s) arrived after the scenario ran out`);
      if (problems.length > 0) throw new Error(`mock-llm: ${problems.join('; ')}`);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error === undefined ? resolve() : reject(error)));
        server.closeAllConnections();
      }),
  };
}

/** The part of a chat-completions request body the server looks at. */
export interface ChatRequestBody {
  model?: string;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  messages?: Array<{ content?: unknown }>;
}

function sendFailure(res: ServerResponse, step: FailureStep): void {
  const headers: Record<string, string> = { ...step.headers };
  if (step.retryAfter !== undefined) headers['retry-after'] = String(step.retryAfter);
  if (step.retryAfterMs !== undefined) headers['retry-after-ms'] = String(step.retryAfterMs);
  const body = step.body ?? { error: { message: `mock-llm: scripted ${step.status}`, type: 'mock_error', param: null, code: null } };
  if (typeof body === 'string') {
    res.writeHead(step.status, { 'content-type': 'text/plain', ...headers });
    res.end(body);
  } else {
    sendJson(res, step.status, body, headers);
  }
}

interface ScriptedCall {
  id: string;
  name: string;
  arguments: string;
}

function toolCalls(step: ReplyStep, stepIndex: number): ScriptedCall[] {
  return (step.tool_calls ?? []).map((call, i) => ({
    id: call.id ?? `call_${stepIndex}_${i}`,
    name: call.name,
    arguments: call.arguments === undefined ? '{}' : typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
  }));
}

function finishReason(step: ReplyStep): string | null {
  if (step.finish_reason !== undefined) return step.finish_reason;
  return (step.tool_calls ?? []).length > 0 ? 'tool_calls' : 'stop';
}

/** Scripted usage, or a deterministic estimate (about four characters a token). */
function usage(step: ReplyStep, request: ChatRequestBody, calls: ScriptedCall[]): Record<string, number> {
  const prompt = step.usage?.prompt_tokens
    ?? Math.ceil((request.messages ?? []).reduce((n, m) => n + (typeof m.content === 'string' ? m.content.length : 0), 0) / 4);
  const completionTokens = step.usage?.completion_tokens
    ?? Math.ceil(((step.content ?? '').length + calls.reduce((n, c) => n + c.name.length + c.arguments.length, 0)) / 4);
  return { prompt_tokens: prompt, completion_tokens: completionTokens, total_tokens: prompt + completionTokens };
}

function completion(step: ReplyStep, request: ChatRequestBody, stepIndex: number): unknown {
  const calls = toolCalls(step, stepIndex);
  const message: Record<string, unknown> = { role: 'assistant', content: step.content ?? null, refusal: null };
  if (calls.length > 0) {
    message['tool_calls'] = calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
  }
  return {
    id: `chatcmpl-mock-${stepIndex}`,
    object: 'chat.completion',
    created: CREATED,
    model: step.model ?? request.model ?? 'mock-model',
    choices: [{ index: 0, message, finish_reason: finishReason(step), logprobs: null }],
    usage: usage(step, request, calls),
  };
}

/**
 * The SSE events of a streamed reply, in order: a role-only opener, one event per content piece,
 * per tool call an opener (id, name) and its arguments in two halves, the finish event (unless the
 * finish reason is `null`), the usage event (when the request asked for it), then `[DONE]`.
 */
export function streamEvents(step: ReplyStep, request: ChatRequestBody, stepIndex: number): string[] {
  const model = step.model ?? request.model ?? 'mock-model';
  const base = { id: `chatcmpl-mock-${stepIndex}`, object: 'chat.completion.chunk', created: CREATED, model };
  const event = (delta: Record<string, unknown>, finish: string | null = null): string =>
    JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] });
  const calls = toolCalls(step, stepIndex);
  const events = [event({ role: 'assistant', content: '' })];
  const pieces = step.chunks ?? splitWords(step.content ?? '');
  for (const piece of pieces) events.push(event({ content: piece }));
  calls.forEach((call, index) => {
    events.push(event({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    const half = Math.ceil(call.arguments.length / 2);
    for (const part of [call.arguments.slice(0, half), call.arguments.slice(half)]) {
      if (part !== '') events.push(event({ tool_calls: [{ index, function: { arguments: part } }] }));
    }
  });
  const finish = finishReason(step);
  if (finish !== null) events.push(event({}, finish));
  if (request.stream_options?.include_usage === true) {
    events.push(JSON.stringify({ ...base, choices: [], usage: usage(step, request, calls) }));
  }
  events.push('[DONE]');
  return events;
}

async function sendStream(res: ServerResponse, step: ReplyStep, request: ChatRequestBody, stepIndex: number): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.flushHeaders();
  const events = step.events === undefined
    ? streamEvents(step, request, stepIndex)
    : [...step.events.map((e) => (typeof e === 'string' ? e : JSON.stringify(e))), '[DONE]'];
  const cut = step.disconnectAfter ?? Infinity;
  const stall = step.stallAfter ?? Infinity;
  for (const [i, data] of events.entries()) {
    if (i >= cut) {
      // What was written has reached the client (write callbacks ran); now cut the connection mid-body.
      res.socket?.destroy();
      return;
    }
    if (i >= stall) return; // leave the response open and silent; close() drops the connection
    if (res.destroyed) return;
    await new Promise<void>((resolve) => res.write(`data: ${data}\n\n`, () => resolve()));
  }
  res.end();
}

function splitWords(text: string): string[] {
  if (text === '') return [];
  return text.match(/^\s+|\S+\s*/g) ?? [text];
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
