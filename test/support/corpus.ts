/**
 * The committed golden corpus (tapes/) for tests of `agentctl ci`: its files, a copy of it to
 * rewrite or add to, and which of its tapes a lowered `identicalCallBlock` reaches — the oracle for a
 * config change, read from the tapes themselves.
 */
import { copyFile, mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const TAPES = join(ROOT, 'tapes');

/** The environment of an offline run outside CI and GitHub Actions. */
export const OFFLINE = {
  OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, GITHUB_ACTIONS: undefined, GITHUB_STEP_SUMMARY: undefined, CI: undefined,
};

/** The file names of the committed tapes, sorted. */
export async function corpusFiles(): Promise<string[]> {
  return (await readdir(TAPES)).filter((f) => f.endsWith('.tape.jsonl') || f.endsWith('.tape.jsonl.gz')).sort();
}

/** A copy of the committed tapes in `dir` (made if need be). */
export async function copyCorpus(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const file of await corpusFiles()) await copyFile(join(TAPES, file), join(dir, file));
}

/** The last line a command printed: ci's closing line. */
export const lastLine = (text: string): string => text.trimEnd().split('\n').at(-1) ?? '';

/**
 * The committed tapes whose run an identical call took to its 2nd attempt (allowed): the ones whose
 * replay `guardrails.identicalCallBlock=2` changes, with the step of that decision.
 */
export async function reachedBySecondAttempt(): Promise<Map<string, number>> {
  const reached = new Map<string, number>();
  for (const file of await corpusFiles()) {
    const events = (await readFile(join(TAPES, file), 'utf8')).trim().split('\n').slice(1).map((l) => JSON.parse(l) as Record<string, unknown>);
    const second = events.find((e) => e.type === 'guardrail' && e.gate === 'loop_guard' && e.verdict === 'allow' && (e.counters as { after: { attempts?: number } }).after.attempts === 2);
    if (second !== undefined) reached.set(file, second.step as number);
  }
  return reached;
}
