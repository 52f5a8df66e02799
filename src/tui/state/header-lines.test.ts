import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../core/events.js';
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
