/**
 * Where a command shows its run: the terminal UI, or lines (text or NDJSON). Both take the same
 * RunEvent stream and the same ending; the UI then waits for the user to quit, and the closing
 * lines are printed either way (after the UI, they stay in the terminal's scrollback).
 */
import type { RunEvent } from '../core/events.js';
import { UsageError } from '../core/errors.js';
import { EventRedactor } from '../core/event-redactor.js';
import type { Redactor } from '../core/redact.js';
import { holdKeys } from '../tui/held-keys.js';
import type { SessionInfo } from '../tui/index.js';
import { out, stdinIsTerminal, stdoutIsTerminal, stdoutStream, type GlobalOptions } from './io.js';
import { jsonReporter, summaryLine, textReporter, type Summary } from './render/reporter.js';

export interface Display {
  /** Show `event`; a promise (the UI is due a turn to draw) is awaited before the run goes on. */
  event(event: RunEvent): Promise<void> | undefined;
  /**
   * The command is done. `report` are the closing lines for people (text and UI); without them the
   * text reporter prints its one-line summary. With the UI this waits until the user quits.
   */
  finish(summary: Summary, report?: readonly string[]): Promise<void>;
  /** The command failed: take the UI down (terminal restored) before the error is printed. */
  dispose(): Promise<void>;
}

export interface DisplayContext {
  session: SessionInfo;
  redact: Redactor;
  /** What Ctrl-C and `q` do while the run is live in the UI. */
  onCancel: () => void;
}

export type DisplayKind = 'tui' | 'json' | 'text';

export interface Terminal {
  stdinTTY: boolean;
  stdoutTTY: boolean;
  env: NodeJS.ProcessEnv;
}

const processTerminal = (): Terminal => ({ stdinTTY: stdinIsTerminal(), stdoutTTY: stdoutIsTerminal(), env: process.env });

/**
 * How a command shows its run. The UI: forced by `--tui` (a terminal is needed), never with
 * `--no-tui`; by default when standard input and output are terminals, outside CI, and neither
 * --json nor --quiet is given. Called before any work starts, so a bad combination costs nothing.
 * The terminal is looked at only when the answer depends on it (`--json` and `--quiet` never load
 * `node:tty`).
 *
 * Once the answer is the UI, keys typed from then on are kept for it (no echo over the screen while
 * the command loads: tui/held-keys.ts) — on the process's own terminal, not on one a test describes.
 */
export function displayKind(options: GlobalOptions, limits: { interactive?: boolean } = {}, terminal: () => Terminal = processTerminal): DisplayKind {
  const kind = chooseDisplay(options, limits, terminal);
  if (kind === 'tui' && terminal === processTerminal) holdKeys();
  return kind;
}

function chooseDisplay(options: GlobalOptions, limits: { interactive?: boolean }, terminal: () => Terminal): DisplayKind {
  if (options.tui === true) {
    if (options.json) throw new UsageError('--tui and --json cannot be used together');
    const io = terminal();
    if (!(io.stdinTTY && io.stdoutTTY)) throw new UsageError('--tui needs a terminal: standard input and output are not both TTYs', { hint: 'drop --tui (output is one line per event), or use --json' });
    if (limits.interactive) throw new UsageError('the terminal UI does not take interactive input', { hint: 'drop --tui: an interactive session reads each message as a line' });
    return 'tui';
  }
  if (options.json) return 'json';
  if (options.tui === false || options.quiet || limits.interactive) return 'text';
  const io = terminal();
  return io.stdinTTY && io.stdoutTTY && !inCi(io.env) ? 'tui' : 'text';
}

function inCi(env: NodeJS.ProcessEnv): boolean {
  const set = (key: string): boolean => env[key] !== undefined && env[key] !== '0' && env[key] !== 'false';
  return set('CI') || set('CONTINUOUS_INTEGRATION');
}

export async function openDisplay(kind: DisplayKind, options: GlobalOptions, context: DisplayContext): Promise<Display> {
  const tui = kind === 'tui' ? await (await import('../tui/index.js')).openTui({ session: context.session, onCancel: context.onCancel, stdout: stdoutStream() }) : null;
  const { redact } = context;
  if (tui !== null) {
    const redactor = new EventRedactor(redact);
    return {
      // The UI shows what the reporters print: redacted text only.
      event: (event) => {
        let turn: Promise<void> | undefined;
        for (const safe of redactor.accept(event)) turn = tui.event(safe) ?? turn;
        return turn;
      },
      finish: async (summary, report) => {
        const lines = (report ?? [summaryLine(summary)]).map((line) => redact.text(line));
        tui.end({
          exitCode: summary.exitCode,
          ...(summary.verdict === undefined ? {} : { verdict: summary.verdict }),
          ...(summary.analysis === undefined ? {} : { analysis: summary.analysis }),
          report: lines,
        });
        await tui.closed;
        for (const line of lines) out(line);
      },
      dispose: () => tui.close(),
    };
  }
  const reporter = kind === 'json' ? jsonReporter({ redact }) : textReporter({ quiet: options.quiet ?? false, redact });
  return {
    event: (event) => {
      reporter.event(event);
      return undefined;
    },
    finish: async (summary, report) => {
      if (kind === 'json' || report === undefined) reporter.summary(summary);
      else for (const line of report) out(redact.text(line));
    },
    dispose: async () => undefined,
  };
}
