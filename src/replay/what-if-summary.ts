/**
 * What a what-if does across a corpus, in one sentence: "3 runs now stop earlier, saving 41 steps
 * and $0.1200; 1 run that completed now ends in ERROR; 8 unchanged".
 */
import { count } from '../core/plural.js';
import type { TapeResult } from './tape-check.js';

export interface WhatIfTotals {
  tapes: number;
  unchanged: number;
  changed: number;
  /** Tapes the what-if could not follow to the end (it needed more than the tape has). */
  undecided: number;
  stopEarlier: number;
  runLonger: number;
  stepsSaved: number;
  tokensSaved: number;
  costSaved: number;
  /** Final-state changes, e.g. `COMPLETED → ERROR`, with how many tapes each. */
  stateChanges: { before: string; after: string; count: number }[];
  decisionChanges: number;
}

export function whatIfTotals(results: readonly TapeResult[]): WhatIfTotals {
  const totals: WhatIfTotals = {
    tapes: results.length, unchanged: 0, changed: 0, undecided: 0, stopEarlier: 0, runLonger: 0,
    stepsSaved: 0, tokensSaved: 0, costSaved: 0, stateChanges: [], decisionChanges: 0,
  };
  const states = new Map<string, { before: string; after: string; count: number }>();
  for (const result of results) {
    const w = result.whatIf;
    if (result.outcome === 'pass') totals.unchanged++;
    else if (result.outcome === 'changed') totals.changed++;
    else if (result.outcome === 'exhausted') totals.undecided++;
    if (w === undefined || result.outcome !== 'changed') continue;
    totals.decisionChanges += w.decisionChanges;
    if (w.steps.after < w.steps.before) totals.stopEarlier++;
    if (w.steps.after > w.steps.before) totals.runLonger++;
    totals.stepsSaved += w.steps.before - w.steps.after;
    totals.tokensSaved += w.tokens.before - w.tokens.after;
    totals.costSaved += w.cost.before - w.cost.after;
    if (w.state.before !== w.state.after) {
      const key = `${w.state.before} → ${w.state.after}`;
      const entry = states.get(key) ?? { before: w.state.before ?? '?', after: w.state.after ?? '?', count: 0 };
      entry.count++;
      states.set(key, entry);
    }
  }
  totals.stateChanges = [...states.values()].sort((a, b) => b.count - a.count || (a.before + a.after).localeCompare(b.before + b.after));
  return totals;
}

const runs = (n: number): string => count(n, 'run');
const ended = (state: string): string => (state === 'COMPLETED' ? 'completed' : `ended in ${state}`);

/** The one-sentence summary. */
export function whatIfSentence(totals: WhatIfTotals): string {
  const parts: string[] = [];
  if (totals.stopEarlier > 0) {
    const saved = [count(totals.stepsSaved, 'step')];
    if (totals.costSaved > 0) saved.push(`$${totals.costSaved.toFixed(4)}`);
    parts.push(`${runs(totals.stopEarlier)} now stop${totals.stopEarlier === 1 ? 's' : ''} earlier, saving ${saved.join(' and ')}`);
  }
  if (totals.runLonger > 0) parts.push(`${runs(totals.runLonger)} now run${totals.runLonger === 1 ? 's' : ''} longer`);
  for (const change of totals.stateChanges) {
    parts.push(`${runs(change.count)} that ${ended(change.before)} now end${change.count === 1 ? 's' : ''} in ${change.after}`);
  }
  const other = totals.changed - totals.stopEarlier - totals.runLonger;
  if (other > 0 && totals.stateChanges.length === 0) parts.push(`${runs(other)} now decide${other === 1 ? 's' : ''} differently`);
  if (totals.undecided > 0) parts.push(`${runs(totals.undecided)} need${totals.undecided === 1 ? 's' : ''} more than the tape has to tell`);
  parts.push(`${totals.unchanged} unchanged`);
  return parts.join('; ');
}
