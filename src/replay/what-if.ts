/** What a what-if (`--set`) does to one tape: a replay's (tape-check.ts), or an analysis's (analysis-what-if.ts). */
export interface WhatIf {
  /** The first decision whose verdict or rule changed. */
  firstChange: { step: number; message: string; rule: string; before: string; after: string } | null;
  decisionChanges: number;
  state: { before: string | null; after: string | null };
  steps: { before: number; after: number };
  tokens: { before: number; after: number };
  cost: { before: number; after: number };
}
