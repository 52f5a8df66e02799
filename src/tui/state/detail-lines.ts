/**
 * The step detail pane as lines, already wrapped to the pane's width: the messages added to the
 * request, the response (text, tool calls, finish reason, usage, retries and errors), every guardrail
 * decision of each tool call in pipeline order with its counters and threshold, the tool outcome,
 * state changes, and divergences with recorded and replayed side by side. An analysed run's decisions
 * come under a line that says what they are, each marked `?`. Collapsed, long text is cut to a few
 * lines; expanded (Enter), it is shown whole. An MCP tool's call names its server; the MCP messages
 * that are not tool calls (the handshake, listings, notifications) are quiet: collapsed, a run of
 * them is one dim line of methods and answers; expanded, each is a line with its params and reply.
 */
import type { Verdict } from '../../core/decisions.js';
import type { DivergenceEvent, GuardrailEvent, McpExchangeEvent, RunEvent } from '../../core/events.js';
import type { ChatMessage } from '../../core/messages.js';
import { ANALYSIS_GLYPH, DIVERGENCE_GLYPHS, VERDICT_GLYPHS } from '../../core/verdict-glyphs.js';
import { exchangeText, isQuietExchange, SERVER_ENDED, toolLabel } from '../../mcp/event-text.js';
import { describeDecision } from '../../replay/decision-change.js';
import type { StepRow } from './step-row.js';
import { padCells, wrap, wrapHanging } from './text.js';
import { count } from '../../core/plural.js';

/** A colour role; the theme maps it to a colour, or to nothing without colour. */
export type Tone =
  | 'heading'
  | 'normal'
  | 'dim'
  | Verdict
  | 'unexpected'
  | 'expected'
  | 'error';

/**
 * A line the detail can open on: a divergence (`d` scrolls to it), or a guardrail decision that is
 * not a plain allow (a step opens on the first one: the reason the step went as it did).
 */
export type Anchor = 'divergence' | 'decision';

export interface DetailLine {
  text: string;
  tone: Tone;
  /** Set on the first line of a divergence or of a decision other than allow. */
  anchor?: Anchor;
}

export interface DetailOptions {
  width: number;
  expanded: boolean;
  /** The step was patched with `--patch`. */
  patched?: boolean;
}

/** Heads a step's analysed decisions: they are not what happened. */
export const ANALYSIS_NOTE = 'analysis: what the guardrails would have decided — the run did not run them';

/** Lines of text kept per block while collapsed. */
const COLLAPSED_LINES = 3;
/**
 * Cells the continuation lines of a labelled line (a heading, a decision) are indented past its
 * first line: past the text under it too, which is indented two, so neither reads as the other.
 */
const LABEL_HANG = 4;
/** The same for a message under its sender. */
const MESSAGE_HANG = 2;

export function detailLines(row: StepRow, options: DetailOptions): DetailLine[] {
  const out = new DetailWriter(options);
  const title = [`Step ${row.step}`];
  if (options.patched === true || row.patched) title.push('patched (--patch)');
  if (row.changedDecisions > 0) title.push(`${row.changedDecisions} decision${row.changedDecisions === 1 ? '' : 's'} changed`);
  out.line(title.join(' · '), 'heading');
  let chunks = 0;
  let analysisNoted = false;
  let exchanges: McpExchangeEvent[] = [];
  for (const event of row.events) {
    // Collapsed, a run of one server's exchanges waits to be folded into one line.
    const folds = event.type === 'mcp_exchange' && !options.expanded;
    if (exchanges.length > 0 && !(folds && exchanges[0]?.server === event.server)) {
      foldedExchanges(out, exchanges);
      exchanges = [];
    }
    if (folds) {
      exchanges.push(event);
      continue;
    }
    if (event.type === 'guardrail' && event.analysis === true && !analysisNoted) {
      out.line(ANALYSIS_NOTE, 'heading');
      analysisNoted = true;
    }
    if (event.type === 'llm_chunk') {
      chunks++;
      continue;
    }
    if (event.type === 'llm_response' && chunks > 0) {
      render(out, event, chunks);
      chunks = 0;
      continue;
    }
    render(out, event, 0);
  }
  if (exchanges.length > 0) foldedExchanges(out, exchanges);
  return out.lines;
}

/** Exchanges with one server in a row, collapsed: `MCP files: initialize → ok (…) · tools/list → 2 tools` (the quiet ones left out). */
function foldedExchanges(out: DetailWriter, exchanges: readonly McpExchangeEvent[]): void {
  const shown = exchanges.filter((e) => !isQuietExchange(e));
  if (shown.length === 0) return;
  const failed = shown.some((e) => e.reply?.error !== undefined || e.method === SERVER_ENDED);
  out.line(`MCP ${shown[0]?.server ?? ''}: ${shown.map(exchangeText).join(' · ')}`, failed ? 'error' : 'dim');
}

/** One exchange, expanded: its line, then what was sent and answered. */
function exchangeLines(out: DetailWriter, event: McpExchangeEvent): void {
  const failed = event.reply?.error !== undefined || event.method === SERVER_ENDED;
  out.line(`MCP ${event.server} ${exchangeText(event)}${event.durationMs === undefined || event.durationMs <= 0 ? '' : `, ${seconds(event.durationMs)}`}`, failed ? 'error' : 'dim');
  if (event.params !== undefined) out.text(`params: ${JSON.stringify(event.params)}`, 'dim', 4);
  const { reply } = event;
  if (reply?.result !== undefined) out.text(`result: ${JSON.stringify(reply.result)}`, 'dim', 4);
  for (const note of reply?.notifications ?? []) out.text(`${note.method}${note.params === undefined ? '' : ` ${JSON.stringify(note.params)}`}`, 'dim', 4);
}

function render(out: DetailWriter, event: RunEvent, chunks: number): void {
  switch (event.type) {
    case 'run_start':
      out.line(`Run started: model ${event.model}, seed ${event.seed}`, 'dim');
      return;
    case 'state':
      out.line(`State ${event.from ?? 'START'} → ${event.to}: ${event.reason}`, event.to === 'ERROR' ? 'error' : 'dim');
      return;
    case 'user_message':
      out.line(event.internal === undefined ? 'User' : `Injected by the loop (${event.internal})`, 'heading');
      out.text(event.content, 'normal', 2);
      return;
    case 'llm_request':
      out.line(`Request ${event.iteration}: +${event.append.length} message${event.append.length === 1 ? '' : 's'}, ${event.prefix + event.append.length} in all${event.stream ? ', streamed' : ''}`, 'heading');
      for (const message of event.append) messageLines(out, message);
      return;
    case 'llm_chunk':
      return;
    case 'llm_error':
      out.line(
        `Attempt ${event.attempt + 1} failed${event.status === undefined ? '' : ` (${event.status})`}, ${event.kind}` +
          (event.retryInMs === undefined ? '' : `, retry in ${Math.round(event.retryInMs)} ms`) +
          (event.retryAfterMs === undefined ? '' : ` (Retry-After ${Math.round(event.retryAfterMs)} ms)`),
        'error',
      );
      out.text(event.message, 'error', 4);
      return;
    case 'llm_response': {
      const { message, finishReason, usage } = event.response;
      const facts = [finishReason, `${usage.inputTokens} in / ${usage.outputTokens} out tokens`];
      if (event.durationMs > 0) facts.push(seconds(event.durationMs));
      if (chunks > 0) facts.push(`${chunks} chunks`);
      if (event.attempt > 0) facts.push(`attempt ${event.attempt + 1}`);
      out.line(`Response: ${facts.join(', ')}`, 'heading');
      if (message.content !== null && message.content !== '') out.text(message.content, 'normal', 2);
      for (const call of message.tool_calls ?? []) out.text(`→ ${call.function.name} ${call.function.arguments}  (${call.id})`, 'normal', 2);
      return;
    }
    case 'budget':
      // The header shows usage; the detail speaks up only when the budget is nearly spent.
      if (event.nearBudget) out.line(`! Near the budget: ${event.inputTokens} in / ${event.outputTokens} out tokens, cost $${event.cost.toFixed(4)}`, 'warn');
      return;
    case 'tool_call':
      out.line(`Call ${toolLabel(event.tool, event.server)}  (${event.callId})`, 'heading');
      out.text(event.arguments, 'normal', 2);
      return;
    case 'guardrail':
      decisionLines(out, event);
      return;
    case 'tool_result':
      out.line(`  Result: ${event.status}${event.durationMs > 0 ? `, ${seconds(event.durationMs)}` : ''}`, event.status === 'ok' ? 'allow' : event.status === 'denied' ? 'skip' : 'error');
      out.text(event.output, 'normal', 4);
      return;
    case 'checkpoint':
      return;
    case 'warning':
      out.line(`Warning: ${event.message}`, 'warn');
      return;
    case 'http_exchange':
      out.line(`HTTP ${event.method} ${event.path} → ${event.response.status}`, event.response.status < 400 ? 'dim' : 'error');
      return;
    case 'mcp_exchange':
      exchangeLines(out, event);
      return;
    case 'divergence':
      divergenceLines(out, event);
      return;
    case 'run_end':
      out.line(`Run ended ${event.state}: ${event.reason}`, event.state === 'COMPLETED' ? 'allow' : 'error');
      out.line(`${count(event.totals.steps, 'step')}, ${count(event.totals.llmCalls, 'model call')}, ${count(event.totals.toolCalls, 'tool call')}, cost $${event.totals.cost.toFixed(4)}`, 'dim');
      return;
  }
}

function messageLines(out: DetailWriter, message: ChatMessage): void {
  const who = message.role === 'tool' ? `tool (${message.tool_call_id})` : message.role === 'user' && message.internal !== undefined ? `user (${message.internal.reason})` : message.role;
  const calls = message.role === 'assistant' ? (message.tool_calls ?? []).map((c) => c.function.name) : [];
  const content = message.content ?? '';
  const text = calls.length > 0 ? `${content}${content === '' ? '' : ' '}[calls ${calls.join(', ')}]` : content;
  out.text(`${who}: ${text}`, 'dim', 2, 1, MESSAGE_HANG);
}

function decisionLines(out: DetailWriter, event: GuardrailEvent): void {
  const analysed = event.analysis === true;
  const indent = event.callId === undefined ? 0 : 2;
  const counters = counterText(event);
  // A recorded call's decisions come under its `Call` heading; an analysed call has none (the run did not run the gates).
  const tool = (event.callId === undefined || analysed) && event.tool !== undefined ? ` ${event.tool}` : '';
  const decisive = event.verdict !== 'allow' && event.verdict !== 'continue';
  const mark = analysed ? `${ANALYSIS_GLYPH} ` : '';
  out.line(`${' '.repeat(indent)}${mark}${VERDICT_GLYPHS[event.verdict]} ${event.verdict}  ${event.gate}/${event.rule}${tool}`, event.verdict, decisive ? 'decision' : undefined);
  out.text(`${event.reason}${counters === '' ? '' : ` · ${counters}`}`, 'normal', indent + 2);
}

/** `attempts 2 → 3, threshold 3`: every counter before → after, then the threshold. */
function counterText(event: GuardrailEvent): string {
  const { before, after } = event.counters;
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  const parts = names.map((name) => `${name} ${before[name] ?? 0} → ${after[name] ?? 0}`);
  if (event.threshold !== undefined) parts.push(`threshold ${event.threshold}`);
  return parts.join(', ');
}

function divergenceLines(out: DetailWriter, event: DivergenceEvent): void {
  const glyph = event.expected ? DIVERGENCE_GLYPHS.expected : DIVERGENCE_GLYPHS.unexpected;
  const tone: Tone = event.kind === 'resync' ? 'allow' : event.expected ? 'expected' : 'unexpected';
  const expectation = event.expected ? 'expected' : 'unexpected';
  const label = event.kind === 'resync' ? 'Back in sync' : event.kind === 'decision' ? `Decision changed (${expectation})` : `Divergence (${expectation}, ${event.kind})`;
  out.line(`${event.kind === 'resync' ? '↺' : glyph} ${label}`, tone, 'divergence');
  const detail = event.detail;
  if (event.kind === 'decision' && detail !== undefined) {
    // Shown right after the decision it concerns: the change itself says it all.
    out.text(`recorded: ${describe(detail.recorded)} → now: ${describe(detail.replayed)}`, tone, 2);
    return;
  }
  out.text(event.message, tone, 2);
  if (detail === undefined) return;
  if (!event.message.includes(detail.path)) out.text(`at ${detail.path}`, 'dim', 2);
  out.sideBySide('recorded', show(detail.recorded), 'replayed', show(detail.replayed), tone);
}

function describe(value: unknown): string {
  if (value !== null && typeof value === 'object' && 'verdict' in value) return describeDecision(value as Parameters<typeof describeDecision>[0]);
  return show(value);
}

function show(value: unknown): string {
  if (value === undefined) return '(absent)';
  if (typeof value === 'string') return value;
  return JSON.stringify(value, null, 1) ?? String(value);
}

/** A duration; a no-break space keeps the number and its unit on one line when text wraps. */
function seconds(ms: number): string {
  return ms < 1000 ? `${Math.round(ms * 10) / 10}\u00a0ms` : `${(ms / 1000).toFixed(1)}\u00a0s`;
}

/** Accumulates wrapped lines; collapsed text blocks are cut with a note of what is hidden. */
class DetailWriter {
  readonly lines: DetailLine[] = [];
  constructor(private readonly options: DetailOptions) {}

  /**
   * One labelled line (a heading, a decision, a state change), wrapped: its continuation lines are
   * indented like it, and hang further so they do not read as lines of their own.
   */
  line(text: string, tone: Tone, anchor?: Anchor): void {
    const indent = text.length - text.trimStart().length;
    const pad = ' '.repeat(indent);
    const pieces = wrapHanging(text.trimStart(), this.options.width - indent, LABEL_HANG);
    pieces.forEach((piece, i) => {
      const line: DetailLine = { text: pad + piece, tone };
      if (i === 0 && anchor !== undefined) line.anchor = anchor;
      this.lines.push(line);
    });
  }

  /**
   * A block of text (a message, an output) indented by `indent`, each of its lines wrapped with its
   * own indentation kept, cut to `collapsed` lines when collapsed. With `hang`, every line after
   * the first is indented that much more (a message under its sender).
   */
  text(text: string, tone: Tone, indent: number, collapsed = COLLAPSED_LINES, hang = 0): void {
    const width = Math.max(1, this.options.width - indent);
    const pieces = hang > 0 ? wrapHanging(text, width, hang) : wrap(text, width);
    const keep = this.options.expanded ? pieces.length : Math.min(pieces.length, collapsed);
    const pad = ' '.repeat(indent);
    for (const piece of pieces.slice(0, keep)) this.lines.push({ text: pad + piece, tone });
    if (keep < pieces.length) this.lines.push({ text: `${pad}… ${pieces.length - keep} more line${pieces.length - keep === 1 ? '' : 's'} (Enter expands)`, tone: 'dim' });
  }

  /** Two labelled values in two columns, each wrapped to half the width. */
  sideBySide(leftLabel: string, left: string, rightLabel: string, right: string, tone: Tone): void {
    const half = Math.floor((this.options.width - 5) / 2);
    if (half < 12) {
      this.text(`${leftLabel}: ${left}`, tone, 2);
      this.text(`${rightLabel}: ${right}`, tone, 2);
      return;
    }
    const a = [leftLabel, ...wrap(left, half)];
    const b = [rightLabel, ...wrap(right, half)];
    const total = Math.max(a.length, b.length);
    const keep = this.options.expanded ? total : Math.min(total, COLLAPSED_LINES + 1);
    for (let i = 0; i < keep; i++) {
      const l = a[i] ?? '';
      this.lines.push({ text: `  ${padCells(l, half)} │ ${b[i] ?? ''}`, tone: i === 0 ? 'dim' : tone });
    }
    if (keep < total) this.lines.push({ text: `  … ${total - keep} more line${total - keep === 1 ? '' : 's'} (Enter expands)`, tone: 'dim' });
  }
}
