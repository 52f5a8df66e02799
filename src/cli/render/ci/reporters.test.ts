import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import type { CiResult } from '../../../replay/ci-run.js';
import { githubAnnotations, githubSummary } from './github.js';
import { junitReport, xml } from './junit.js';
import type { CiReport } from './report.js';
import { textReport } from './text.js';

const tape = (name: string): CiResult['tape'] => ({ path: `/c/${name}`, relativePath: name });
const drift: CiResult = {
  tape: tape('tapes/a, b: "weird" <name>.tape.jsonl'),
  name: 'run & <co>',
  outcome: 'drift',
  message: 'drift at step 2: read_file loop_guard decision changed: recorded allow (2 of 3) → now block (2 of 2)',
  durationMs: 12,
  drift: {
    step: 2, kind: 'decision', eventType: 'guardrail', message: 'read_file loop_guard decision changed: recorded allow (2 of 3) → now block (2 of 2)',
    path: 'verdict', recorded: null, replayed: null, line: 12,
    decision: {
      recorded: { verdict: 'allow', rule: 'identical_call', counters: { attempts: 2 }, threshold: 3 },
      replayed: { verdict: 'block', rule: 'identical_call_block', counters: { attempts: 2 }, threshold: 2 },
    },
  },
};
const invalid: CiResult = { tape: tape('tapes/bad.tape.jsonl'), name: 'bad', outcome: 'invalid', message: 'line 7: not valid JSON (corrupt or truncated line)', durationMs: 1, line: 7 };
const pass: CiResult = { tape: tape('tapes/ok.tape.jsonl'), name: 'ok', outcome: 'pass', message: 'reproduced', durationMs: 3 };
const report = (results: CiResult[], extra: Partial<CiReport> = {}): CiReport => ({
  mode: 'check', results, skipped: [], shard: null, failOnChange: false, durationMs: 20, exitCode: 7, overrides: [], ...extra,
});

describe('ci reporters', () => {
  it('text: each failure with its details, the decision rule, counters and threshold, then the closing line', () => {
    const text = textReport(report([pass, drift, invalid]));
    expect(text).toContain('DRIFT       tapes/a, b: "weird" <name>.tape.jsonl:12');
    expect(text).toContain('recorded: allow (2 of 3) — rule identical_call, attempts 2, threshold 3');
    expect(text).toContain('replayed: block (2 of 2) — rule identical_call_block, attempts 2, threshold 2');
    expect(text).toContain('INVALID     tapes/bad.tape.jsonl:7');
    expect(text.trimEnd().split('\n').at(-1)).toBe('1 passed, 2 failed');
    expect(textReport(report([pass], { skipped: [tape('tapes/later.tape.jsonl')] })).trimEnd().split('\n').at(-1)).toBe('1 passed, 0 failed, 1 skipped');
  });

  it('junit: escapes names and messages, failures vs errors, and parses back', () => {
    const out = junitReport(report([pass, drift, invalid]), '2026-11-22T00:00:00.000Z');
    interface Case { classname: string; name: string; failure?: { message: string }; error?: { type: string } }
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(out) as {
      testsuites: { testsuite: { tests: string; failures: string; errors: string; testcase: Case[] } };
    };
    const suite = doc.testsuites.testsuite;
    expect([suite.tests, suite.failures, suite.errors]).toEqual(['3', '1', '1']);
    expect(suite.testcase[1]).toMatchObject({ classname: 'tapes/a, b: "weird" <name>.tape.jsonl', name: 'run & <co>' });
    expect(suite.testcase[1]?.failure?.message).toBe(drift.message);
    expect(suite.testcase[2]?.error?.type).toBe('invalid');
    expect(xml('a\u0000b\u001bc\u009b & "d"\uffff')).toBe('a\\u0000b\\u001bc\\u009b &amp; &quot;d&quot;');
  });

  it('github: annotations escape properties and messages; the summary table escapes pipes', () => {
    const lines = githubAnnotations(report([pass, drift, invalid])).trimEnd().split('\n');
    expect(lines[0]).toBe(
      '::error file=tapes/a%2C b%3A "weird" <name>.tape.jsonl,line=12,title=agentctl ci%3A drift at step 2::step 2, guardrail, at verdict: read_file loop_guard decision changed: recorded allow (2 of 3) → now block (2 of 2)' +
        '%0Arecorded: allow (2 of 3) — rule identical_call, attempts 2, threshold 3%0Areplayed: block (2 of 2) — rule identical_call_block, attempts 2, threshold 2',
    );
    expect(lines[1]).toBe('::error file=tapes/bad.tape.jsonl,line=7,title=agentctl ci%3A invalid::line 7: not valid JSON (corrupt or truncated line)');
    expect(githubAnnotations(report([pass]))).toBe('');
    const summary = githubSummary(report([{ ...pass, outcome: 'drift', message: 'a | b' }]));
    expect(summary).toContain('| drift | `tapes/ok.tape.jsonl` | a \\| b |');
  });
});
