/**
 * Keys typed while the UI starts. Between the moment a command knows it will show the UI and the
 * moment the UI reads its input, the terminal would echo every key over the screen (`jjjagentctl
 * REPLAYING…`) and the keys would reach the UI with nothing to act on. So the terminal goes into raw
 * mode (no echo) as soon as the UI is decided, what is typed is read and kept, and the UI is handed
 * it first when it mounts (`handOverKeys`), then reads the terminal itself.
 *
 * Raw mode also turns Ctrl-C into a byte instead of a signal: a Ctrl-C typed meanwhile is raised
 * as SIGINT, so it stops the command as it would without the UI, and the UI is told, so that it
 * closes once the run has stopped. Nothing here keeps the process alive, and the terminal is set
 * back if the command ends without opening the UI.
 */

interface Holding {
  stdin: NodeJS.ReadStream;
  chunks: Buffer[];
  interrupted: boolean;
  onReadable: () => void;
  restore: () => void;
}

let holding: Holding | null = null;

const CTRL_C = 0x03;

/** Start keeping keys (a terminal only; idempotent). */
export function holdKeys(stdin: NodeJS.ReadStream = process.stdin): void {
  if (holding !== null || stdin.isTTY !== true) return;
  const chunks: Buffer[] = [];
  // Read as Ink reads ('readable', then read()): the stream is left in the mode Ink expects, still
  // reading, when the listener is handed over.
  const onReadable = (): void => {
    let chunk: Buffer | null;
    while ((chunk = stdin.read() as Buffer | null) !== null) {
      const at = chunk.indexOf(CTRL_C);
      if (at < 0) {
        chunks.push(chunk);
        continue;
      }
      chunks.push(chunk.subarray(0, at));
      if (holding !== null) holding.interrupted = true;
      process.kill(process.pid, 'SIGINT');
    }
  };
  const restore = (): void => {
    stdin.off('readable', onReadable);
    stdin.setRawMode(false);
  };
  stdin.setRawMode(true);
  stdin.on('readable', onReadable);
  // Reading must not keep the process alive: a command that fails before its UI opens still exits.
  stdin.unref();
  process.once('exit', restore);
  holding = { stdin, chunks, interrupted: false, onReadable, restore };
}

/**
 * The UI takes the input over: what was typed goes back into `stdin` to be read first, and raw
 * mode stays on (the UI keeps it). Says whether Ctrl-C was typed meanwhile (the run is being
 * stopped). Nothing to do when keys were not held on this stream.
 */
export function handOverKeys(stdin: NodeJS.ReadStream): { interrupted: boolean } {
  if (holding === null || holding.stdin !== stdin) return { interrupted: false };
  const { chunks, interrupted, onReadable, restore } = holding;
  holding = null;
  process.off('exit', restore);
  stdin.off('readable', onReadable);
  const typed = Buffer.concat(chunks);
  if (typed.length > 0) stdin.unshift(typed);
  return { interrupted };
}
