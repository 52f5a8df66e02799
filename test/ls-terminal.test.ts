/**
 * `agentctl ls` on a real terminal (tmux, 80×24, no $COLUMNS): it asks the terminal its width and
 * fits it — one screen line per run, the long task cut with `…`, never wrapped mid-word.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from './support/cli.js';
import { storeWithRuns } from './support/run-store.js';
import { COLUMNS, openTerminal, PROMPT } from './support/tmux.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-ls-term-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('ls on a terminal', () => {
  it('fits the terminal it runs in: one line per run, long names and tasks cut with …', async () => {
    const store = join(dir, 'store');
    const ids = await storeWithRuns(store, [
      { task: 'Find out which host and port the demo service is configured to listen on, then explain why it will not start', name: 'port-hunt' },
      { task: 'short' },
    ]);
    // Short names for the long paths, so the command line itself fits on one line of the screen.
    const term = await openTerminal({ cwd: dir, env: { A: BIN, AGENTCTL_STORE: store, COLUMNS: undefined } });
    try {
      const marker = '__ls_done__';
      await term.type(`node "$A" ls; echo ${marker}`);
      const screen = await term.waitFor((s) => s.lines.includes(marker), 'ls to finish');
      const start = screen.lines.findIndex((line) => line.startsWith(`${PROMPT} node "$A" ls`));
      const printed = screen.lines.slice(start + 1, screen.lines.indexOf(marker));
      expect(printed.map((line) => line.split(' ')[0])).toEqual(['ID', ...[...ids].reverse()]);
      for (const line of printed) expect(line.length).toBeLessThanOrEqual(COLUMNS);
      expect(printed[2]).toMatch(/ \[port-hunt\] Find out .*…$/);
    } finally {
      await term.kill();
    }
  });
});
