/**
 * The terminal UI, as the commands see it. Nothing here imports Ink or React: they are loaded by
 * `openTui` only, so every path without the UI (`--help`, `ls`, `--json`, pipes) never loads them.
 */
import { UnexpectedError } from '../core/errors.js';
import type { RunEvent } from '../core/events.js';
import { handOverKeys } from './held-keys.js';
import { RunFeed } from './run-feed.js';
import type { mountTui as MountTui } from './run-tui.js';
import type { RunEnding, SessionInfo } from './state/run-model.js';
import { colorDisabled } from './color-setting.js';

export type { RunEnding, SessionInfo, TuiMode } from './state/run-model.js';

export interface OpenTuiOptions {
  session: SessionInfo;
  /** Called when the user quits (or presses Ctrl-C) while the run is live. */
  onCancel: () => void;
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
  env?: NodeJS.ProcessEnv;
}

export interface Tui {
  /**
   * Show `event`. A promise when the UI is due a turn of the event loop to draw (run-feed.ts): the
   * command awaits it before it goes on.
   */
  event(event: RunEvent): Promise<void> | undefined;
  /** The command is done: the UI shows the ending until the user quits. */
  end(ending: RunEnding): void;
  /** Resolves once the user has quit and the terminal is restored; rejects if the UI failed. */
  closed: Promise<void>;
  /** Take the UI down now (the command failed) and restore the terminal. */
  close(): Promise<void>;
}

// The alternate screen: the UI draws on its own page and the user's scrollback comes back intact.
// With it, mouse reports (1000: buttons and the wheel, 1006: in the SGR form, which the UI parses):
// the wheel scrolls the panes. They are turned off with the alternate screen, on every way out.
const ENTER_ALT_SCREEN = '\u001b[?1049h\u001b[H\u001b[?1000h\u001b[?1006h';
const LEAVE_ALT_SCREEN = '\u001b[?1006l\u001b[?1000l\u001b[?1049l';

export async function openTui(options: OpenTuiOptions): Promise<Tui> {
  const stdout = options.stdout ?? process.stdout;
  const stdin = options.stdin ?? process.stdin;
  const env = options.env ?? process.env;
  const color = !colorDisabled(env, stdout);
  if (!color) {
    // chalk (Ink's colours) does not look at NO_COLOR itself.
    const { default: chalk } = await import('chalk');
    chalk.level = 0;
  }
  const mountTui = await loadInk();
  const feed = new RunFeed();
  let onScreen = true;
  const leave = (): void => {
    if (!onScreen) return;
    onScreen = false;
    stdout.write(LEAVE_ALT_SCREEN);
  };
  process.once('exit', leave);
  stdout.write(ENTER_ALT_SCREEN);
  const { interrupted } = handOverKeys(stdin);
  const mounted = mountTui({ feed, session: options.session, color, onCancel: options.onCancel, stdin, stdout, interrupted });
  const closed = mounted.closed
    .catch((error: unknown) => {
      // The run must not go on unseen: stop it (it closes its tape as CANCELLED), then report one line.
      options.onCancel();
      throw new UnexpectedError(`the terminal UI failed: ${error instanceof Error ? error.message : String(error)}`, { hint: 'run again with --no-tui' });
    })
    .finally(() => {
      leave();
      process.off('exit', leave);
    });
  // The caller awaits `closed` when the command is done; until then a failure must not go unhandled.
  closed.catch(() => undefined);
  return {
    event: (event) => {
      feed.push(event);
      return feed.turn();
    },
    end: (ending) => feed.end(ending),
    closed,
    close: async () => {
      mounted.unmount();
      await closed.catch(() => undefined);
    },
  };
}

/**
 * Ink decides once, when it is first imported, whether it runs under CI (then it draws only at
 * exit), and React which build it is. The UI is opened under CI only when the user asked for it with
 * --tui, so it must draw; the environment is the caller's again once they are loaded.
 */
async function loadInk(): Promise<typeof MountTui> {
  // Ink reads the process's own environment, whatever environment the caller describes.
  const env = process.env;
  const saved = { CI: env.CI, CONTINUOUS_INTEGRATION: env.CONTINUOUS_INTEGRATION, NODE_ENV: env.NODE_ENV };
  // React's development build records a performance entry per render, and Node keeps them all:
  // memory would grow with every frame. A user's own NODE_ENV wins. React and Ink's renderer each
  // pick their build when they load, and a mixed pair draws nothing: so neither may load before
  // this line, and nothing this module imports may import React (see color-setting.ts).
  env.NODE_ENV ??= 'production';
  delete env.CI;
  delete env.CONTINUOUS_INTEGRATION;
  try {
    return (await import('./run-tui.js')).mountTui;
  } finally {
    // The environment as it was: the run's tools (a shell) see the same one with the UI as without.
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete env[key];
      else env[key] = value;
    }
  }
}
