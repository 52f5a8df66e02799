/**
 * Commander's parse errors in agentctl's own voice: one `agentctl: …` line, a `hint: …` line, exit 2
 * (README, "Exit codes") — never commander's `error: …` form, and never the root help with exit 0
 * for a command that does not exist.
 */
import type { Command, CommanderError } from 'commander';
import { UsageError } from '../core/errors.js';

/**
 * Make `command` report its parse errors as UsageErrors (printed by main.ts), naming where its usage
 * is. Help and version are not errors: they pass through as they are, already printed.
 */
export function usageErrorsOf(command: Command, usage: string): void {
  command.exitOverride((error: CommanderError) => {
    if (error.exitCode === 0 || error.code === 'commander.help') throw error;
    throw usageError(error, usage);
  });
}

/**
 * `error: unknown option '--jsn'\n(Did you mean --json?)` → `unknown option '--jsn'`, hint
 * `did you mean --json?`; without a suggestion the hint says where the usage is.
 */
export function usageError(error: CommanderError, usage: string): UsageError {
  const [first = '', ...rest] = error.message.split('\n');
  const suggestion = /^\(Did you mean (.+)\?\)$/.exec(rest.join(' ').trim());
  const hint = suggestion !== null
    ? `did you mean ${suggestion[1]}?`
    : error.code === 'commander.unknownCommand' ? `${usage} --help lists the commands` : `run ${usage} --help for usage`;
  return new UsageError(first.replace(/^error: /, ''), { hint });
}

/**
 * The arguments to parse: as given, unless their command word (or the word after `help`) names no
 * command. Then only that word, so that commander reports it as the unknown command it is whatever
 * follows it — given `agentctl launch --help` it would show the root help and exit 0.
 */
export function commandLine(program: Command, args: readonly string[]): string[] {
  const at = commandWordAt(program, args);
  const word = at === undefined ? undefined : args[at] === 'help' ? args[at + 1] : args[at];
  if (word === undefined || word.startsWith('-')) return [...args];
  const known = word === 'help' || program.commands.some((command) => command.name() === word || command.aliases().includes(word));
  return known ? [...args] : [word];
}

/** Where the first argument is that is neither one of the program's own options nor an option's value. */
function commandWordAt(program: Command, args: readonly string[]): number | undefined {
  const takesValue = new Set(program.options.filter((option) => option.required).flatMap((option) => [option.long, option.short]));
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') return i + 1 < args.length ? i + 1 : undefined;
    if (takesValue.has(arg)) i++;
    else if (!arg.startsWith('-')) return i;
  }
  return undefined;
}
