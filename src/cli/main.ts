/**
 * The CLI entry: builds the commander program and maps every failure to an exit code in one place.
 * AgentctlError → its message (and hint) on one line, its exit code; commander's parse errors are
 * UsageErrors by then (usage-errors.ts), exit 2. Anything else is a bug: the stack is printed and
 * the exit code is 1.
 */
import { CommanderError } from 'commander';
import { isAgentctlError } from '../core/errors.js';
import { printable, printableLine } from '../core/terminal-text.js';
import { flushOut } from './io.js';
import { buildProgram } from './program.js';
import { commandLine, usageError } from './usage-errors.js';

export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(commandLine(program, argv.slice(2)), { from: 'user' });
  } catch (error) {
    // What the command printed comes before its error, as it would unbuffered.
    flushOut();
    process.exitCode = exitCodeFor(error);
  }
}

function exitCodeFor(thrown: unknown): number {
  let error = thrown;
  if (error instanceof CommanderError) {
    // Help and version are "errors" only because of exitOverride(); commander already printed them
    // (the help for `agentctl` alone as well, which commander counts as an error: it is asked for).
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') {
      return 0;
    }
    // Every command's parse errors are UsageErrors already; one that is not is said the same way.
    error = usageError(error, 'agentctl');
  }
  // A message can quote a tape, a model's answer or a file: one line each, no control character raw.
  if (isAgentctlError(error)) {
    process.stderr.write(`agentctl: ${printableLine(error.message)}\n`);
    if (error.hint !== undefined) process.stderr.write(`hint: ${printableLine(error.hint)}\n`);
    return error.exitCode;
  }
  process.stderr.write(`agentctl: internal error\n${printable(error instanceof Error ? (error.stack ?? error.message) : String(error))}\n`);
  return 1;
}
