import { describe, expect, it } from 'vitest';
import { demoEvents } from '../test-support/demo-events.js';
import { withAnalysis } from '../../replay/analysis-events.js';
import { loopingAnalysis, loopingEvents } from '../../replay/test-support/looping-run.js';
import { ANALYSIS_NOTE, detailLines } from './detail-lines.js';
import { addEvents, emptyModel } from './run-model.js';
import type { StepRow } from './step-row.js';

async function step(n: number): Promise<StepRow> {
  return addEvents(emptyModel({ mode: 'viewing', runId: '01DEMO' }), await demoEvents()).rows[n] as StepRow;
}

describe('the step detail as lines', () => {
  it('marks the first line of every decision other than allow, for the detail to open on', async () => {
    const lines = detailLines(await step(3), { width: 43, expanded: false });
    expect(lines.filter((l) => l.anchor === 'decision').map((l) => l.text)).toEqual(['  ✗ block  loop_guard/identical_call_block']);
    const allows = detailLines(await step(1), { width: 43, expanded: false });
    expect(allows.some((l) => l.anchor !== undefined)).toBe(false);
  });

  it('wraps a labelled line with its continuation indented past the text under it', async () => {
    const text = detailLines(await step(3), { width: 43, expanded: true }).map((l) => l.text);
    const decision = text.indexOf('· continue  repetition/repeated_tool_step');
    expect(text.slice(decision, decision + 3)).toEqual(['· continue  repetition/repeated_tool_step', '    read_file', '  same tool calls as the previous step']);
    const state = text.findIndex((l) => l.startsWith('State RUNNING → WAITING_FOR_TOOL'));
    expect(text[state + 1]).toMatch(/^ {4}\S/);
  });

  it('wraps a message with its continuation under its sender, each line of it indented as it was', async () => {
    const text = detailLines(await step(2), { width: 43, expanded: true }).map((l) => l.text);
    const message = text.findIndex((l) => l.startsWith('  tool (call_1_0): '));
    expect(text.slice(message, message + 6)).toEqual(['  tool (call_1_0): {', '      "host": "127.0.0.1",', '      "port": 8080,', '      "logLevel": "info"', '    }', '  ']);
    const assistant = text.findIndex((l) => l.startsWith('  assistant: '));
    expect(text[assistant + 1]).toMatch(/^ {4}\S/);
  });
});

describe('an analysed step', () => {
  const rows = addEvents(emptyModel({ mode: 'viewing', runId: '01LOOP' }), withAnalysis(loopingEvents(), loopingAnalysis())).rows;

  it('heads its decisions with what they are, each marked ? and naming its tool, and opens on the block', () => {
    const lines = detailLines(rows[2] as StepRow, { width: 100, expanded: false });
    const text = lines.map((l) => l.text);
    const note = text.indexOf(ANALYSIS_NOTE);
    expect(note).toBeGreaterThan(text.findIndex((l) => l.startsWith('Response:')));
    expect(text.filter((l) => l === ANALYSIS_NOTE)).toHaveLength(1);
    expect(text[note + 1]).toBe('  ? ✗ block  loop_guard/identical_call_block lookup');
    expect(lines.filter((l) => l.anchor === 'decision').map((l) => l.text)).toEqual(['  ? ✗ block  loop_guard/identical_call_block lookup']);
    const step1 = detailLines(rows[1] as StepRow, { width: 100, expanded: false }).map((l) => l.text);
    expect(step1).toContain('  ? ⊘ skip  replay_control/duplicate_success lookup');
    // Once a step, however many decisions it has.
    expect(step1.filter((l) => l === ANALYSIS_NOTE)).toHaveLength(1);
  });

  it('says nothing of analysis in a step without analysed decisions, or in a recorded run', async () => {
    expect(detailLines(rows[4] as StepRow, { width: 60, expanded: false }).map((l) => l.text)).not.toContain(ANALYSIS_NOTE);
    const recorded = detailLines(await step(3), { width: 60, expanded: true }).map((l) => l.text);
    expect(recorded).not.toContain(ANALYSIS_NOTE);
    expect(recorded.some((l) => l.includes('?'))).toBe(false);
  });
});
