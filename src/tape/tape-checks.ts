/**
 * What a tape file must be beyond each line's schema, checked as its events are read, so that every
 * reader (import, replay, view, diff, ci) refuses the same damaged or altered tapes, each with the
 * file and line at fault:
 *
 * - order: `run_start` first and only once, `seq` consecutive, steps never decreasing, nothing after
 *   `run_end`;
 * - no guardrail decision marked `analysis` (those are made as a tape is read, never recorded);
 * - MCP events consistent with the run and with each other (mcp-checks.ts);
 * - the recorded config (header and `run_start`) valid the way replay reads it: this version's
 *   defaults for settings added since, no unknown fields, tools that exist (built in, or among the
 *   custom tools `run_start` records, each a valid spec within its bounds); `run_start`'s task,
 *   model, seed and config the header's (header-checks.ts, which also checks the header alone);
 * - the end agrees with the header: a `complete` run ends with `run_end`, the header's
 *   `eventCount`, `finalState` and `totals` are the events'. A tape cut short at a line boundary is
 *   refused unless its header says it is the export of an `incomplete` run;
 * - each request's `hash` is the hash of the request rebuilt from the deltas and the tool
 *   definitions (the built-ins', and the custom tools' as `run_start` records them): a tape whose
 *   request content was changed after recording is refused, so a replay cannot say `reproduced` of a
 *   conversation that never took place.
 */
import type { AgentConfig } from '../agent/config.js';
import { checkConfig } from '../agent/config-file.js';
import { applyDeltaInPlace, RequestHasher } from '../agent/request-delta.js';
import { TapeFormatError } from '../core/errors.js';
import type { LlmRequestEvent, RunEndEvent, RunEvent } from '../core/events.js';
import type { LlmRequest } from '../core/llm.js';
import type { ChatMessage, ToolDefinition } from '../core/messages.js';
import type { RunMeta } from '../core/run-meta.js';
import type { ToolSpec } from '../core/tools.js';
import { canonicalJson } from '../guardrails/canonical-json.js';
import { checkRunStart } from './header-checks.js';
import { McpChecks } from './mcp-checks.js';
import { count } from '../core/plural.js';

/** Where a problem is: the tape file and line. */
interface At {
  file: string;
  line: number;
}

/**
 * The recorded config as replay reads it, with the custom tools `run_start` records (`customTools`;
 * none given for the header's config); a bad one is bad tape data (exit 9) at `at`.
 */
export async function checkRecordedConfig(config: Record<string, unknown>, at: At, customTools?: readonly ToolSpec[]): Promise<AgentConfig> {
  let parsed: AgentConfig;
  try {
    parsed = await checkConfig(config, 'the recorded config');
  } catch (error) {
    throw new TapeFormatError((error as Error).message, at);
  }
  // The registry is built from the recorded names and specs alone (no code is loaded): an unknown
  // tool, a time limit for a tool that is not enabled, a custom tool with a built-in's name would
  // stop a replay before it starts. A config whose tool modules' tools are not given (the header's,
  // or a tape from before run_start recorded them) may name tools only those modules define.
  if (customTools !== undefined || parsed.toolModules.length === 0) {
    const { recordedRegistry } = await import('../agent/tool-registry.js');
    try {
      recordedRegistry(parsed, customTools ?? []);
    } catch (error) {
      throw new TapeFormatError(`the recorded config: ${(error as Error).message}`, at);
    }
  }
  return parsed;
}

/**
 * What the request checks need of the tool registry; loaded with the run's config (see `start`).
 * `custom`: the run's custom tools as its run_start records them, or null when it does not (a tape
 * from before it did, whose tool modules' definitions are then unknown).
 */
interface ToolCatalog {
  isBuiltinToolName(name: string): boolean;
  custom: readonly ToolSpec[] | null;
  definitions(names: readonly string[]): ToolDefinition[];
}

async function loadToolCatalog(start: { config: Record<string, unknown>; customTools?: ToolSpec[] | undefined }): Promise<ToolCatalog> {
  const [{ isBuiltinToolName }, { ToolRegistry }, { specOnlyTool }, { recordedCustomTools }] = await Promise.all([
    import('../tools/builtins.js'), import('../tools/registry.js'), import('../tools/tool.js'), import('../agent/tool-registry.js'),
  ]);
  const custom = recordedCustomTools(start);
  const tools = (custom ?? []).map(specOnlyTool);
  return { isBuiltinToolName, custom, definitions: (names) => ToolRegistry.fromNames(names, { custom: tools }).definitions() };
}

/**
 * Checks one tape's events in order: `start()` for the first (it reads the recorded config), then
 * `event()` for every other, synchronously; `finish()` checks the end against the header.
 */
export class TapeChecks {
  private expectedSeq = 0;
  private lastStep = 0;
  private end: { event: RunEndEvent; line: number } | null = null;
  private requests: RequestChecks | null = null;
  private sawState = false;
  private config: AgentConfig | null = null;
  private configIsEmpty = false;
  private tools: ToolCatalog | null = null;
  private readonly mcp: McpChecks;

  constructor(
    private readonly file: string,
    private readonly meta: RunMeta,
  ) {
    this.mcp = new McpChecks(meta);
  }

  /** Number of events checked so far. */
  get count(): number {
    return this.expectedSeq;
  }

  /** The first event, which must be run_start: its config is checked as replay will read it. */
  async start(event: RunEvent, line: number): Promise<void> {
    if (event.type === 'run_start' && event.seq === 0) {
      checkRunStart(this.meta, event, { file: this.file, line });
      this.config = await checkRecordedConfig(event.config, { file: this.file, line }, event.customTools);
      this.configIsEmpty = Object.keys(event.config).length === 0;
      this.tools = await loadToolCatalog(event);
    }
    this.event(event, line);
  }

  event(event: RunEvent, line: number): void {
    const fail = (detail: string): never => {
      throw new TapeFormatError(detail, { file: this.file, line });
    };
    if (event.seq !== this.expectedSeq) fail(`event seq ${event.seq} where ${this.expectedSeq} was expected (missing or reordered lines)`);
    if (this.end !== null) fail(`${event.type} after run_end (line ${this.end.line}): run_end is the last event of a run`);
    if (event.seq === 0 && (event.type !== 'run_start' || this.config === null)) fail(`the first event is ${event.type}: a run starts with run_start`);
    if (event.seq > 0 && event.type === 'run_start') fail('a second run_start');
    // An analysis is made as a tape is read, from what it holds: a tape that holds one passes off what
    // the guardrails would have decided as what they did.
    if (event.type === 'guardrail' && event.analysis === true) fail('a guardrail decision marked as analysis: a tape records what happened, never what the guardrails would have decided');
    // Calls recorded at the transport (library, proxy) may overlap: their steps interleave.
    const overlapping = this.meta.source === 'library' || this.meta.source === 'proxy';
    if (event.step < this.lastStep && !overlapping) fail(`event ${event.seq} goes back from step ${this.lastStep} to ${event.step}`);
    const mcpProblem = this.mcp.check(event);
    if (mcpProblem !== null) fail(mcpProblem);
    this.expectedSeq++;
    this.lastStep = event.step;
    switch (event.type) {
      case 'state':
        this.sawState = true;
        break;
      case 'llm_request': {
        // A run recorded at the transport (the library, the proxy; older library runs have an empty
        // config and no loop states): its requests' tool definitions were the caller's and are not on
        // the tape. Any other run is the loop's, whose requests a replay rebuilds: each must check out.
        const byTheLoop = this.meta.source === undefined || this.meta.source === 'cli' ? this.sawState || !this.configIsEmpty : false;
        this.requests ??= new RequestChecks(this.config as AgentConfig, this.tools as ToolCatalog, byTheLoop);
        const problem = this.requests.check(event);
        if (problem !== null) fail(problem);
        break;
      }
      case 'run_end':
        this.end = { event, line };
        if (this.meta.finalState !== undefined && this.meta.finalState !== event.state) {
          fail(`run_end says ${event.state}; the header's finalState is ${this.meta.finalState}`);
        }
        if (this.meta.totals !== undefined && canonicalJson(this.meta.totals) !== canonicalJson(event.totals)) {
          fail(`run_end's totals differ from the header's (${canonicalJson(this.meta.totals)})`);
        }
        break;
      default:
        break;
    }
  }

  /** After the last event (on `lastLine`): the tape must be as long and end as its header says. */
  finish(lastLine: number): void {
    const at = { file: this.file, line: lastLine + 1 };
    const { eventCount, status, finalState } = this.meta;
    if (eventCount !== undefined && this.count !== eventCount) {
      throw new TapeFormatError(`the tape ends after ${count(this.count, 'event')}; its header says ${eventCount} (truncated?)`, at);
    }
    if (this.end === null && status === 'complete') {
      throw new TapeFormatError('the tape ends without run_end, but its header says the run is complete (truncated?)', at);
    }
    if (this.end === null && finalState !== undefined) {
      throw new TapeFormatError(`the tape ends without run_end, but its header gives a final state (${finalState})`, at);
    }
  }
}

/** A placeholder for a message already hashed: the hasher keeps its digest, the reader need not keep it. */
const HASHED: ChatMessage = { role: 'user', content: '' };

/**
 * Rebuilds each request from its delta, as replay does, and checks its hash with the request-hash
 * code the loop records with. The conversation is updated in place (no copy per step) and holds no
 * message once its digest is taken, so checking costs work per new message and little memory.
 */
class RequestChecks {
  private readonly hasher = new RequestHasher();
  private readonly messages: ChatMessage[] = [];
  private readonly definitions = new Map<string, ToolDefinition[] | null | string>();

  constructor(
    private readonly config: AgentConfig,
    private readonly tools: ToolCatalog,
    private readonly strict: boolean,
  ) {}

  /** Null when the request checks out, else what is wrong. */
  check(event: LlmRequestEvent): string | null {
    if (event.prefix > this.messages.length) {
      return `request ${event.iteration} keeps ${count(event.prefix, 'message')} of the previous request, which had ${this.messages.length}`;
    }
    applyDeltaInPlace(this.messages, event);
    if (!this.strict) {
      this.messages.fill(HASHED, event.prefix);
      return null;
    }
    const tools = this.toolDefinitions(event.tools);
    if (typeof tools === 'string') return tools;
    const request: LlmRequest = { model: event.model, messages: this.messages, tools: tools ?? [], stream: event.stream };
    if (this.config.maxTokens > 0) request.maxTokens = this.config.maxTokens;
    if (this.config.temperature !== undefined) request.temperature = this.config.temperature;
    const hash = this.hasher.hash(request, event);
    this.messages.fill(HASHED, event.prefix);
    if (tools === null || hash === event.hash) return null;
    return `request ${event.iteration}: its hash does not match the request rebuilt from the tape (its content was changed after recording, or it was recorded with other tool definitions than this agentctl's)`;
  }

  /**
   * The definitions the request was sent with, from its tool names: the built-ins are known, and a
   * custom tool's is the one run_start records (null: a tape that does not record them, whose hash
   * cannot be checked).
   */
  private toolDefinitions(names: readonly string[]): ToolDefinition[] | null | string {
    const key = names.join('\n');
    let found = this.definitions.get(key);
    if (found === undefined) this.definitions.set(key, (found = this.definitionsOf(names)));
    return found;
  }

  private definitionsOf(names: readonly string[]): ToolDefinition[] | null | string {
    const { custom } = this.tools;
    const unknown = names.find((name) => !this.tools.isBuiltinToolName(name) && !custom?.some((tool) => tool.name === name));
    if (unknown !== undefined) {
      if (custom === null) return null;
      return `the request names tool '${unknown}', which is neither built in nor one of the run's recorded custom tools`;
    }
    try {
      return this.tools.definitions(names);
    } catch (error) {
      return `the request's tools: ${(error as Error).message}`;
    }
  }
}
