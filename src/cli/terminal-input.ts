/** User messages typed at the terminal for `--interactive` sessions; end of input ends the session. */
import { createInterface } from 'node:readline';
import type { UserInput } from '../agent/loop.js';
import { flushOut } from './io.js';

export function terminalInput(): UserInput & { close(): void } {
  const reader = createInterface({ input: process.stdin, output: process.stderr, terminal: process.stdin.isTTY === true });
  const lines = reader[Symbol.asyncIterator]();
  return {
    async next(signal?: AbortSignal): Promise<string | null> {
      // The turn's output first (standard output is buffered), then the prompt.
      flushOut();
      process.stderr.write('you> ');
      const aborted = new Promise<never>((_, reject) => {
        if (signal?.aborted) reject(signal.reason as Error);
        signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
      });
      aborted.catch(() => undefined);
      for (;;) {
        const line = await Promise.race([lines.next(), aborted]);
        if (line.done) return null;
        const text = line.value.trim();
        if (text === '/exit' || text === '/quit') return null;
        if (text !== '') return text;
        process.stderr.write('you> ');
      }
    },
    close: () => reader.close(),
  };
}
