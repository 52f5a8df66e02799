/**
 * Replays a corpus of golden tapes in this process, `concurrency` at a time, going on past failures
 * (one result per tape, in corpus order), stopping early after `maxFailures` if asked (`--bail`), and — with
 * `update` — rewriting each drifted tape from its replay.
 */
import type { RunEvent } from '../core/events.js';
import type { CorpusTape } from './corpus.js';
import type { UsersConfig } from './replay-run.js';
import { checkTape, type TapeResult } from './tape-check.js';
import type { CheckedTapes } from '../tape/checked-tapes.js';
import { updatedTape, writeUpdatedTape } from './tape-update.js';

export interface CiOptions {
  concurrency: number;
  maxFailures?: number;
  /** `--config`: the user's own config, in whole or in part. */
  usersConfig?: UsersConfig;
  overrides?: readonly string[];
  /** Rewrite drifted tapes; `note` is recorded in their header. */
  update?: { at: string; note: string };
  /** What-if: a changed tape counts as a failure. */
  failOnChange?: boolean;
  /** Told after each tape (for progress). */
  onResult?: (result: CiResult, done: number, total: number) => void;
  /** Tape files checked before, whose checks a read may skip (checked-tapes.ts). */
  checked?: CheckedTapes | null;
}

export interface CiResult extends TapeResult {
  /** With `update`: the drifted tape was rewritten, or could not be (it needs more than it has). */
  update?: 'updated' | 'cannot';
}

export interface CiRun {
  results: CiResult[];
  /** Tapes never started because `maxFailures` was reached. */
  skipped: CorpusTape[];
}

/**
 * Whether a tape fails the CI run: the one rule behind the exit code, the counts, `--bail`
 * and every reporter. A drifted tape that `--update` rewrote fails no more. Under a what-if (the
 * result has `whatIf`), a tape that cannot be told past some step is reported, not failed: the
 * override took the run where its tape never went, and only a change fails, with --fail-on-change.
 */
export function isFailure(result: CiResult, failOnChange = false): boolean {
  if (result.update === 'updated') return false;
  switch (result.outcome) {
    case 'drift':
    case 'invalid':
    case 'error':
      return true;
    case 'exhausted':
      return result.whatIf === undefined;
    case 'changed':
      return failOnChange;
    case 'pass':
      return false;
  }
}

export async function runCi(tapes: readonly CorpusTape[], options: CiOptions): Promise<CiRun> {
  const results: (CiResult | undefined)[] = new Array(tapes.length);
  let next = 0;
  let done = 0;
  let failures = 0;
  const stopped = (): boolean => options.maxFailures !== undefined && failures >= options.maxFailures;

  const worker = async (): Promise<void> => {
    while (next < tapes.length && !stopped()) {
      const index = next++;
      const tape = tapes[index] as CorpusTape;
      const result = await checkOne(tape, options);
      results[index] = result;
      done++;
      if (isFailure(result, options.failOnChange)) failures++;
      options.onResult?.(result, done, tapes.length);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, tapes.length)) }, worker));
  const finished: CiResult[] = [];
  const skipped: CorpusTape[] = [];
  // A plain loop: forEach would pass over the holes left by tapes that never started.
  for (let i = 0; i < tapes.length; i++) {
    const result = results[i];
    if (result === undefined) skipped.push(tapes[i] as CorpusTape);
    else finished.push(result);
  }
  return { results: finished, skipped };
}

async function checkOne(tape: CorpusTape, options: CiOptions): Promise<CiResult> {
  const events: RunEvent[] | undefined = options.update === undefined ? undefined : [];
  const { replay: _replay, ...result } = await checkTape(tape, {
    ...(options.usersConfig === undefined ? {} : { usersConfig: options.usersConfig }),
    ...(options.overrides === undefined ? {} : { overrides: options.overrides }),
    checked: options.checked ?? null,
    // A tape to rewrite is replayed to its end, past its first divergence.
    ...(events === undefined ? {} : { onEvent: (event: RunEvent) => events.push(event), strict: false }),
  });
  if (options.update === undefined || events === undefined || result.meta === undefined) return result;
  if (result.outcome === 'exhausted') return { ...result, update: 'cannot' };
  if (result.outcome !== 'drift') return result;
  await writeUpdatedTape(tape.path, updatedTape(result.meta, events, options.update));
  return { ...result, update: 'updated' };
}
