/**
 * Renderers for a stream of RunEvents outside the TUI: a readable line per event, or NDJSON for
 * `--json` (the README's stable contract, "--json": every event, then one `summary` line).
 */
import type { RunEvent } from '../../core/events.js';
import { EventRedactor } from '../../core/event-redactor.js';
import { NO_REDACTION, type Redactor } from '../../core/redact.js';
import { printableJson } from '../../core/terminal-text.js';
import { eventLine } from './event-line.js';
import { writeOut } from '../io.js';
import { count } from '../../core/plural.js';
import type { AnalysisStop } from '../../replay/guardrail-analysis.js';

export interface Reporter {
  event(event: RunEvent): void;
  /** The closing line: for `--json` a `summary` object, for text a short verdict. */
  summary(summary: Summary): void;
}

/** The last line of `--json` output (README, "--json"). Replay adds its verdict fields. */
export interface Summary {
  runId: string | null;
  state: string;
  steps: number;
  exitCode: number;
  verdict?: 'reproduced' | 'diverged' | 'exhausted';
  firstDivergence?: { step: number; [key: string]: unknown } | null;
  liveCalls?: number;
  /** `view` of a run shown with its guardrail analysis: the analysis's stop point (null: it would not have stopped the run). */
  analysis?: { stop: AnalysisStop | null };
  [key: string]: unknown;
}

type Write = (text: string) => void;
const stdout: Write = writeOut;

/**
 * NDJSON; every event is redacted as the tape is (a stream's chunks together, once it ends), so a
 * secret never reaches the terminal or a pipe, and holds no control character raw (printableJson).
 */
export function jsonReporter(options: { redact?: Redactor } = {}, write: Write = stdout): Reporter {
  const redactor = new EventRedactor(options.redact ?? NO_REDACTION);
  const line = (event: RunEvent): string => printableJson(event.type === 'guardrail' && event.tool === undefined ? { ...event, tool: null } : event);
  return {
    // The contract promises `tool` on every guardrail line: null for step-level gates.
    event: (event) => {
      for (const safe of redactor.accept(event)) write(`${line(safe)}\n`);
    },
    summary: (summary) => write(`${printableJson({ type: 'summary', ...summary })}\n`),
  };
}

/** A line per event; only lines actually printed are formatted and scrubbed. */
export function textReporter(options: { quiet?: boolean; redact?: Redactor } = {}, write: Write = stdout): Reporter {
  const redact = options.redact ?? NO_REDACTION;
  return {
    event: (event) => {
      if (options.quiet) return;
      const line = eventLine(event);
      if (line !== null) write(`${redact.text(line)}\n`);
    },
    summary: (summary) => write(`${summaryLine(summary)}\n`),
  };
}

/** The closing line for people, with or without the UI: `COMPLETED (run 01…): 5 steps, exit 0`. */
export function summaryLine(summary: Summary): string {
  const run = summary.runId === null ? '' : ` (run ${summary.runId})`;
  return `${summary.state}${run}: ${count(summary.steps, 'step')}, exit ${summary.exitCode}`;
}
