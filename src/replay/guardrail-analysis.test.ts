import { describe, expect, it } from 'vitest';
import { costOf, DEFAULT_PRICES } from '../agent/prices.js';
import { TapeFormatError } from '../core/errors.js';
import type { GuardrailEvent, RunEvent } from '../core/events.js';
import { withAnalysis } from './analysis-events.js';
import { analyseRun, type AnalysisOptions, type RunAnalysis } from './guardrail-analysis.js';
import { events, same, type Step } from './test-support/hand-made-run.js';
import { LOOPING_META } from './test-support/looping-run.js';

/** The analysis's decisions as the recording's own (as the live guardrails write them). */
const asRecorded = (decisions: readonly GuardrailEvent[]): GuardrailEvent[] => decisions.map(({ analysis: _analysis, ...d }) => d);

const notable = (analysis: RunAnalysis): string[] =>
  analysis.decisions.filter((d) => d.verdict !== 'allow' && d.verdict !== 'continue').map((d) => `${d.step} ${d.verdict} ${d.rule}`);

const library = (e: RunEvent[], options?: AnalysisOptions) => analyseRun(LOOPING_META, e, options);
const builtIn = (config: Record<string, unknown>, e: RunEvent[], options?: AnalysisOptions) =>
  analyseRun({ ...LOOPING_META, source: 'cli', config }, e, options);

describe('analyseRun: the stop point', () => {
  it('a halt a nudge turned into a message stops nothing, nor does the refusal of the rest of its step', () => {
    const run = events([{ calls: [{ id: 'a', name: 't', status: 'error' }, { id: 'b', name: 'u', status: 'ok' }] }, {}]);
    const analysis = library(run, { config: { failureWarn: 1, failureHalt: 1, haltNudges: 1 } });
    expect(notable(analysis)).toEqual(['0 halt consecutive_failures_halt', '0 block after_halt']);
    expect(analysis.stop).toBeNull();
  });

  it('a stop the recording shows is not the analysis\'s; a call it refused after that stop is, with the rule that stopped the run as its cause', () => {
    const config = { identicalCallBlock: 10 };
    const run = events([...same(4), ...same(1, 4)]);
    const first = library(run, { config });
    expect(first.stop).toMatchObject({ step: 3, verdict: 'stuck', rule: 'repetition' });
    // The recording shows every decision up to the stop: the call after it is where the analysis differs.
    const shown = withAnalysis(run, asRecorded(first.decisions.filter((d) => d.step <= 3)));
    expect(library(shown, { config }).stop).toMatchObject({ step: 4, callId: 'c4', rule: 'after_stop', verdict: 'block', cause: 'repetition' });
  });

  it('a recorded stop at another step does not show the analysis\'s (a decision about no call is matched by its step)', () => {
    const config = { identicalCallBlock: 10 };
    const run = events(same(4));
    const stuck = library(run, { config }).decisions.find((d) => d.verdict === 'stuck')!;
    const elsewhere = withAnalysis(run, asRecorded([{ ...stuck, step: 1, seq: 4 }]));
    expect(library(elsewhere, { config }).stop).toMatchObject({ step: 3, verdict: 'stuck' });
  });

  it('the events with an analysis among them are analysed as the recording alone: its decisions are neither outcomes nor shown', () => {
    const run = events(same(4));
    const first = library(run);
    expect(first.stop).toMatchObject({ step: 2, rule: 'identical_call_block' });
    const again = library(withAnalysis(run, first.decisions));
    expect(again.stop).toEqual(first.stop);
    expect(again.decisions).toEqual(first.decisions);
    expect(again.outcomes).toEqual(first.outcomes);
  });

  it('after the stop, an answer cut off at the token limit asks for no recovery', () => {
    const analysis = library(events([...same(4), { finish: 'length' }]), { config: { identicalCallBlock: 10 } });
    expect(analysis.stop).toMatchObject({ step: 3 });
    expect(analysis.decisions.filter((d) => d.step === 4)).toEqual([]);
  });
});

describe('analyseRun: outcomes, settings, cost', () => {
  it('a call its recording denied by a policy of its own is a recorded outcome; one its guardrails refused, or with no trace, is unknown', () => {
    const run = events([{
      calls: [
        { id: 'a', name: 'ghost', status: 'denied', recorded: { gate: 'policy', verdict: 'block', rule: 'unknown_tool' } },
        { id: 'b', name: 'again', status: 'denied', recorded: { gate: 'policy', verdict: 'block', rule: 'after_halt' } },
        { id: 'c', name: 'never' },
      ],
    }]);
    expect(library(run).outcomes).toEqual({ recorded: 1, fromMessages: 0, unknown: 2 });
  });

  it('each answer costs at the price of the model its request named', () => {
    const analysis = library(events([{ model: 'gpt-4o-mini' }]));
    expect(analysis.totals.cost).toBeCloseTo(costOf({ inputTokens: 10, outputTokens: 2 }, DEFAULT_PRICES['gpt-4o-mini']!), 15);
    expect(analysis.totals.cost).toBeGreaterThan(0);
  });

  it('a cost limit given is checked against the prices given, over the recorded ones: warned of, and past it the analysis ends', () => {
    const recorded = { prices: { m: { input: 0, output: 0 } }, limits: { costLimit: 0 } };
    // 12 tokens a step at $1 a token: $12 a step.
    const options: AnalysisOptions = { prices: { m: { input: 1_000_000, output: 1_000_000 } }, limits: { costLimit: 30 } };
    const analysis = builtIn(recorded, events(same(5), recorded), options);
    expect(analysis.totals.cost).toBe(60);
    expect(notable(analysis).filter((d) => d.includes('cost'))).toEqual(['2 warn near_cost_limit']);
    // Past the limit at step 2, the built-in loop would have looked at none of its calls.
    expect(analysis.decisions.filter((d) => d.callId !== undefined).map((d) => d.callId)).not.toContain('c2');
  });

  it('a built-in run: a bad recorded guardrail value is bad tape data; flags given are laid over its tool\'s recorded spec', () => {
    const bad = { guardrails: { identicalCallBlock: 0 } };
    expect(() => builtIn(bad, events(same(1), bad))).toThrow(TapeFormatError);
    const config = { tools: ['read_file'] };
    const reads: Step[] = ['r0', 'r1'].map((id) => ({ calls: [{ id, name: 'read_file', args: { path: 'a' }, status: 'ok' }] }));
    // read_file is idempotent: given no flag to change that, its second identical read is still a duplicate.
    const analysis = builtIn(config, events(reads, config), { config: { tools: { read_file: {} } } });
    expect(notable(analysis)).toEqual(['1 skip duplicate_success']);
  });

  it('a built-in run: a tool its config did not enable has no spec, as in the loop that refused it (an unknown tool\'s defaults)', () => {
    const config = { tools: ['read_file'] };
    const unknownTool = { gate: 'policy', verdict: 'block', rule: 'unknown_tool' } as const;
    const run = events([{ calls: [{ id: 'w', name: 'exec_shell', args: { command: 'ls' }, status: 'denied', recorded: unknownTool }] }], config);
    const dedup = builtIn(config, run).decisions.find((d) => d.gate === 'replay_control');
    expect(dedup).toMatchObject({ callId: 'w', verdict: 'allow', rule: 'first_call' });
  });
});
