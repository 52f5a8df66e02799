/**
 * Where `y` and `w` put a step's text: the terminal's clipboard, through OSC 52 (the terminal
 * writes its own clipboard: no helper program, and it works over ssh and in tmux with
 * `set-clipboard on`), or a new file in the current directory. A file is never overwritten: a name
 * that is taken gets `-2`, `-3`, … and its name is built from the run id and the step number alone,
 * with anything but letters, digits, `-` and `_` replaced, so it cannot point anywhere else.
 */
import { open } from 'node:fs/promises';
import { join } from 'node:path';

export interface StepOutput {
  /** Put the text on the clipboard; returns the notice to show. */
  copy(text: string, step: number): string;
  /** Write the text to a new file; resolves to the notice to show (also when it failed). */
  write(text: string, runId: string, step: number): Promise<string>;
}

/**
 * Terminals cap what one escape sequence may carry, some at about 100 KB: the text is kept under
 * that once encoded (base64 makes 4 bytes of 3). A longer text is refused with a pointer to `w`,
 * rather than arriving cut or not at all.
 */
export const CLIPBOARD_MAX_BYTES = 74_000;
const MAX_ATTEMPTS = 100;

/** The escape sequence that asks the terminal to put `text` on its clipboard. */
export function osc52(text: string): string {
  return `\u001b]52;c;${Buffer.from(text, 'utf8').toString('base64')}\u0007`;
}

/** `agentctl-step-<run>-<step>.txt`, `-2` … before the extension for later attempts. */
export function stepFileName(runId: string, step: number, attempt = 1): string {
  const id = runId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || 'run';
  return `agentctl-step-${id}-${Math.trunc(step)}${attempt > 1 ? `-${attempt}` : ''}.txt`;
}

/** The clipboard is the terminal behind `terminal`; files go to `dir`, shown as `shownDir` in notices. */
export function stepOutput(terminal: { write(data: string): unknown }, dir: string, shownDir = '.'): StepOutput {
  return {
    copy(text, step) {
      const bytes = Buffer.byteLength(text, 'utf8');
      if (bytes > CLIPBOARD_MAX_BYTES) return `step ${step} is ${Math.ceil(bytes / 1000)} KB, too long for the clipboard: w writes it to a file`;
      terminal.write(osc52(text));
      return `copied step ${step} to the clipboard (OSC 52) · w writes it to a file`;
    },
    async write(text, runId, step) {
      for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
        const name = stepFileName(runId, step, attempt);
        let file;
        try {
          // `wx`: created here or not at all — an existing file (or a link by that name) is left alone.
          file = await open(join(dir, name), 'wx');
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
          return `cannot write ${shownDir}/${name}: ${(error as Error).message}`;
        }
        try {
          await file.writeFile(text, 'utf8');
        } catch (error) {
          return `cannot write ${shownDir}/${name}: ${(error as Error).message}`;
        } finally {
          await file.close();
        }
        return `wrote step ${step} to ${shownDir}/${name}`;
      }
      return `cannot write step ${step}: ${shownDir}/${stepFileName(runId, step)} and ${MAX_ATTEMPTS - 1} numbered copies exist`;
    },
  };
}
