/**
 * Requests are stored as deltas: how many leading messages equal the previous request's, and the
 * messages after them. Appending turns keep the tape linear in run length; a trimmed context simply
 * has a shorter common prefix. The hash covers the whole request, so a rebuilt request is checkable.
 *
 * The hash chains message digests (each message hashed once, then folded into the digest of the
 * conversation before it), so a long run costs work per *new* message, not per message per step.
 */
import type { LlmRequest } from '../core/llm.js';
import type { ChatMessage, ToolDefinition } from '../core/messages.js';
import { NO_REDACTION, type Redactor } from '../core/redact.js';
import { sameJson } from '../core/same-json.js';
import { sha256Hex } from '../guardrails/call-key.js';
import { canonicalJson } from '../guardrails/canonical-json.js';

export interface RequestDelta {
  prefix: number;
  append: ChatMessage[];
}

/** One-shot sha-256 where Node has it (same digest as createHash). */
const sha256 = sha256Hex;
const identity: Redactor = NO_REDACTION;

/** The delta that turns `previous` into `next`. */
export function requestDelta(previous: readonly ChatMessage[], next: readonly ChatMessage[]): RequestDelta {
  let prefix = 0;
  const max = Math.min(previous.length, next.length);
  // Same object → same message; only messages that are new objects need serialising.
  while (prefix < max && (previous[prefix] === next[prefix] || canonicalJson(previous[prefix]) === canonicalJson(next[prefix]))) prefix++;
  return { prefix, append: next.slice(prefix) };
}

/** Rebuild a request's messages from the previous request's and a delta. */
export function applyDelta(previous: readonly ChatMessage[], delta: RequestDelta): ChatMessage[] {
  return [...previous.slice(0, delta.prefix), ...delta.append];
}

/** Apply a delta to `messages` in place (no copy of the unchanged prefix). */
export function applyDeltaInPlace(messages: ChatMessage[], delta: RequestDelta): void {
  messages.length = Math.min(messages.length, delta.prefix);
  for (const message of delta.append) messages.push(message);
}

/** The digest of the conversation `messages[0..i]`, given the one before it. */
function chainStep(before: string, message: ChatMessage, redact: Redactor): string {
  return sha256(`${before}:${sha256(canonicalJson(redact(message)))}`);
}

const NO_TOOLS: readonly ToolDefinition[] = [];
/** Canonical JSON of a tool list, per redactor and list: a run sends the same list every step. */
const toolsJsonCache = new WeakMap<Redactor, WeakMap<readonly ToolDefinition[], string>>();

function toolsJson(tools: readonly ToolDefinition[], redact: Redactor): string {
  let byList = toolsJsonCache.get(redact);
  if (byList === undefined) toolsJsonCache.set(redact, (byList = new WeakMap()));
  let json = byList.get(tools);
  if (json === undefined) byList.set(tools, (json = canonicalJson(redact(tools))));
  return json;
}

/**
 * sha-256 of everything that decides the model's answer, from the digest of its messages: the
 * canonical JSON of `{maxTokens, messages, model, stream, temperature, tools}` (plus `endpoint` and
 * `params` for requests recorded at the transport), with `tools` (last
 * in key order) spliced in from the cache instead of being serialised again every step.
 */
function finalHash(request: LlmRequest, messages: string, redact: Redactor): string {
  const fields: Record<string, unknown> = {
    maxTokens: request.maxTokens ?? null,
    messages,
    model: request.model,
    stream: request.stream,
    temperature: request.temperature ?? null,
  };
  // Only requests recorded at the transport have these; a loop request's hash leaves them out, as its tapes' hashes do.
  if (request.endpoint !== undefined && request.endpoint !== 'chat') fields.endpoint = request.endpoint;
  if (request.params !== undefined && Object.keys(request.params).length > 0) fields.params = request.params;
  const head = canonicalJson(redact(fields));
  return sha256(`${head.slice(0, -1)},"tools":${toolsJson(request.tools ?? NO_TOOLS, redact)}}`);
}

/**
 * sha-256 of a whole request — model, messages, tools, parameters — over its redacted form when a
 * redactor is given (a tape only holds redacted text, so replays hash what recordings hashed).
 */
export function requestHash(request: LlmRequest, redact: Redactor = identity): string {
  let chain = '';
  for (const message of request.messages) chain = chainStep(chain, message, redact);
  return finalHash(request, chain, redact);
}

/**
 * What the tape says a request was: its delta, hash and visible settings (an `llm_request` event).
 * A replay hands the hasher the recorded request of the step it is at (see RequestHasher.hash).
 */
export interface RecordedRequest {
  readonly prefix: number;
  readonly append: readonly ChatMessage[];
  readonly hash: string;
  readonly model: string;
  readonly stream: boolean;
  readonly tools: readonly string[];
}

/**
 * requestHash for one conversation's successive requests, reusing the digests of the unchanged
 * prefix: give it each request with its delta against the one before.
 *
 * In a replay it may also be given the request the tape recorded at that point. A request that is
 * the recorded one — the same delta after a conversation that was the recorded one, with the
 * settings of an earlier request that hashed to the recorded hash — has the recorded hash, and takes
 * it without hashing again: the tape's hashes are of its own conversation (a tape file's checks
 * verified them; the store holds what agentctl wrote), and nothing a hash covers has changed. Any
 * other request is hashed in full, so the answer is the same either way (request-delta.test.ts).
 */
export class RequestHasher {
  /** chain[i]: the digest of messages[0..i], for the messages hashed so far. */
  private readonly chain: string[] = [];
  /**
   * The last request hashed in full, when it had the recorded hash and every request since was the
   * recorded one: its settings are the recording's. Null otherwise.
   */
  private anchor: LlmRequest | null = null;

  constructor(private readonly redact: Redactor = identity) {}

  hash(request: LlmRequest, delta: RequestDelta, recorded?: RecordedRequest): string {
    this.chain.length = Math.min(this.chain.length, delta.prefix);
    if (recorded !== undefined && this.isRecorded(request, delta, recorded)) return recorded.hash;
    for (let i = this.chain.length; i < request.messages.length; i++) {
      this.chain.push(chainStep(this.chain[i - 1] ?? '', request.messages[i] as ChatMessage, this.redact));
    }
    const hash = finalHash(request, this.chain.at(-1) ?? '', this.redact);
    this.anchor = recorded !== undefined && hash === recorded.hash ? request : null;
    return hash;
  }

  /**
   * Whether `request` is the recorded one: the conversation before it was the recorded one (the
   * anchor, and requests taken as recorded since), its settings are the anchor's, and its delta is
   * the recorded delta — each new message equal to the recorded one and unchanged by redaction, as
   * the recorded messages were when they were hashed.
   */
  private isRecorded(request: LlmRequest, delta: RequestDelta, recorded: RecordedRequest): boolean {
    const anchor = this.anchor;
    // A digest the redactor could change (a pattern of the user's might) cannot be vouched for unhashed.
    if (anchor === null || this.redact.keepsHex !== true || request.endpoint !== undefined || request.params !== undefined) return false;
    if (request.model !== anchor.model || request.stream !== anchor.stream || request.tools !== anchor.tools) return false;
    if (request.maxTokens !== anchor.maxTokens || request.temperature !== anchor.temperature) return false;
    if (recorded.model !== request.model || recorded.stream !== request.stream || !sameNames(recorded.tools, request.tools ?? NO_TOOLS)) return false;
    if (recorded.prefix !== delta.prefix || recorded.append.length !== delta.append.length) return false;
    for (let i = 0; i < delta.append.length; i++) {
      const message = delta.append[i] as ChatMessage;
      if (this.redact(message) !== message || !sameJson(message, recorded.append[i])) return false;
    }
    return true;
  }
}

function sameNames(names: readonly string[], tools: readonly ToolDefinition[]): boolean {
  if (names.length !== tools.length) return false;
  for (let i = 0; i < names.length; i++) if (names[i] !== tools[i]?.function.name) return false;
  return true;
}
