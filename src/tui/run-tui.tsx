/**
 * The only place that calls Ink's `render`: mounts the UI on the terminal and resolves when the user
 * has quit. An error inside the UI unmounts it and rejects, so the command can restore the terminal
 * and report one line.
 */
import { render } from 'ink';
import { ErrorBoundary } from './components/ErrorBoundary.js';
import { App } from './components/App.js';
import type { RunFeed } from './run-feed.js';
import type { SessionInfo } from './state/run-model.js';
import { stepOutput } from './step-output.js';
import { ThemeContext } from './theme.js';

export interface MountOptions {
  feed: RunFeed;
  session: SessionInfo;
  color: boolean;
  onCancel: () => void;
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  /** Ctrl-C was typed before the UI opened (the run is being stopped): close once it has. */
  interrupted?: boolean;
}

export interface MountedTui {
  /** Resolves when the user has quit; rejects when the UI failed. Either way it is unmounted. */
  closed: Promise<void>;
  /** Unmount now (the command is failing). */
  unmount(): void;
}

export function mountTui(options: MountOptions): MountedTui {
  let settle: { resolve: () => void; reject: (error: Error) => void } | undefined;
  const closed = new Promise<void>((resolve, reject) => {
    settle = { resolve, reject };
  });
  let done = false;
  const finish = (error?: Error): void => {
    if (done) return;
    done = true;
    instance.unmount();
    if (error === undefined) settle?.resolve();
    else settle?.reject(error);
  };
  const onCancel = (): void => {
    try {
      options.onCancel();
    } catch (error) {
      finish(error as Error);
    }
  };
  const instance = render(
    <ThemeContext.Provider value={{ color: options.color }}>
      <ErrorBoundary onError={(error) => finish(error)}>
        <App
          feed={options.feed}
          session={options.session}
          onQuit={() => finish()}
          onCancel={onCancel}
          output={stepOutput(options.stdout, process.cwd())}
          interrupted={options.interrupted ?? false}
        />
      </ErrorBoundary>
    </ThemeContext.Provider>,
    { stdin: options.stdin, stdout: options.stdout, exitOnCtrlC: false, patchConsole: true, maxFps: 30 },
  );
  instance.waitUntilExit().catch((error: unknown) => finish(error instanceof Error ? error : new Error(String(error))));
  return { closed, unmount: () => finish() };
}
