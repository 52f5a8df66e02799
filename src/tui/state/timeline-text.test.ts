import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../core/events.js';
import { demoEvents } from '../test-support/demo-events.js';
import { layoutFor } from './layout.js';
import { addEvents, emptyModel } from './run-model.js';
import { summarizeStep, type StepRow } from './step-row.js';
import { glyphCount, timelineCells } from './timeline-text.js';
import { withAnalysis } from '../../replay/analysis-events.js';
import { loopingAnalysis, loopingEvents } from '../../replay/test-support/looping-run.js';

const rowText = (row: StepRow, width: number, glyphColumns = 1, patched = false): string => {
  const cells = timelineCells(row, { width, selected: false, patched, stepDigits: 2, glyphColumns });
  return `${cells.lead}${cells.action}${cells.glyphs.map((g) => g.glyph).join('')}${cells.rest}`;
};

/** A step whose model called `calls` tools, each allowed. */
function callsStep(calls: { name: string; args: Record<string, unknown> }[]): StepRow {
  const t = 0;
  const events: RunEvent[] = [
    {
      seq: 0, step: 7, t, type: 'llm_response', iteration: 7, attempt: 0, durationMs: 0,
      response: {
        message: { role: 'assistant', content: null, tool_calls: calls.map((c, i) => ({ id: `c${i}`, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args) } })) },
        finishReason: 'tool_calls', usage: { inputTokens: 1, outputTokens: 1 },
      },
    },
    ...calls.map((c, i): RunEvent => ({ seq: 1 + i, step: 7, t, type: 'tool_call', callId: `c${i}`, tool: c.name, arguments: JSON.stringify(c.args), key: 'k' })),
  ];
  return summarizeStep(7, events);
}

describe('timeline rows', () => {
  it('name each call with its arguments at 80 columns, glyphs in one column', async () => {
    const rows = addEvents(emptyModel({ mode: 'viewing', runId: '01DEMO' }), await demoEvents()).rows;
    const width = layoutFor({ columns: 80, rows: 24 }).timelineWidth;
    const texts = rows.map((row) => rowText(row, width));
    expect(texts.map((t) => t.replace(/\s+/g, ' ').trim())).toEqual([
      '0 list_dir . ✓',
      '1 read_file config/server.json ✓',
      '2 read_file config/server.json ⊘',
      '3 read_file config/server.json ✗',
      '4 read_file config/server.json ∞',
    ]);
    for (const text of texts) expect([...text].length).toBe(width);
    expect(new Set(texts.map((t) => [...t].findIndex((c) => '✓⊘✗∞'.includes(c))))).toHaveProperty('size', 1);
  });

  it('use the width there is, cut with …, and keep the count of further calls', () => {
    const path = 'src/services/config/server.production.json';
    const row = callsStep([{ name: 'read_file', args: { path } }, { name: 'list_dir', args: {} }, { name: 'exec_shell', args: { command: 'ls' } }]);
    expect(row.action).toBe(`read_file ${path}`);
    expect(row.moreCalls).toBe(2);
    const wide = rowText(row, layoutFor({ columns: 200, rows: 50 }).timelineWidth, 3);
    expect(wide).toMatch(/^ {3}7 read_file src\/services\/config\/server\.production\.json \+2 +✓✓✓$/);
    const narrow = rowText(row, 36, 3);
    expect(narrow).toMatch(/^ {3}7 read_file src\/\S+… \+2 ✓✓✓$/);
  });

  it('show a patched step with P before its verdicts, the glyph column as wide as the row needs', () => {
    const row = callsStep([{ name: 'list_dir', args: { path: '.' } }, { name: 'list_dir', args: { path: 'src' } }]);
    expect(glyphCount(row, true)).toBe(3);
    const text = rowText(row, 30, 3, true);
    expect(text).toMatch(/ P✓✓$/);
    expect(rowText(row, 30, 4)).toMatch(/ ✓✓ {2}$/);
  });

  it('show an analysed run\'s verdicts after ?, apart from any recorded glyph, straight down their column', () => {
    const rows = addEvents(emptyModel({ mode: 'viewing', runId: '01LOOP' }), withAnalysis(loopingEvents(), loopingAnalysis())).rows;
    const texts = rows.map((row) => rowText(row, 36, 2));
    expect(texts.map((t) => t.replace(/\s+/g, ' ').trim())).toEqual([
      '0 lookup q=port ?✓',
      '1 lookup q=port ?⊘',
      '2 lookup q=port ?✗',
      '3 lookup q=port',
      '4 “port 8080”',
    ]);
    // A recorded call (recordTool) keeps its own glyph, before the analysis's.
    const call: RunEvent = { seq: 3, step: 1, t: 0, type: 'tool_call', callId: 'rec_1', tool: 'lookup', arguments: '{}', key: 'k' };
    const row = rows[1] as StepRow;
    expect(summarizeStep(1, [...row.events, call]).marks).toEqual([
      { kind: 'verdict', verdict: 'allow' }, { kind: 'analysis' }, { kind: 'verdict', verdict: 'skip' },
    ]);
  });
});
