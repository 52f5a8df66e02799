/**
 * A reader of the sandbox profile language's syntax (s-expressions, as TinyScheme reads them), for
 * tests of generated profiles: lists, symbols, string literals with `\` escapes, `#"…"` regex
 * literals and `;` comments. It throws on anything unbalanced or unterminated, so a profile that
 * reads back is one whose strings did not swallow or open any structure.
 */

export type Sexp = { string: string } | { regex: string } | { symbol: string } | Sexp[];

/** Every top-level form of `text`. */
export function readSbpl(text: string): Sexp[] {
  let at = 0;
  const forms: Sexp[] = [];

  const skipSpace = (): void => {
    for (;;) {
      while (at < text.length && /\s/.test(text[at] ?? '')) at++;
      if (text[at] !== ';') return;
      while (at < text.length && text[at] !== '\n') at++;
    }
  };

  const readString = (): string => {
    let value = '';
    at++; // the opening quote
    for (;;) {
      const c = text[at++];
      if (c === undefined) throw new Error('unterminated string');
      if (c === '"') return value;
      if (c === '\n') throw new Error('a newline inside a string');
      if (c === '\\') {
        const escaped = text[at++];
        if (escaped === undefined) throw new Error('unterminated string');
        value += escaped === 'n' ? '\n' : escaped;
      } else value += c;
    }
  };

  const readForm = (): Sexp => {
    skipSpace();
    const c = text[at];
    if (c === undefined) throw new Error('unexpected end of profile');
    if (c === '(') {
      at++;
      const list: Sexp[] = [];
      for (;;) {
        skipSpace();
        if (text[at] === undefined) throw new Error('unclosed (');
        if (text[at] === ')') {
          at++;
          return list;
        }
        list.push(readForm());
      }
    }
    if (c === ')') throw new Error(`unexpected ) at ${at}`);
    if (c === '"') return { string: readString() };
    if (c === '#' && text[at + 1] === '"') {
      at++;
      return { regex: readString() };
    }
    const start = at;
    while (at < text.length && !/[\s()";]/.test(text[at] ?? '')) at++;
    return { symbol: text.slice(start, at) };
  };

  for (skipSpace(); at < text.length; skipSpace()) forms.push(readForm());
  return forms;
}

/** The symbol of a form (`allow` for `(allow …)`), or undefined. */
export function head(form: Sexp): string | undefined {
  return Array.isArray(form) && form[0] !== undefined && 'symbol' in form[0] ? form[0].symbol : undefined;
}

/** Every string literal anywhere in `form`. */
export function stringsIn(form: Sexp): string[] {
  if (Array.isArray(form)) return form.flatMap(stringsIn);
  return 'string' in form ? [form.string] : [];
}
