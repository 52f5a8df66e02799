/**
 * The guardrails as LangChain 1.x agent middleware (src/adapters/langchain.ts): a createAgent agent
 * whose ChatOpenAI talks to a scripted model on 127.0.0.1 through agentctl's recording `fetch`, on
 * the scripts the built-in loop's own tests use — and the middleware decides what the built-in loop
 * decides on the same script, step for step and call for call, and ends the run where it ends it.
 * The decisions go onto the recorded run (createGuardrails' `tape`); the same looping agent recorded
 * without the middleware is analysed (analyseRun) to the same decisions.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChatOpenAI } from '@langchain/openai';
import { AIMessage, HumanMessage, ToolMessage, createAgent, tool, toolErrorMiddleware, type BaseMessage } from 'langchain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { langchainGuardrails, type LangChainMessageLike, type LangChainToolCall } from '../src/adapters/langchain.js';
import type { RunEvent } from '../src/core/events.js';
import type { RunMeta } from '../src/core/run-meta.js';
import type { GuardrailDecision, GuardrailsConfig } from '../src/guardrails/guardrail-session.js';
import { createGuardrails } from '../src/library/live-guardrails.js';
import { record } from '../src/library/record-replay.js';
import { analyseRun } from '../src/replay/guardrail-analysis.js';
import { openTapeFile } from '../src/tape/tape-file.js';
import { ofType, useLoopHarness } from './support/loop-harness.js';
import { startMockLlm } from './support/mock-llm.js';
import { loadScenario, type ScenarioStep } from './support/scenario.js';

const API_KEY = 'sk-test-langchain-0123456789abcdef';
const CONTENT = 'export const add = (a, b) => a + b;';

/** The looping model: the same read four times (ids call_0…call_3); the answer after them is never asked for. */
const LOOP: ScenarioStep[] = [
  ...[0, 1, 2, 3].map((i) => ({ tool_calls: [{ name: 'read_file', arguments: { path: 'src/add.js' }, id: `call_${i}` }] })),
  { content: 'never sent' },
];

/** A decision as both drivers make it, without the wording of its reason. */
const shape = (d: { step?: number; callId?: string; gate: string; verdict: string; rule: string; tool?: string; key?: string }) =>
  [d.step, d.callId, d.gate, d.verdict, d.rule, d.tool, d.key];

let dir: string;
beforeAll(async () => (dir = await mkdtemp(join(tmpdir(), 'agentctl-langchain-'))));
afterAll(() => rm(dir, { recursive: true, force: true }));

const harness = useLoopHarness();

interface LangChainRun {
  decisions: GuardrailDecision[];
  messages: Array<{ type: string; text: string; tool_call_id?: string; status?: string }>;
  /** The tools' runs, by name. */
  runs: Record<string, number>;
  requests: number;
  /** The messages of each request the model received: role and text. */
  asked: Array<Array<{ role: string; content: unknown }>>;
  meta: RunMeta;
  events: RunEvent[];
  stopped: { rule: string; reason: string } | null;
  /** What the agent's invoke threw, if it did. */
  error: unknown;
}

/**
 * A createAgent agent, asked `turns` one after the other, with `read_file` (a file under src/; any other path does not exist) and
 * `list_dir` on `script`, recorded onto a tape file, with the guardrails as middleware (and LangChain's
 * toolErrorMiddleware inside them, so a failing tool's error reaches the model as a tool message).
 */
interface RunOptions {
  config?: GuardrailsConfig;
  turns?: string[];
  /** Leave LangChain's toolErrorMiddleware out: a tool's throw is not turned into a tool message. */
  throwing?: boolean;
  /** Run the agent without the guardrails (default: with them). */
  unguarded?: boolean;
}

async function runLangChain(name: string, script: ScenarioStep[], options: RunOptions = {}): Promise<LangChainRun> {
  const { config = {}, turns = ['Fix the failing test in this project.'] } = options;
  const llm = await startMockLlm(script);
  const tape = join(dir, `${name}.tape.jsonl`);
  const runs: Record<string, number> = {};
  const ran = (tool: string) => (runs[tool] = (runs[tool] ?? 0) + 1);
  const readFile = tool(
    ({ path }) => {
      ran('read_file');
      if (!path.startsWith('src/')) throw new Error(`no such file: ${path}`);
      return CONTENT;
    },
    { name: 'read_file', description: 'Read a file of the project', schema: z.object({ path: z.string() }) },
  );
  const listDir = tool(() => (ran('list_dir'), 'src/'), { name: 'list_dir', description: 'List a directory', schema: z.object({ path: z.string() }) });
  try {
    const session = await record({ tape });
    // The decisions go onto the run being recorded.
    const decisions: GuardrailDecision[] = [];
    const guardrails = createGuardrails({ ...config, tape: session, onDecision: (d) => decisions.push(d) });
    const model = new ChatOpenAI({ model: 'test-model', apiKey: API_KEY, maxRetries: 0, configuration: { baseURL: llm.baseURL, fetch: session.fetch } });
    const agent = createAgent({
      model,
      tools: [readFile, listDir],
      middleware: [
        ...(options.unguarded === true ? [] : [langchainGuardrails(guardrails, { ToolMessage })]),
        ...(options.throwing === true ? [] : [toolErrorMiddleware({ onError: (error) => String(error) })]),
      ],
    });
    // Each turn is the conversation so far and the user's next message.
    let history: BaseMessage[] = [];
    let error: unknown;
    try {
      for (const turn of turns) history = (await agent.invoke({ messages: [...history, new HumanMessage(turn)] })).messages;
    } catch (thrown) {
      error = thrown;
    }
    await session.finish();
    const recorded = await openTapeFile(tape);
    const events: RunEvent[] = [];
    for await (const event of recorded.events()) events.push(event);
    const messages = history.map((m) => ({
      type: m.type, text: m.text, ...(ToolMessage.isInstance(m) ? { tool_call_id: m.tool_call_id, status: m.status ?? 'success' } : {}),
    }));
    const asked = llm.requests.map((r) => (r.body as { messages: Array<{ role: string; content: unknown }> }).messages);
    return { decisions, messages, runs, requests: llm.requests.length, asked, meta: recorded.meta, events, stopped: guardrails.stopped, error };
  } finally {
    await llm.close();
  }
}

/** The tool messages of a run: call id, status, text. */
const toolMessages = (run: LangChainRun) => run.messages.filter((m) => m.type === 'tool').map((m) => [m.tool_call_id, m.status, m.text]);

describe('langchainGuardrails: LangChain 1.x agent middleware', () => {
  it('stops a looping agent where the built-in loop stops it: the read runs once, a duplicate, a block, the repetition stop before the 4th step runs', async () => {
    const run = await runLangChain('loop', LOOP);

    expect(run.runs).toEqual({ read_file: 1 });
    expect(run.requests).toBe(4);
    expect(run.stopped).toMatchObject({ rule: 'repetition' });

    // Per call: allowed and ran, skipped as a duplicate, blocked; the stop at step 3 before its call.
    const verdicts = run.decisions.filter((d) => d.gate !== 'arguments').map((d) => [d.step, d.callId ?? null, d.gate, d.verdict, d.rule]);
    expect(verdicts).toEqual([
      [0, null, 'repetition', 'continue', 'new_tool_step'],
      [0, 'call_0', 'loop_guard', 'allow', 'first_attempt'],
      [0, 'call_0', 'replay_control', 'allow', 'first_call'],
      [0, 'call_0', 'failures', 'continue', 'failure_reset'],
      [1, null, 'repetition', 'continue', 'repeated_tool_step'],
      [1, 'call_1', 'loop_guard', 'allow', 'identical_call'],
      [1, 'call_1', 'replay_control', 'skip', 'duplicate_success'],
      [2, null, 'repetition', 'continue', 'repeated_tool_step'],
      [2, 'call_2', 'loop_guard', 'block', 'identical_call_block'],
      [3, null, 'repetition', 'stuck', 'repetition'],
    ]);

    // The conversation: the result, the same result for the duplicate, the block text, the stopped
    // call answered with the reason, and a last message that says why the run ended.
    expect(toolMessages(run)).toEqual([
      ['call_0', 'success', CONTENT],
      ['call_1', 'success', CONTENT],
      ['call_2', 'error', expect.stringMatching(/^Blocked: you have requested `read_file` with exactly these arguments 3 times/)],
      ['call_3', 'error', expect.stringMatching(/^Not run: the guardrails stopped the run: repetition: /)],
    ]);
    expect(run.messages.at(-1)).toMatchObject({ type: 'ai', text: `The guardrails stopped the run: ${run.stopped?.reason}` });

    // The built-in loop on the same script: the same decisions, the same stop.
    const builtIn = await harness.run(LOOP, { fixture: 'calc' });
    expect(builtIn.result).toMatchObject({ state: 'ERROR', reason: run.stopped?.reason });
    expect(run.decisions.map(shape)).toEqual(ofType(builtIn.events, 'guardrail').map(shape));

    // On the tape: the four model calls, and every decision at the step of the model call that asked.
    expect(run.events.filter((e) => e.type === 'llm_response').map((e) => e.step)).toEqual([0, 1, 2, 3]);
    expect(ofType(run.events, 'guardrail').map(shape)).toEqual(run.decisions.map(shape));
    // The analysis of that tape finds no stop it does not already show.
    expect(analyseRun(run.meta, run.events).stop).toBeNull();

    // The same agent without the guardrails loops on to its answer, reading four times; the analysis
    // of its tape makes the middleware's decisions, and its stop point is the first call the middleware
    // refused to run (the identical-call block of step 2).
    const unguarded = await runLangChain('loop-unguarded', LOOP, { unguarded: true });
    expect(unguarded.runs).toEqual({ read_file: 4 });
    const analysis = analyseRun(unguarded.meta, unguarded.events);
    expect(analysis.decisions.map(shape)).toEqual(run.decisions.map(shape));
    const firstRefusal = run.decisions.find((d) => ['block', 'stuck', 'halt'].includes(d.verdict));
    expect(firstRefusal).toMatchObject({ step: 2, callId: 'call_2', rule: 'identical_call_block' });
    const { step, callId, gate, rule } = firstRefusal ?? {};
    expect(analysis.stop).toMatchObject({ step, callId, gate, rule });
  });

  it('a tool that keeps failing, many calls a step: warned at the 3rd failure in a row, halted at the 8th, the rest of the step refused, the run stopped before the next model call', async () => {
    const script = loadScenario('failure-halt');
    const run = await runLangChain('failure-halt', script.steps);

    // Both steps' calls in the order the model made them, each judged after the one before it settled.
    expect(run.runs).toEqual({ read_file: 8 });
    expect(run.requests).toBe(2);
    expect(run.stopped).toMatchObject({ rule: 'consecutive_failures_halt' });
    const failures = run.decisions.filter((d) => d.gate === 'failures').map((d) => [d.step, d.callId, d.verdict]);
    expect(failures).toEqual([
      [0, 'call_0_0', 'continue'], [0, 'call_0_1', 'continue'], [0, 'call_0_2', 'warn'],
      [1, 'call_1_0', 'continue'], [1, 'call_1_1', 'continue'], [1, 'call_1_2', 'continue'], [1, 'call_1_3', 'continue'], [1, 'call_1_4', 'halt'],
    ]);

    // The model reads each error, with the failure watch's warning at its end from the 3rd on; the
    // call after the halt is refused; the run ends saying why.
    const tools = toolMessages(run);
    expect(tools[0]).toEqual(['call_0_0', 'error', 'Error: no such file: logs/server.log']);
    expect(tools[2]).toEqual(['call_0_2', 'error', expect.stringMatching(/^Error: no such file: log\/server\.log\n\nWarning: `read_file` has failed 3 consecutive times/)]);
    expect(tools[8]).toEqual(['call_1_5', 'error', 'Not run: an earlier call in this step (`read_file`) stopped the run for repeated failures.']);
    expect(run.messages.at(-1)).toMatchObject({ type: 'ai', text: `The guardrails stopped the run: ${run.stopped?.reason}` });

    const builtIn = await harness.run(script, { fixture: 'calc' });
    expect(builtIn.result).toMatchObject({ state: 'ERROR', reason: run.stopped?.reason });
    expect(run.decisions.map(shape)).toEqual(ofType(builtIn.events, 'guardrail').map(shape));
    expect(ofType(run.events, 'guardrail').map(shape)).toEqual(run.decisions.map(shape));
  });

  it('a halt nudge: the halt becomes a message to the model before its next call, and the run goes on to its answer', async () => {
    const script = loadScenario('halt-nudge');
    const config = { failureWarn: 2, failureHalt: 3, haltNudges: 1 };
    const run = await runLangChain('halt-nudge', script.steps, { config });

    expect(run.stopped).toBeNull();
    expect(run.requests).toBe(6);
    expect(run.messages.at(-1)).toMatchObject({ type: 'ai', text: expect.stringMatching(/^There is no log file/) });
    // The 4th request ends with the halt's text as a user message, after the 3rd failure's tool message.
    expect(run.asked[3]?.slice(-2).map((m) => m.role)).toEqual(['tool', 'user']);
    expect(run.asked[3]?.at(-1)?.content).toMatch(/^`read_file` has failed 3 consecutive times\. Stop retrying it/);

    const builtIn = await harness.run(script, { fixture: 'demo', config: { guardrails: config } });
    expect(builtIn.result.state).toBe('COMPLETED');
    expect(run.decisions.map(shape)).toEqual(ofType(builtIn.events, 'guardrail').map(shape));
    expect(ofType(run.events, 'guardrail').map(shape)).toEqual(run.decisions.map(shape));
  });

  it('a new user message is a new turn: the per-turn gates start afresh, the steps count on', async () => {
    const read = (id: string) => ({ tool_calls: [{ name: 'read_file', arguments: { path: 'src/add.js' }, id }] });
    const run = await runLangChain('turns', [read('a'), read('b'), { content: 'done' }, read('c'), { content: 'done again' }], {
      turns: ['Read add.js.', 'Read it again.'],
    });

    expect(run.runs).toEqual({ read_file: 2 });
    const dedup = run.decisions.filter((d) => d.gate === 'replay_control').map((d) => [d.step, d.callId, d.verdict]);
    expect(dedup).toEqual([[0, 'a', 'allow'], [1, 'b', 'skip'], [3, 'c', 'allow']]);
  });

  it('without a middleware that turns tool errors into messages, a throw is counted as the call\'s failure and ends the run as LangChain ends it', async () => {
    const run = await runLangChain('throwing', [{ tool_calls: [{ name: 'read_file', arguments: { path: 'logs/server.log' }, id: 'x' }] }], {
      config: { failureWarn: 1 }, throwing: true,
    });
    expect(String(run.error)).toMatch(/no such file: logs\/server\.log/);
    expect(run.decisions.filter((d) => d.gate === 'failures').map((d) => [d.callId, d.verdict, d.rule])).toEqual([['x', 'warn', 'consecutive_failures_warn']]);
  });
});

describe('langchainGuardrails: its hooks called as the agent loop calls them', () => {
  /** The middleware on guardrails without a tape (they count the steps themselves), and each hook as LangChain calls it. */
  function middleware() {
    const guardrails = createGuardrails();
    const mw = langchainGuardrails(guardrails, { ToolMessage });
    const messages: LangChainMessageLike[] = [];
    let runs = 0;
    const tools = (calls: LangChainToolCall[], content: (call: LangChainToolCall) => ToolMessage['content'] = () => 'port 8080') =>
      Promise.all(calls.map((toolCall) => mw.wrapToolCall({ toolCall }, () => (runs++, new ToolMessage({ content: content(toolCall), tool_call_id: toolCall.id ?? '', name: toolCall.name })))));
    return {
      guardrails,
      runs: () => runs,
      /** A user message, then the model's answer asking for `calls` (none: the turn's answer), and the calls run. */
      async step(user: LangChainMessageLike | undefined, calls: LangChainToolCall[], content?: (call: LangChainToolCall) => ToolMessage['content']) {
        if (user !== undefined) messages.push(user);
        mw.beforeModel.hook({ messages });
        messages.push(new AIMessage({ content: calls.length === 0 ? 'done' : '', tool_calls: calls.map((c) => ({ ...c, args: c.args as Record<string, unknown> })) }));
        mw.afterModel.hook({ messages });
        return tools(calls, content);
      },
    };
  }
  const read = (id: string | undefined) => ({ ...(id === undefined ? {} : { id }), name: 'read_file', args: { path: 'src/add.js' } });

  it('a turn\'s answer ends its step: the next turn\'s calls are at the step after it', async () => {
    const agent = middleware();
    await agent.step(new HumanMessage('Read add.js.'), [read('a')]);
    await agent.step(undefined, []);
    await agent.step(new HumanMessage('Read it again.'), [read('b')]);
    expect(agent.guardrails.decisions.filter((d) => d.gate === 'replay_control').map((d) => [d.step, d.callId, d.verdict])).toEqual([[0, 'a', 'allow'], [2, 'b', 'allow']]);
  });

  it('a user message known only by getType() is a new turn too', async () => {
    const agent = middleware();
    await agent.step(new HumanMessage('Read add.js.'), [read('a')]);
    await agent.step(undefined, []);
    await agent.step({ getType: () => 'human', content: 'Read it again.' }, [read('b')]);
    expect(agent.runs()).toBe(2);
  });

  it('calls without ids, run at once, are each their own call', async () => {
    const agent = middleware();
    const answers = await agent.step(new HumanMessage('Read both.'), [read(undefined), { name: 'list_dir', args: { path: 'src' } }]);
    expect(agent.runs()).toBe(2);
    expect(answers.map((m) => (m as ToolMessage).text)).toEqual(['port 8080', 'port 8080']);
    expect(new Set(agent.guardrails.decisions.flatMap((d) => (d.callId === undefined ? [] : [d.callId]))).size).toBe(2);
  });

  it('a duplicate is answered with the text of the earlier result, its content blocks joined', async () => {
    const agent = middleware();
    const blocks = () => [{ type: 'text', text: 'port ' }, { type: 'text', text: '8080' }];
    await agent.step(new HumanMessage('Read add.js.'), [read('a')], blocks);
    const [duplicate] = await agent.step(undefined, [read('b')], blocks);
    expect(agent.runs()).toBe(1);
    expect((duplicate as ToolMessage).text).toBe('port 8080');
  });
});
