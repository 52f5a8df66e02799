/**
 * The quick check generator's checks of single values (scripts/quick-check-writer.ts has the
 * containers): a zod string, number, boolean, null, literal, enum or unknown as a boolean
 * expression over the variable `x`, mirroring exactly what zod accepts, or why the schema must
 * decide. Also the small helpers of the generated code's text.
 */

/** What the generator reads of a zod schema's internals (zod 4: `schema._zod`). */
export interface ZodNode {
  _zod: {
    def: { type: string; checks?: ZodNode[]; coerce?: boolean; [field: string]: unknown };
    traits: ReadonlySet<string>;
    values?: ReadonlySet<unknown>;
    optin?: string;
    optout?: string;
    propValues?: Record<string, ReadonlySet<unknown>>;
  };
}

/**
 * A check of a value held in the variable `x`: a boolean expression (`'true'`: anything passes) and,
 * for an object, array, record or union, the function it calls; or why the schema must decide.
 */
export type Check = { expr: string; fn?: string } | { leftToSchema: string };

export const ANY: Check = { expr: 'true' };
export const left = (reason: string): Check => ({ leftToSchema: reason });

/** Declares a constant of the generated module (a pattern, a set of values) and gives its name. */
export type DeclareConstant = (base: string, value: string, type?: string) => string;

/** The checks zod runs on a node: its own first when it is a format schema (`z.int()`, `z.email()`), then its def's. */
export function checksOf(node: ZodNode): readonly ZodNode[] {
  const checks = node._zod.def.checks ?? [];
  return node._zod.traits.has('$ZodCheck') ? [node, ...checks] : checks;
}

/** The check of a single value, or undefined when `node` is not one (an object, array, record, union…). */
export function scalarCheck(node: ZodNode, constant: DeclareConstant, hint: string): Check | undefined {
  const checks = checksOf(node);
  switch (node._zod.def.type) {
    case 'string':
      return stringCheck(checks, constant);
    case 'number':
      return numberCheck(checks);
    case 'unknown':
    case 'any':
      return checks.length === 0 ? ANY : left('a check on any value');
    case 'boolean':
      return checks.length === 0 ? { expr: "typeof x === 'boolean'" } : left('a check on a boolean');
    case 'null':
      return checks.length === 0 ? { expr: 'x === null' } : left('a check on null');
    case 'literal':
    case 'enum':
      return checks.length === 0 ? oneOf([...(node._zod.values ?? [])], constant, hint) : left('a check on an enum');
    default:
      return undefined;
  }
}

function stringCheck(checks: readonly ZodNode[], constant: DeclareConstant): Check {
  let expr = "typeof x === 'string'";
  for (const { _zod: { def } } of checks) {
    const pattern = def.pattern;
    if (def.check !== 'string_format' || def.format !== 'regex' || !(pattern instanceof RegExp) || def.when !== undefined) {
      return left(`a string check (${String(def.check)} ${String(def.format ?? '')}) this does not mirror`);
    }
    // A global or sticky pattern keeps state between tests: zod resets it, a plain test would not.
    if (/[gy]/.test(pattern.flags)) return left('a global or sticky pattern');
    expr += ` && ${constant('PATTERN', `/${pattern.source}/${pattern.flags}`)}.test(x)`;
  }
  return { expr };
}

/** A number check: zod's number is finite; `.int()` a safe integer; `.min`/`.max`/`.positive`… bounds. */
function numberCheck(checks: readonly ZodNode[]): Check {
  let expr = 'Number.isFinite(x)';
  for (const { _zod: { def } } of checks) {
    if (def.when !== undefined) return left('a conditional number check');
    if (def.check === 'number_format' && def.format === 'safeint') expr = expr.replace('Number.isFinite(x)', 'Number.isSafeInteger(x)');
    else if ((def.check === 'greater_than' || def.check === 'less_than') && typeof def.value === 'number' && Number.isFinite(def.value)) {
      const op = def.check === 'greater_than' ? (def.inclusive === true ? '>=' : '>') : def.inclusive === true ? '<=' : '<';
      expr += ` && (x as number) ${op} ${def.value}`;
    } else return left(`a number check (${String(def.check)} ${String(def.format ?? '')}) this does not mirror`);
  }
  return { expr };
}

/** A value in a fixed set (zod compares on a Set: SameValueZero). Sets of more than three share one constant per set. */
function oneOf(values: readonly unknown[], constant: DeclareConstant, hint: string): Check {
  const literals = values.map(primitive);
  if (literals.length === 0 || literals.some((l) => l === undefined)) return left('a value set that `===` cannot test as zod does');
  if (literals.length <= 3) return { expr: literals.map((l) => `x === ${l}`).join(' || ') };
  const name = constant(`${hint.replace(/[^A-Za-z0-9]+/g, '_').toUpperCase()}_VALUES`, `new Set<unknown>([${literals.join(', ')}])`, 'ReadonlySet<unknown>');
  return { expr: `${name}.has(x)` };
}

/** A single-quoted JavaScript string literal. */
export function quote(text: string): string {
  return `'${text.replace(/[\\'\u0000-\u001f\u2028\u2029]/g, (c) => (c === '\\' || c === "'" ? `\\${c}` : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`))}'`;
}

/** A primitive as a literal, or undefined when `===` would not compare it as zod does (SameValueZero, on a Set). */
export function primitive(value: unknown): string | undefined {
  if (typeof value === 'string') return quote(value);
  if (typeof value === 'boolean' || value === null) return String(value);
  if (typeof value === 'number' && Number.isFinite(value) && !Object.is(value, -0)) return String(value);
  return undefined;
}

/** `!expr`, parenthesised unless it is one call. */
export const not = (expr: string): string => (/^[\w.]+\([\w.]*\)$/.test(expr) ? `!${expr}` : `!(${expr})`);

/** The expression as an operand of `||`: parenthesised when it holds `&&` or `||` itself. */
export const group = (expr: string): string => (/&&|\|\|/.test(expr) ? `(${expr})` : expr);
