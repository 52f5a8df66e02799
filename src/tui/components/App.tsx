import { Box } from 'ink';
import { useCallback, useEffect, useMemo, useReducer, type ReactElement } from 'react';
import type { RunFeed } from '../run-feed.js';
import { visibleRows } from '../state/filters.js';
import { headerLines, LASTING_WAIT_MS } from '../state/header-lines.js';
import type { KeyAction } from '../state/keymap.js';
import { layoutFor, type TerminalSize } from '../state/layout.js';
import type { SessionInfo } from '../state/run-model.js';
import { initialState, isPatched, selectedDetail, tuiReducer } from '../state/tui-state.js';
import type { StepRow } from '../state/step-row.js';
import { useElapsed } from '../hooks/use-elapsed.js';
import { useKeyActions } from '../hooks/use-key-actions.js';
import { useRunFeed } from '../hooks/use-run-feed.js';
import { useTerminalSize } from '../hooks/use-terminal-size.js';
import { Footer } from './Footer.js';
import { Header } from './Header.js';
import { HelpScreen } from './HelpScreen.js';
import { PaneTitles } from './PaneTitles.js';
import { Separator } from './Separator.js';
import { StepDetail } from './StepDetail.js';
import { Timeline } from './Timeline.js';

export interface AppProps {
  feed: RunFeed;
  session: SessionInfo;
  /** Pins the size (tests); otherwise the terminal's, following resizes. */
  size?: TerminalSize;
  /** The user quit and the run has ended: unmount and exit. */
  onQuit: () => void;
  /** The user asked to stop a live run (q or Ctrl-C): end it as CANCELLED. */
  onCancel: () => void;
}

/** The whole UI: header, timeline and step detail side by side, footer; `?` swaps the panes for help. */
export function App({ feed, session, size: fixedSize, onQuit, onCancel }: AppProps): ReactElement {
  const size = useTerminalSize(fixedSize);
  const [state, dispatch] = useReducer(tuiReducer, undefined, () => initialState(session, size));
  const { model, view } = state;
  useRunFeed(feed, dispatch);
  useEffect(() => {
    if (size.columns !== view.size.columns || size.rows !== view.size.rows) dispatch({ type: 'resize', size });
  }, [size, view.size]);

  // Every quit while the run is live asks to stop it: the first stops it cleanly, a second one
  // lets the command exit at once (as a second Ctrl-C does without the UI).
  const onAction = useCallback(
    (action: KeyAction) => {
      if ((action === 'quit' || action === 'interrupt') && model.ending === null && !view.help) onCancel();
    },
    [model.ending, view.help, onCancel],
  );
  useKeyActions(view.search.editing, dispatch, onAction);
  useEffect(() => {
    if (view.quitting && model.ending !== null) onQuit();
  }, [view.quitting, model.ending, onQuit]);

  // A recorded run (view) waits for nothing; a replay's waits show once they last (header-lines.ts).
  const waitedMs = useElapsed(model.waitingSince, model.waiting !== null && model.ending === null && session.mode !== 'viewing', session.mode === 'recording' ? 0 : LASTING_WAIT_MS);
  const layout = layoutFor(view.size);
  const visible = useMemo(() => visibleRows(model.rows, view.filter), [model.rows, view.filter]);
  const detail = selectedDetail(state);
  const patched = useCallback((row: StepRow) => isPatched(model, row), [model]);
  const header = headerLines(model, { selected: view.selected, waitedMs, quitting: view.quitting });

  const status: string[] = [];
  if (session.mode === 'recording' || model.ending === null) status.push(view.follow ? 'following' : 'paused');
  if (view.focus === 'detail' && detail.length > layout.bodyRows) {
    status.push(`lines ${view.detailScroll + 1}–${Math.min(detail.length, view.detailScroll + layout.bodyRows)} of ${detail.length}`);
  }

  return (
    <Box flexDirection="column" width={layout.columns} height={layout.height}>
      <Header lines={header} width={layout.columns} />
      {view.help ? (
        <HelpScreen width={layout.columns} height={layout.bodyRows + 1} />
      ) : (
        <>
          <PaneTitles
            timelineWidth={layout.timelineWidth}
            detailWidth={layout.detailWidth}
            focus={view.focus}
            filter={view.filter}
            shown={visible.length}
            total={model.rows.length}
            expanded={view.expanded}
          />
          <Box height={layout.bodyRows}>
            <Timeline
              rows={model.rows}
              visible={visible}
              top={view.timelineTop}
              height={layout.bodyRows}
              width={layout.timelineWidth}
              selected={view.selected}
              isPatched={patched}
            />
            <Separator height={layout.bodyRows} />
            <StepDetail lines={detail} scroll={view.detailScroll} height={layout.bodyRows} width={layout.detailWidth} />
          </Box>
        </>
      )}
      <Footer width={layout.columns} search={view.search} notice={view.notice} status={status.join(' · ')} />
    </Box>
  );
}
