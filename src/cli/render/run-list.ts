/**
 * The table of `agentctl ls`, fitted to a width: the task (with the run's name) takes what the other
 * columns leave and is cut with `…`, never wrapped; when even that leaves it too little, the columns
 * that matter least go first — CREATED (the list is newest first anyway), then KIND, STEPS and
 * OUTCOME. The id always stays. Without a width (a pipe, a file) nothing is dropped and the task is
 * cut at 60 characters.
 */
import { recordedBy, type RunMeta } from '../../core/run-meta.js';
import { clip, runOutcome, shortTime, table } from '../format.js';

interface Column {
  title: string;
  cell(run: RunMeta): string;
}

/** Every column but the task, in the order shown. */
const COLUMNS: readonly Column[] = [
  { title: 'ID', cell: (run) => run.id },
  { title: 'CREATED', cell: (run) => shortTime(run.createdAt) },
  { title: 'KIND', cell: (run) => (recordedBy(run) === 'cli' ? run.kind : `${run.kind} (${recordedBy(run)})`) },
  { title: 'OUTCOME', cell: runOutcome },
  { title: 'STEPS', cell: (run) => (run.totals === undefined ? '-' : String(run.totals.steps)) },
];
/** The columns dropped, in this order, while the task would get fewer than MIN_TASK cells. */
const DROPPED_FIRST = ['CREATED', 'KIND', 'STEPS', 'OUTCOME'];
const MIN_TASK = 24;
/** The task's width where lines may be of any length. */
const UNFITTED_TASK = 60;
const GAP = 2;

/** How to cut text to a number of terminal cells (wide characters count twice), with `…`. */
export type ClipCells = (text: string, width: number) => string;

const task = (run: RunMeta): string => (run.name === undefined ? run.task : `[${run.name}] ${run.task}`);

/** The lines of the table; `fit`: the width to fit and how to cut to it, or undefined for no limit. */
export function runListLines(runs: readonly RunMeta[], fit?: { width: number; clip: ClipCells }): string[] {
  if (fit === undefined) {
    return table([[...COLUMNS.map((c) => c.title), 'TASK'], ...runs.map((run) => [...COLUMNS.map((c) => c.cell(run)), clip(task(run), UNFITTED_TASK)])]);
  }
  const columns = COLUMNS.map((column) => ({ ...column, width: Math.max(column.title.length, ...runs.map((run) => column.cell(run).length)) }));
  const used = (): number => columns.reduce((sum, column) => sum + column.width + GAP, 0);
  for (const title of DROPPED_FIRST) {
    if (fit.width - used() >= MIN_TASK) break;
    columns.splice(columns.findIndex((column) => column.title === title), 1);
  }
  const taskWidth = Math.max(fit.width - used(), 0);
  const header = [...columns.map((c) => c.title), fit.clip('TASK', taskWidth)];
  return table([header, ...runs.map((run) => [...columns.map((c) => c.cell(run)), fit.clip(task(run), taskWidth)])]);
}
