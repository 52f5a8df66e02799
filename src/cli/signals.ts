/**
 * Ctrl-C: the first SIGINT asks the run to stop (the loop ends as CANCELLED and the tape is closed
 * cleanly); a second one exits at once with 130. The terminal UI reads Ctrl-C as a key (the terminal
 * is in raw mode, so no signal comes) and calls `cancel()`, which does the same.
 */
import { note } from './io.js';

export function abortOnSigint(): { signal: AbortSignal; cancel: () => void; dispose: () => void } {
  const controller = new AbortController();
  const cancel = (quiet = false): void => {
    if (controller.signal.aborted) {
      if (!quiet) note('agentctl: interrupted again, exiting');
      process.exit(130);
    }
    if (!quiet) note('agentctl: stopping (Ctrl-C again to exit at once)');
    controller.abort(new Error('cancelled by the user'));
  };
  const onSigint = (): void => cancel();
  process.on('SIGINT', onSigint);
  // From the UI: its own screen says what is happening; a write to stderr would tear it.
  return { signal: controller.signal, cancel: () => cancel(true), dispose: () => process.off('SIGINT', onSigint) };
}
