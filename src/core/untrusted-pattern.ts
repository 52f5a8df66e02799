/**
 * Regular expressions that come from outside agentctl's own code — the user's `--redact` and the
 * config's `redact` (a tape's recorded config among them), a library caller's `redact`, the model's
 * `grep_files` pattern — compiled for an engine whose matching time is linear in the text, whatever
 * the pattern: RE2, through re2js (pure JavaScript). JavaScript's RegExp backtracks: `^(\w+\s?)*$`
 * against a line of thirty words and a `!` runs for longer than anyone waits, and while it runs the
 * event loop is blocked, so no timeout, no Ctrl-C and no other work can end it.
 *
 * The syntax is RE2's (https://github.com/google/re2/wiki/Syntax): what JavaScript has, less
 * backreferences and lookaround, with `\x{…}` for a code point instead of `\u…`, and inline flags
 * such as `(?i)`. Patterns agentctl builds itself stay native RegExps: from constants, or from text
 * escaped to a literal (the terminal UI's search, the workspace path taken out of error messages),
 * which has nothing to backtrack over.
 *
 * re2js is loaded on the first compile, not with this module: most commands never compile a
 * pattern of the user's, and would otherwise pay for loading it on every start.
 */
import { createRequire } from 'node:module';
import type * as Re2Module from 're2js';

/** A compiled untrusted pattern. Stateless: no `lastIndex`, safe to share. */
export interface UntrustedPattern {
  /** The pattern as given. */
  readonly source: string;
  /** Whether it matches anywhere in `input`. */
  test(input: string): boolean;
  /** `[start, end)` (UTF-16 offsets) of each non-empty match in `input`, left to right, not overlapping. */
  spans(input: string): Array<[number, number]>;
}

let re2: typeof Re2Module | undefined;
const engine = (): typeof Re2Module => (re2 ??= createRequire(import.meta.url)('re2js') as typeof Re2Module);

/**
 * Compile `source` (RE2 syntax). Throws a SyntaxError whose message is RE2's description of what is
 * wrong (`invalid or unsupported Perl syntax: \`(?=\``), for the caller to prefix with what the
 * pattern was for.
 */
export function compileUntrustedPattern(source: string, options: { ignoreCase?: boolean } = {}): UntrustedPattern {
  const { RE2JS, RE2JSException } = engine();
  let re: Re2Module.RE2JS;
  try {
    re = RE2JS.compile(source, options.ignoreCase === true ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (error) {
    if (error instanceof RE2JSException) throw new SyntaxError(error.message.replace(/^error parsing regexp: /, ''));
    throw error;
  }
  return {
    source,
    test: (input) => re.test(input),
    spans: (input) => {
      const out: Array<[number, number]> = [];
      const matcher = re.matcher(input);
      while (matcher.find()) {
        const start = matcher.start();
        const end = matcher.end();
        if (end > start) out.push([start, end]);
      }
      return out;
    },
  };
}

/** Why `source` does not compile as an untrusted pattern; undefined when it does. */
export function untrustedPatternError(source: string): string | undefined {
  try {
    compileUntrustedPattern(source);
    return undefined;
  } catch (error) {
    if (error instanceof SyntaxError) return error.message;
    throw error;
  }
}
