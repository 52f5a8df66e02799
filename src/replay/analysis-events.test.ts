import { describe, expect, it } from 'vitest';
import type { GuardrailEvent, RunEvent } from '../core/events.js';
import { needsAnalysis, stopText, withAnalysis } from './analysis-events.js';
import { LOOPING_META, loopingAnalysis, loopingEvents } from './test-support/looping-run.js';

const shape = (events: readonly RunEvent[]): string[] =>
  events.map((e) => (e.type === 'guardrail' ? `${e.seq}:${e.analysis === true ? 'analysis ' : ''}${e.rule}` : `${e.seq}:${e.type}`));

describe('the analysis among the recorded events', () => {
  it('puts each decision right after the event it is about, in the order the analysis made them', () => {
    const events = loopingEvents();
    expect(shape(withAnalysis(events, loopingAnalysis())).slice(0, 12)).toEqual([
      '0:run_start', '1:llm_request', '2:llm_response', '2:analysis first_attempt', '2:analysis first_call',
      '3:llm_request', '4:llm_response', '4:analysis identical_call', '4:analysis duplicate_success',
      '5:llm_request', '6:llm_response', '6:analysis identical_call_block',
    ]);
  });

  it('keeps the analysis order whatever order its decisions come in, and every recorded event once', () => {
    const events = loopingEvents();
    const decisions = loopingAnalysis();
    const shuffled = [decisions[4], decisions[2], decisions[0], decisions[3], decisions[1]] as GuardrailEvent[];
    const merged = withAnalysis(events, shuffled);
    expect(merged.filter((e) => e.type !== 'guardrail')).toEqual(events);
    expect(shape(merged).filter((s) => s.includes('analysis'))).toEqual(['2:analysis first_attempt', '2:analysis first_call', '4:analysis identical_call', '4:analysis duplicate_success', '6:analysis identical_call_block']);
  });

  it('keeps a decision about an event the tape does not have (cut short) at the end', () => {
    const events = loopingEvents().slice(0, 5);
    expect(shape(withAnalysis(events, loopingAnalysis())).slice(-4)).toEqual(['4:llm_response', '4:analysis identical_call', '4:analysis duplicate_success', '6:analysis identical_call_block']);
  });
});

describe('which runs are analysed', () => {
  it('a run recorded by the library or the proxy with no decision on its tape; never the built-in loop', () => {
    expect(needsAnalysis(LOOPING_META, loopingEvents())).toBe(true);
    expect(needsAnalysis({ ...LOOPING_META, source: 'proxy' }, loopingEvents())).toBe(true);
    expect(needsAnalysis({ ...LOOPING_META, source: 'cli' }, loopingEvents())).toBe(false);
    // A library run from before `source` was kept has an empty config.
    expect(needsAnalysis({ config: {} }, loopingEvents())).toBe(true);
    expect(needsAnalysis({ config: { model: 'm' } }, loopingEvents())).toBe(false);
  });

  it('a run whose tape holds decisions (the live guardrails recorded them) shows those instead', () => {
    const recorded = loopingAnalysis().map(({ analysis: _analysis, ...decision }) => decision);
    expect(needsAnalysis(LOOPING_META, withAnalysis(loopingEvents(), recorded.slice(0, 1)))).toBe(false);
  });
});

describe('the stop point in words', () => {
  it('names the step and the rule, or says there is none', () => {
    expect(stopText({ step: 2, rule: 'identical_call_block' })).toBe('would have been stopped at step 2 by identical_call_block');
    expect(stopText(null)).toBe('would not have been stopped');
  });
});
