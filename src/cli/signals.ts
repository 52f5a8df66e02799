/**
 * Ctrl-C: the first SIGINT asks the run to stop (the loop ends as CANCELLED and the tape is closed
 * cleanly); a second one exits at once with 130.
 */
export function abortOnSigint(): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const onSigint = (): void => {
    if (controller.signal.aborted) {
      process.stderr.write('agentctl: interrupted again, exiting\n');
      process.exit(130);
    }
    process.stderr.write('agentctl: stopping (Ctrl-C again to exit at once)\n');
    controller.abort(new Error('cancelled by the user'));
  };
  process.on('SIGINT', onSigint);
  return { signal: controller.signal, dispose: () => process.off('SIGINT', onSigint) };
}
