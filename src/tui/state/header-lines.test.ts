import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../core/events.js';
import { demoEvents } from '../test-support/demo-events.js';
import { withAnalysis } from '../../replay/analysis-events.js';
import { loopingAnalysis, loopingEvents } from '../../replay/test-support/looping-run.js';
import { headerLines } from './header-lines.js';
import { addEvents, emptyModel, endRun, type RunEnding, type TuiMode } from './run-model.js';

function firstLine(config: Record<string, unknown>): string {
  const start: RunEvent = { type: 'run_start', seq: 0, step: 0, t: 0, task: 'probe', model: 'gpt-test', seed: 0, config };
  const model = addEvents(emptyModel({ mode: 'recording', runId: '01M80BD0DH1T99S5EY9167MAX2' }), [start]);
  return headerLines(model, { selected: -1, waitedMs: 0, quitting: false })[0]?.text ?? '';
}

describe('the header’s first line', () => {
  it('says UNCONFINED when the run’s exec_shell ran without the sandbox', () => {
    expect(firstLine({ sandbox: 'none' })).toBe('agentctl RECORDING run 01M80BD0DH · gpt-test · UNCONFINED');
  });

  it('says nothing more in the sandbox, or for a run recorded before the setting', () => {
    expect(firstLine({ sandbox: { network: false } })).toBe('agentctl RECORDING run 01M80BD0DH · gpt-test');
    expect(firstLine({ sandbox: { network: true } })).toBe('agentctl RECORDING run 01M80BD0DH · gpt-test');
    expect(firstLine({})).toBe('agentctl RECORDING run 01M80BD0DH · gpt-test');
  });
});

describe('the header’s step line', () => {
  async function lineFor(selected: number, mode: 'viewing' | 'replaying', change: (event: RunEvent) => RunEvent = (e) => e): Promise<string> {
    const model = addEvents(emptyModel({ mode, runId: '01DEMO' }), (await demoEvents()).map(change));
    return headerLines(model, { selected, waitedMs: 0, quitting: false })[2]?.text ?? '';
  }

  it('shows the selected step’s tokens and cost, with the run’s beside them', async () => {
    // A price per token, so each step's cost differs: the budget events carry the run's cost so far.
    const priced = (event: RunEvent): RunEvent => (event.type === 'budget' ? { ...event, cost: (event.inputTokens + event.outputTokens) / 10_000 } : event);
    expect(await lineFor(3, 'viewing', priced)).toBe('step 3 (4 of 5) · tokens 153 in/23 out $0.0176 · run 697 $0.0697');
    expect(await lineFor(0, 'viewing', priced)).toBe('step 0 (1 of 5) · tokens 56 in/14 out $0.0070 · run 697 $0.0697');
  });

  it('puts a replay’s verdict before the figures, and the budgets with the run’s figures', async () => {
    const line = await lineFor(3, 'replaying');
    expect(line).toBe('step 3 (4 of 5) · reproduced so far · tokens 153 in/23 out $0.0000 · run 697 $0.0000');
    const budgeted = (event: RunEvent): RunEvent =>
      event.type === 'run_start' ? { ...event, config: { ...event.config, limits: { ...(event.config['limits'] as object), tokenBudget: 1000, costLimit: 0.5 } } } : event;
    expect(await lineFor(1, 'viewing', budgeted)).toBe('step 1 (2 of 5) · tokens 70 in/20 out $0.0000 · run 697/1000 [███████░░░] $0.0000/$0.5 [░░░░░░░░░░]');
  });
});

describe('the header’s status line while a run comes in', () => {
  const start: RunEvent = { type: 'run_start', seq: 0, step: 0, t: 0, task: 'probe', model: 'gpt-test', seed: 0, config: {} };
  const call: RunEvent = { type: 'tool_call', seq: 1, step: 0, t: 0, callId: 'c1', tool: 'read_file', arguments: '{}', key: 'k' } as RunEvent;
  const next: RunEvent = { type: 'llm_request', seq: 2, step: 1, t: 0, iteration: 1, attempt: 0, hash: 'h', append: [] } as unknown as RunEvent;
  const status = (mode: TuiMode, events: RunEvent[], waitedMs = 0): string => {
    const model = addEvents(emptyModel({ mode, runId: '01M80BD0DH1T99S5EY9167MAX2' }), events);
    return headerLines(model, { selected: 0, waitedMs, quitting: false })[3]?.text ?? '';
  };

  it('view: how many steps of the tape are read so far', () => {
    expect(status('viewing', [start])).toBe('reading tape… 1 step');
    expect(status('viewing', [start, call, next])).toBe('reading tape… 2 steps');
  });

  it('replay: how many steps are replayed so far; a wait once it lasts (a live call, --speed)', () => {
    expect(status('replaying', [start, call, next])).toBe('replaying… 2 steps');
    expect(status('what-if', [start, call])).toBe('replaying… 1 step');
    expect(status('replaying', [start, call], 999)).toBe('replaying… 1 step');
    expect(status('replaying', [start, call], 1000)).toMatch(/^\S running read_file · 1\.0 s$/);
  });

  it('record: what the live run is waiting for, at once', () => {
    expect(status('recording', [start, call])).toMatch(/^\S running read_file · 0\.0 s$/);
  });
});

describe('the header of an analysed run', () => {
  const analysed = withAnalysis(loopingEvents(), loopingAnalysis());
  const stop = { step: 2, rule: 'identical_call_block', verdict: 'block' as const };
  const statusOf = (events: readonly RunEvent[], ending?: RunEnding): { text: string; tone: string } => {
    let model = addEvents(emptyModel({ mode: 'viewing', runId: '01M8FNWM8WFRH6168JMNYEBRC2' }), events);
    if (ending !== undefined) model = endRun(model, ending);
    return headerLines(model, { selected: 0, waitedMs: 0, quitting: false })[3] ?? { text: '', tone: '' };
  };

  it('leads the status line with the stop point, in the tone of its verdict', () => {
    expect(statusOf(analysed, { exitCode: 0, report: [], analysis: { stop } })).toEqual({
      text: 'analysis: would have been stopped at step 2 by identical_call_block · ended COMPLETED · exit 0 · q quits · finished by the caller',
      tone: 'block',
    });
  });

  it('says when the analysis would not have stopped it; nothing of analysis for a run shown without one', () => {
    expect(statusOf(analysed, { exitCode: 0, report: [], analysis: { stop: null } })).toEqual({
      text: 'analysis: would not have been stopped · ended COMPLETED · exit 0 · q quits · finished by the caller',
      tone: 'allow',
    });
    expect(statusOf(loopingEvents(), { exitCode: 0, report: [] }).text).toBe('ended COMPLETED · exit 0 · q quits · finished by the caller');
    expect(statusOf(analysed).text).toBe('reading tape… 5 steps');
  });
});
