import { Box } from 'ink';
import { useCallback, useEffect, useMemo, useReducer, useRef, type ReactElement } from 'react';
import type { RunFeed } from '../run-feed.js';
import type { StepOutput } from '../step-output.js';
import { searchPattern, visibleRows } from '../state/filters.js';
import { headerLines, LASTING_WAIT_MS } from '../state/header-lines.js';
import { helpLines } from '../state/help-lines.js';
import { layoutFor, type TerminalSize } from '../state/layout.js';
import type { RunModel, SessionInfo } from '../state/run-model.js';
import { stepText } from '../state/step-text.js';
import { initialState, isPatched, selectedDetail, tuiReducer, type UiRequest } from '../state/tui-state.js';
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
  /** Where `y` and `w` put the selected step's text. */
  output: StepOutput;
  /** Ctrl-C was typed while the UI started: the run is already being stopped, and the UI closes once it has. */
  interrupted?: boolean;
}

/** The footer's hints while the help is shown. */
const HELP_HINTS = ['j/k scroll', 'Esc back', 'any other key closes'];

/** The whole UI: header, timeline and step detail side by side, footer; `?` swaps the panes for help. */
export function App({ feed, session, size: fixedSize, onQuit, onCancel, output, interrupted = false }: AppProps): ReactElement {
  const size = useTerminalSize(fixedSize);
  const [state, dispatch] = useReducer(tuiReducer, undefined, () => {
    const initial = initialState(session, size);
    return interrupted ? { ...initial, view: { ...initial.view, quitting: true, notice: 'stopping the run…' } } : initial;
  });
  const { model, view } = state;
  useRunFeed(feed, dispatch);
  useEffect(() => {
    if (size.columns !== view.size.columns || size.rows !== view.size.rows) dispatch({ type: 'resize', size });
  }, [size, view.size]);

  useKeyActions(dispatch);
  // Keys typed before the first step waited for it (see ViewState.held).
  const started = model.rows.length > 0 || model.ending !== null;
  useEffect(() => {
    if (started && view.held.length > 0) dispatch({ type: 'releaseHeld' });
  }, [started, view.held]);
  // The state's requests, each carried out once, in order.
  const carriedOut = useRef(0);
  useEffect(() => {
    for (const request of view.outbox.pending) {
      if (request.id <= carriedOut.current) continue;
      carriedOut.current = request.id;
      carryOut(request, { model, session, onCancel, output }).then(
        (notice) => dispatch({ type: 'handled', id: request.id, ...(notice === undefined ? {} : { notice }) }),
        (error: unknown) => dispatch({ type: 'handled', id: request.id, notice: error instanceof Error ? error.message : String(error) }),
      );
    }
  }, [view.outbox, model, session, onCancel, output]);
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
  const highlight = useMemo(() => searchPattern(view.search.query), [view.search.query]);

  const status: string[] = [];
  const helpHeight = layout.bodyRows + 1;
  const helpLength = view.help ? helpLines(layout.columns).length : 0;
  if (view.help) {
    if (helpLength > helpHeight) status.push(`help ${view.helpScroll + 1}–${Math.min(helpLength, view.helpScroll + helpHeight)} of ${helpLength}`);
  } else if (session.mode === 'recording' || model.ending === null) status.push(view.follow ? 'following' : 'paused');
  if (!view.help && view.focus === 'detail' && detail.length > layout.bodyRows) {
    status.push(`lines ${view.detailScroll + 1}–${Math.min(detail.length, view.detailScroll + layout.bodyRows)} of ${detail.length}`);
  }

  return (
    <Box flexDirection="column" width={layout.columns} height={layout.height}>
      <Header lines={header} width={layout.columns} />
      {view.help ? (
        <HelpScreen width={layout.columns} height={helpHeight} scroll={view.helpScroll} />
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
            <StepDetail lines={detail} scroll={view.detailScroll} height={layout.bodyRows} width={layout.detailWidth} highlight={highlight} />
          </Box>
        </>
      )}
      <Footer width={layout.columns} search={view.search} notice={view.notice} status={status.join(' · ')} {...(view.help ? { hints: HELP_HINTS } : {})} />
    </Box>
  );
}

interface Host {
  model: RunModel;
  session: SessionInfo;
  onCancel: () => void;
  output: StepOutput;
}

/** One request of the state, carried out; resolves to the notice to show, if any. */
async function carryOut(request: UiRequest, host: Host): Promise<string | undefined> {
  if (request.kind === 'cancel') {
    host.onCancel();
    return undefined;
  }
  const row = host.model.rows[request.row];
  if (row === undefined) return undefined;
  const text = stepText(row, isPatched(host.model, row));
  return request.kind === 'copy' ? host.output.copy(text, row.step) : host.output.write(text, host.session.runId ?? 'run', row.step);
}
