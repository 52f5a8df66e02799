/**
 * `agentctl view <run | file>`: show a recorded run or a tape file without replaying it, in the
 * terminal UI — or, without a terminal, as one line per event (NDJSON with --json). The events are
 * shown as they are read: the UI opens on the first of a long tape and takes the rest while the user
 * looks (a tape is read at its own pace, so the UI is given its turns: display.ts). The store is
 * closed as soon as every event is read, while the UI still shows them, so a recording or another
 * command can use it. Quitting (or Ctrl-C) while the tape is read stops the reading: exit 130.
 * Works on incomplete runs and on runs recorded through the library. A run recorded without the
 * guardrails (the library, the proxy, `agentctl run`) is shown with their analysis, marked as such:
 * what they would have decided, each decision after the answer it is about. Exit 0.
 */
import { runRedactor } from '../../core/redact.js';
import { printableLine } from '../../core/terminal-text.js';
import type { RunEvent } from '../../core/events.js';
import { recordedBy } from '../../core/run-meta.js';
import type { AnalysisStop } from '../../replay/guardrail-analysis.js';
import { openTapeSource, sourceBatches, type TapeSource } from '../../replay/tape-source.js';
import { checkedTapes } from '../tape-cache.js';
import { isTapePath } from '../../tape/tape-file.js';
import type { TapeStore } from '../../tape/tape-store.js';
import { displayKind, openDisplay, type Display } from '../display.js';
import { runOutcome } from '../format.js';
import type { GlobalOptions } from '../io.js';
import type { Summary } from '../render/reporter.js';
import { abortOnSigint } from '../signals.js';
import { openStore, storeDir } from '../store-dir.js';
import { count } from '../../core/plural.js';
import { StepCounter } from '../../core/steps.js';

export async function runView(ref: string, options: GlobalOptions): Promise<void> {
  const kind = displayKind(options);
  let store: TapeStore | undefined;
  const closeStore = async (): Promise<void> => {
    const open = store;
    store = undefined;
    await open?.close();
  };
  const sigint = abortOnSigint();
  try {
    const source = await openTapeSource(ref, async () => (store ??= await openStore(storeDir(options.store), { readOnly: true })), checkedTapes());
    const { meta } = source;
    const display = await openDisplay(kind, options, {
      session: {
        mode: 'viewing',
        runId: meta.id,
        ...(meta.name === undefined ? {} : { name: meta.name }),
        ...(isTapePath(ref) ? { source: ref } : {}),
      },
      redact: runRedactor(),
      onCancel: sigint.cancel,
    });
    let shown: Shown;
    try {
      shown = await showEvents(source, display, sigint.signal);
      await closeStore();
    } catch (error) {
      await display.dispose();
      throw error;
    }
    const stopped = sigint.signal.aborted;
    const exitCode = stopped ? 130 : 0;
    process.exitCode = exitCode;
    const steps = meta.totals?.steps ?? shown.steps;
    const run = `${meta.kind} run ${meta.id}${meta.name === undefined ? '' : ` (${meta.name})`}: ${runOutcome(meta)}`;
    const { analysis } = shown;
    const summary: Summary = { runId: meta.id, state: meta.finalState ?? meta.status, steps, exitCode };
    if (analysis !== undefined) summary.analysis = { stop: analysis.stop };
    const analysed = analysis === undefined ? '' : `; analysis: ${analysis.text}`;
    await display.finish(
      summary,
      [printableLine(stopped ? `${run}; reading stopped after ${shown.events} events` : `${run}, ${count(steps, 'step')}, ${count(shown.events, 'event')}${analysed}`)],
    );
  } finally {
    sigint.dispose();
    await closeStore();
  }
}

/** How many of the tape's events and steps were shown, and the analysis's stop point when it was shown with one. */
interface Shown {
  events: number;
  steps: number;
  analysis?: { stop: AnalysisStop | null; text: string };
}

/**
 * The source's events shown, a batch read at a time, until `stop` (checked after each turn of the
 * event loop, the only time a key or a signal can stop it). A run that may need an analysis (one
 * not recorded by the built-in loop) is held until it is all read: the analysis is of the whole run.
 */
async function showEvents(source: TapeSource, display: Display, stop: AbortSignal): Promise<Shown> {
  const steps = new StepCounter();
  const held: RunEvent[] | null = recordedBy(source.meta) === 'cli' ? null : [];
  let events = 0;
  reading: for await (const batch of sourceBatches(source)) {
    for (const event of batch) {
      events++;
      steps.add(event);
      if (held !== null) held.push(event);
      else if (!(await showOne(display, event, stop))) break reading;
    }
    if (stop.aborted) break;
  }
  if (held === null || stop.aborted) return { events, steps: steps.count };
  // Loaded for such a run only: the analysis brings the guardrails and the tools' specs.
  const { analysedEvents, stopText } = await import('../../replay/analysis-events.js');
  const { events: all, analysis } = analysedEvents(source.meta, held);
  for (const event of all) if (!(await showOne(display, event, stop))) break;
  if (analysis === null) return { events, steps: steps.count };
  return { events, steps: steps.count, analysis: { stop: analysis.stop, text: stopText(analysis.stop) } };
}

/** Show one event (given a turn of the event loop when the display is due one); false once the reading was stopped. */
function showOne(display: Display, event: RunEvent, stop: AbortSignal): boolean | Promise<boolean> {
  const turn = display.event(event);
  return turn === undefined ? true : turn.then(() => !stop.aborted);
}
