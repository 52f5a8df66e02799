import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../core/events.js';
import { demoEvents } from '../test-support/demo-events.js';
import { headerLines } from './header-lines.js';
import { addEvents, emptyModel } from './run-model.js';

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
