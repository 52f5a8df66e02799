/**
 * Which timeline rows a filter keeps (by verdict, divergence, or MCP activity), and text search: over a step's events (which steps
 * match), and over its detail lines as drawn (which line to show, what to highlight). All pure, and
 * they read the rows as they are (no per-row text is cached: memory stays bounded by the events).
 */
import type { RunEvent } from '../../core/events.js';
import type { DetailLine } from './detail-lines.js';
import type { StepRow } from './step-row.js';

/** The `f` key cycles through these, in order (`mcp` only in a run with MCP calls or messages). */
export const FILTERS = ['all', 'decisions', 'blocks', 'divergences', 'mcp'] as const;
export type Filter = (typeof FILTERS)[number];

/** Short names for the timeline's title, where space is scarce. */
export const FILTER_SHORT: Readonly<Record<Filter, string>> = { all: 'all', decisions: 'not allow', blocks: 'blocks+skips', divergences: 'diverged', mcp: 'mcp' };

export const FILTER_LABELS: Readonly<Record<Filter, string>> = {
  all: 'all steps',
  decisions: 'decisions other than allow',
  blocks: 'blocks and skips',
  divergences: 'divergences',
  mcp: 'MCP tool calls and messages',
};

/** The filter after `filter`; the `mcp` one is passed over for a run with no MCP step. */
export function nextFilter(filter: Filter, rows: readonly StepRow[] = []): Filter {
  const next = FILTERS[(FILTERS.indexOf(filter) + 1) % FILTERS.length] ?? 'all';
  return next === 'mcp' && !rows.some((row) => row.mcp) ? 'all' : next;
}

export function rowPasses(row: StepRow, filter: Filter): boolean {
  switch (filter) {
    case 'all':
      return true;
    case 'decisions':
      for (const verdict of row.verdicts) if (verdict !== 'allow' && verdict !== 'continue') return true;
      return row.changedDecisions > 0;
    case 'blocks':
      return row.verdicts.has('block') || row.verdicts.has('skip');
    case 'divergences':
      return row.divergence !== 'none' || row.changedDecisions > 0;
    case 'mcp':
      return row.mcp;
  }
}

/** Indices (into `rows`) of the rows the filter keeps, in order. */
export function visibleRows(rows: readonly StepRow[], filter: Filter): number[] {
  const out: number[] = [];
  for (let i = 0; i < rows.length; i++) if (rowPasses(rows[i] as StepRow, filter)) out.push(i);
  return out;
}

/** A case-insensitive matcher for the text a user typed after `/`; null for an empty query. */
export function searchPattern(query: string): RegExp | null {
  const text = query.trim();
  if (text === '') return null;
  return new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i');
}

/** True when any text of the step — answers, messages, tool arguments and outputs, reasons — matches. */
export function rowMatches(row: StepRow, pattern: RegExp): boolean {
  if (pattern.test(row.action)) return true;
  for (const event of row.events) if (eventMatches(event, pattern)) return true;
  return false;
}

function eventMatches(event: RunEvent, pattern: RegExp): boolean {
  switch (event.type) {
    case 'user_message':
    case 'warning':
      return pattern.test('content' in event ? event.content : event.message);
    case 'llm_request':
      return event.append.some((m) => m.content !== null && pattern.test(m.content));
    case 'llm_response': {
      const { message } = event.response;
      if (message.content !== null && pattern.test(message.content)) return true;
      return (message.tool_calls ?? []).some((c) => pattern.test(c.function.name) || pattern.test(c.function.arguments));
    }
    case 'llm_error':
      return pattern.test(event.message);
    case 'tool_call':
      return pattern.test(event.tool) || pattern.test(event.arguments) || (event.server !== undefined && pattern.test(event.server));
    case 'mcp_exchange':
      return pattern.test(event.server) || pattern.test(event.method);
    case 'tool_result':
      return pattern.test(event.output);
    case 'guardrail':
      return pattern.test(event.reason) || pattern.test(event.rule) || pattern.test(event.verdict);
    case 'divergence':
      return pattern.test(event.message);
    case 'state':
      return pattern.test(event.reason) || pattern.test(event.to);
    case 'run_end':
      return pattern.test(event.reason);
    default:
      return false;
  }
}

/**
 * The first detail line that shows a match, -1 for none. A match a wrap has split between two
 * lines counts for the first of them.
 */
export function matchingLine(lines: readonly DetailLine[], pattern: RegExp): number {
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as DetailLine).text;
    if (pattern.test(line)) return i;
    const next = lines[i + 1]?.text.trimStart();
    if (next !== undefined && !pattern.test(next) && pattern.test(`${line} ${next}`)) return i;
  }
  return -1;
}

/** Where the pattern matches in a line of text: `[start, end)` pairs, in order, not overlapping. */
export function matchRanges(text: string, pattern: RegExp): Array<[number, number]> {
  const all = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`);
  const ranges: Array<[number, number]> = [];
  for (const match of text.matchAll(all)) {
    if (match[0] === '') break;
    ranges.push([match.index, match.index + match[0].length]);
  }
  return ranges;
}
