/**
 * Writes src/tape/quick-event-check.generated.ts: the quick check of tape events and headers,
 * generated from the zod schemas (src/core/event-schema.ts, src/core/run-meta-schema.ts,
 * src/tape/meta-schema.ts), so it never needs its own copy of a shape. Run it after changing a
 * schema (`npm run quick-check:generate`); src/tape/quick-event-check.test.ts fails while the
 * checked-in module differs from what this makes of the schemas.
 *
 * The generated checks say "valid" only of a value the schema accepts as it is and parses to an
 * equal value, and they load no zod (a plain tape's replay never does). Each zod construct is
 * mirrored exactly as zod parses it (a strict object, a string with a pattern, a safe integer with
 * bounds, a nullable, an enum, an array, a record, a discriminated union); anything else — a
 * refinement, a transform, a default, a check this does not know — is left to the schema: a value
 * with that field is never vouched for, and an event type whose required part is such is not
 * covered at all. The module's header lists what is left so.
 *
 * The code is plain functions, one per object, array, record and union, with each field's check
 * written out inline: no closure or allocation per value, and one call site per check for the JIT.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { z } from 'zod';
import { runEventSchema } from '../src/core/event-schema.js';
import { runMetaSchema } from '../src/core/run-meta-schema.js';
import { tapeHeaderSchema } from '../src/tape/meta-schema.js';

export const GENERATED_FILE = fileURLToPath(new URL('../src/tape/quick-event-check.generated.ts', import.meta.url));

/** What this reads of a zod schema's internals (zod 4: `schema._zod`). */
interface ZodNode {
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
type Check = { expr: string; fn?: string } | { leftToSchema: string };

const ANY: Check = { expr: 'true' };
const left = (reason: string): Check => ({ leftToSchema: reason });

/** A single-quoted JavaScript string literal. */
function quote(text: string): string {
  return `'${text.replace(/[\\'\u0000-\u001f\u2028\u2029]/g, (c) => (c === '\\' || c === "'" ? `\\${c}` : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`))}'`;
}

/** A primitive as a literal, or undefined when `===` would not compare it as zod does (SameValueZero, on a Set). */
function primitive(value: unknown): string | undefined {
  if (typeof value === 'string') return quote(value);
  if (typeof value === 'boolean' || value === null) return String(value);
  if (typeof value === 'number' && Number.isFinite(value) && !Object.is(value, -0)) return String(value);
  return undefined;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** `v.key` or `v['key']`. */
const member = (object: string, key: string): string => (IDENTIFIER.test(key) ? `${object}.${key}` : `${object}[${quote(key)}]`);
/** A name for a function, from where it is first met: `runEvent`, `llm_request`, `append` → `RunEventLlmRequestAppend`. */
const pascal = (parts: readonly string[]): string =>
  parts
    .flatMap((part) => part.split(/[^A-Za-z0-9]+/))
    .filter((word) => word !== '')
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('');

class QuickCheckWriter {
  private readonly roots: string[] = [];
  /** Each function's and constant's name and declaration, in the order they were made. */
  private readonly functions = new Map<string, string>();
  private readonly constants = new Map<string, string>();
  /** The function (or constant) made for each schema object, or why there is none; shared schemas are checked by one function. */
  private readonly made = new Map<ZodNode, Check>();
  private readonly valueSets = new Map<string, string>();
  private readonly names = new Set<string>();
  /** What is left to the schema, one line each: where, and why. */
  readonly leftToSchema: string[] = [];

  /** An exported function `name(value: unknown): boolean`, true only of what `schema` accepts as it is. */
  exported(name: string, doc: string, schema: z.core.$ZodType, root: string): void {
    const check = this.check(schema as unknown as ZodNode, [root]);
    if ('expr' in check && check.fn === undefined) throw new Error(`${name}: the schema's root must be an object or a union of objects`);
    const body = 'expr' in check ? `return ${check.fn}(value);` : `void value;\n  return false; // left to the schema: ${check.leftToSchema}`;
    this.roots.push(`${doc}\nexport function ${name}(value: unknown): boolean {\n  ${body}\n}`);
  }

  /** The event types a discriminated union's check vouches for (all but those left to the schema whole). */
  coveredOptions(schema: z.core.$ZodType): string[] {
    const node = schema as unknown as ZodNode;
    const discriminator = node._zod.def.discriminator as string;
    const options = node._zod.def.options as ZodNode[];
    return options.flatMap((option) => {
      const values = [...(option._zod.propValues?.[discriminator] ?? [])].map(String);
      return 'expr' in (this.made.get(option) ?? left('never checked')) ? values : [];
    });
  }

  module(covered?: readonly string[]): string {
    const used = this.reachable();
    const constants = [...this.constants].filter(([name]) => used.has(name)).map(([, text]) => text);
    const functions = [...this.functions].filter(([name]) => used.has(name)).map(([, text]) => text);
    const notes = this.leftToSchema.map((line) => ` *   ${line}`).join('\n');
    return [
      '// Generated by scripts/generate-quick-check.ts from the zod schemas (src/core/event-schema.ts,',
      '// src/core/run-meta-schema.ts, src/tape/meta-schema.ts): do not edit. After changing a schema, run',
      '// `npm run quick-check:generate`; src/tape/quick-event-check.test.ts fails until then.',
      '/**',
      ' * The quick check of tape events and headers: true only of a value the schema accepts as it is',
      ' * (and parses to an equal value), with no zod loaded; false leaves the value to the schema, which',
      ` * decides and words the error. ${notes === '' ? 'Nothing is left to the schema.' : 'Left to the schema (false whenever present):'}`,
      ...(notes === '' ? [] : [notes]),
      ' */',
      '',
      '/** A plain object, as JSON.parse makes them: `for...in` walks its own keys only. */',
      'function isRecord(v: unknown): v is Record<string, unknown> {',
      '  return typeof v === \'object\' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;',
      '}',
      '',
      '/**',
      ' * A plain object for a zod record: zod rebuilds a record key by key and drops an own `__proto__` key',
      ' * (JSON.parse makes one), so a record with one is left to the schema.',
      ' */',
      'function isJsonRecord(v: unknown): v is Record<string, unknown> {',
      '  return isRecord(v) && !Object.hasOwn(v, \'__proto__\');',
      '}',
      '',
      ...constants,
      ...(constants.length > 0 ? [''] : []),
      ...(covered === undefined
        ? []
        : [
          '/** The event types checkRunEvent can vouch for (some fields of some of them aside: see above). */',
          `export const QUICK_EVENT_TYPES = [${covered.map(quote).join(', ')}] as const;`,
          '',
        ]),
      [...this.roots, ...functions].join('\n\n'),
      '',
    ].join('\n');
  }

  /**
   * The functions and constants the exported functions use: an object left to the schema for one
   * field may have made functions for others before, which nothing then calls.
   */
  private reachable(): Set<string> {
    const text = new Map([...this.functions, ...this.constants]);
    const used = new Set<string>();
    const visit = (code: string): void => {
      for (const [name, declaration] of text) {
        if (!used.has(name) && new RegExp(`\\b${name}\\b`).test(code)) {
          used.add(name);
          visit(declaration.slice(declaration.indexOf(name) + name.length));
        }
      }
    };
    for (const root of this.roots) visit(root);
    return used;
  }

  /** The check of a value in `x` that `node` accepts as it is; `path` names where it is. */
  private check(node: ZodNode, path: readonly string[]): Check {
    const def = node._zod.def;
    if (def.coerce === true) return left('coerces its input');
    // A format schema (`z.int()`, `z.email()`) is its own first check, as zod runs it.
    const checks = node._zod.traits.has('$ZodCheck') ? [node, ...(def.checks ?? [])] : (def.checks ?? []);
    switch (def.type) {
      case 'unknown':
      case 'any':
        return checks.length === 0 ? ANY : left('a check on any value');
      case 'string':
        return this.string(checks);
      case 'number':
        return number(checks);
      case 'boolean':
        return checks.length === 0 ? { expr: "typeof x === 'boolean'" } : left('a check on a boolean');
      case 'null':
        return { expr: 'x === null' };
      case 'literal':
      case 'enum':
        return checks.length === 0 ? this.oneOf([...(node._zod.values ?? [])], path) : left('a check on an enum');
      case 'nullable': {
        const inner = this.check(def.innerType as ZodNode, path);
        return 'expr' in inner ? { expr: inner.expr === 'true' ? 'true' : `x === null || ${group(inner.expr)}` } : inner;
      }
    }
    if (checks.length > 0) return left(`a refinement (${checks.map((c) => c._zod.def.check).join(', ')}) only the schema can run`);
    const made = this.made.get(node);
    if (made !== undefined) return made;
    let check: Check;
    switch (def.type) {
      case 'object':
        check = this.object(node, path);
        break;
      case 'array':
        check = this.array(node, path);
        break;
      case 'record':
        check = this.record(node, path);
        break;
      case 'union':
        check = this.union(node, path);
        break;
      case 'optional':
        check = left('an optional value that is not an object field');
        break;
      default:
        check = left(`a zod ${def.type}`);
    }
    this.made.set(node, check);
    return check;
  }

  private string(checks: readonly ZodNode[]): Check {
    let expr = "typeof x === 'string'";
    for (const { _zod: { def } } of checks) {
      const pattern = def.pattern;
      if (def.check !== 'string_format' || def.format !== 'regex' || !(pattern instanceof RegExp) || def.when !== undefined) {
        return left(`a string check (${String(def.check)}) this does not mirror`);
      }
      // A global or sticky pattern keeps state between tests: zod resets it, a plain test would not.
      if (/[gy]/.test(pattern.flags)) return left('a global or sticky pattern');
      expr += ` && ${this.constant('PATTERN', `/${pattern.source}/${pattern.flags}`)}.test(x)`;
    }
    return { expr };
  }

  /** A value in a fixed set (zod compares on a Set: SameValueZero). */
  private oneOf(values: readonly unknown[], path: readonly string[]): Check {
    const literals = values.map(primitive);
    if (literals.length === 0 || literals.some((l) => l === undefined)) return left('a value set that `===` cannot test as zod does');
    if (literals.length <= 3) return { expr: literals.map((l) => `x === ${l}`).join(' || ') };
    const list = literals.join(', ');
    let name = this.valueSets.get(list);
    if (name === undefined) {
      name = this.constant(`${pascal([path.at(-1) ?? 'values']).toUpperCase()}_VALUES`, `new Set<unknown>([${list}])`, 'ReadonlySet<unknown>');
      this.valueSets.set(list, name);
    }
    return { expr: `${name}.has(x)` };
  }

  private object(node: ZodNode, path: readonly string[]): Check {
    const def = node._zod.def;
    if ((def.catchall as ZodNode | undefined)?._zod.def.type !== 'never') return left('an object that is not strict (unknown keys are not refused)');
    const shape = def.shape as Record<string, ZodNode>;
    if (Object.getOwnPropertySymbols(shape).length > 0) return left('an object with symbol keys');
    const cases: string[] = [];
    const notes: string[] = [];
    let required = 0;
    let usesValue = false;
    for (const [key, field] of Object.entries(shape)) {
      if (key === '__proto__') return left('an object with a __proto__ field');
      const optional = field._zod.optin !== undefined;
      if (optional && (field._zod.def.type !== 'optional' || field._zod.optin !== 'optional' || field._zod.optout !== 'optional')) {
        return left(`field ${key}: may be absent but is not a plain optional (a default?)`);
      }
      const check = this.check(optional ? (field._zod.def.innerType as ZodNode) : field, [...path, key]);
      const label = `case ${quote(key)}:`;
      if ('leftToSchema' in check) {
        if (!optional) return left(`field ${key}: ${check.leftToSchema}`);
        notes.push(`${[...path, key].join('.')}: ${check.leftToSchema}`);
        cases.push(`${label} return false; // left to the schema`);
        continue;
      }
      const test = check.expr === 'true' ? '' : ` if (${not(check.expr)}) return false;`;
      usesValue ||= test !== '';
      if (!optional) required++;
      cases.push(`${label}${test}${optional ? '' : ' present++;'} break;`);
    }
    this.leftToSchema.push(...notes);
    const name = this.name(path);
    const lines = [
      `function ${name}(v: unknown): boolean {`,
      '  if (!isRecord(v)) return false;',
      ...(required > 0 ? ['  let present = 0;'] : []),
      '  for (const key in v) {',
      ...(usesValue ? ['    const x = v[key];'] : []),
      '    switch (key) {',
      ...cases.map((c) => `      ${c}`),
      '      default: return false;',
      '    }',
      '  }',
      required > 0 ? `  return present === ${required};` : '  return true;',
      '}',
    ];
    return this.function(name, `/** ${path.join('.')} */\n${lines.join('\n')}`);
  }

  private array(node: ZodNode, path: readonly string[]): Check {
    const item = this.check(node._zod.def.element as ZodNode, [...path, 'item']);
    if ('leftToSchema' in item) return left(`its items: ${item.leftToSchema}`);
    if (item.expr === 'true') return { expr: 'Array.isArray(x)' };
    const name = this.name(path);
    return this.function(
      name,
      [
        `/** ${path.join('.')} */`,
        `function ${name}(v: unknown): boolean {`,
        '  if (!Array.isArray(v)) return false;',
        '  for (let i = 0; i < v.length; i++) {',
        '    const x: unknown = v[i];',
        `    if (${not(item.expr)}) return false;`,
        '  }',
        '  return true;',
        '}',
      ].join('\n'),
    );
  }

  private record(node: ZodNode, path: readonly string[]): Check {
    const def = node._zod.def;
    const keyType = def.keyType as ZodNode;
    if (def.mode !== undefined || keyType._zod.def.type !== 'string' || (keyType._zod.def.checks ?? []).length > 0 || keyType._zod.def.coerce === true) {
      return left('a record whose keys are not any string');
    }
    const value = this.check(def.valueType as ZodNode, [...path, 'value']);
    if ('leftToSchema' in value) return left(`its values: ${value.leftToSchema}`);
    if (value.expr === 'true') return { expr: 'isJsonRecord(x)' };
    const name = this.name(path);
    return this.function(
      name,
      [
        `/** ${path.join('.')} */`,
        `function ${name}(v: unknown): boolean {`,
        '  if (!isJsonRecord(v)) return false;',
        '  for (const key in v) {',
        '    const x = v[key];',
        `    if (${not(value.expr)}) return false;`,
        '  }',
        '  return true;',
        '}',
      ].join('\n'),
    );
  }

  /** A discriminated union: the option its discriminator names, as zod picks it (a plain union is left to the schema). */
  private union(node: ZodNode, path: readonly string[]): Check {
    const def = node._zod.def;
    const discriminator = def.discriminator;
    if (typeof discriminator !== 'string' || def.unionFallback === true) return left('a union without a discriminator');
    const cases: string[] = [];
    const notes: string[] = [];
    for (const option of def.options as ZodNode[]) {
      const values = [...(option._zod.propValues?.[discriminator] ?? [])];
      const literals = values.map(primitive);
      if (literals.length === 0 || literals.some((l) => l === undefined)) return left('a discriminator `===` cannot test as zod does');
      const where = [...path, ...values.map(String)];
      const check = this.check(option, where);
      const labels = literals.map((l) => `case ${l}:`).join(' ');
      if ('leftToSchema' in check) {
        notes.push(`${where.join('.')}: ${check.leftToSchema}`);
        cases.push(`${labels} return false; // left to the schema`);
      } else if (check.fn === undefined) {
        return left('a union option that is not an object');
      } else {
        cases.push(`${labels} return ${check.fn}(v);`);
      }
    }
    this.leftToSchema.push(...notes);
    const name = this.name(path);
    return this.function(
      name,
      [
        `/** ${path.join('.')}: by its ${discriminator} */`,
        `function ${name}(v: unknown): boolean {`,
        '  if (!isRecord(v)) return false;',
        `  switch (${member('v', discriminator)}) {`,
        ...cases.map((c) => `    ${c}`),
        '    default: return false;',
        '  }',
        '}',
      ].join('\n'),
    );
  }

  private function(name: string, text: string): Check {
    this.functions.set(name, text);
    return { expr: `${name}(x)`, fn: name };
  }

  private name(path: readonly string[]): string {
    const base = `is${pascal(path)}`;
    let name = base;
    for (let n = 2; this.names.has(name); n++) name = `${base}${n}`;
    this.names.add(name);
    return name;
  }

  private constant(base: string, value: string, type?: string): string {
    let name = base;
    for (let n = 2; this.names.has(name); n++) name = `${base}_${n}`;
    this.names.add(name);
    this.constants.set(name, `const ${name}${type === undefined ? '' : `: ${type}`} = ${value};`);
    return name;
  }
}

/** A number check: zod's number is finite; `.int()` a safe integer; `.min`/`.max`/`.nonnegative` bounds. */
function number(checks: readonly ZodNode[]): Check {
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

/** `!expr`, parenthesised unless it is one call. */
const not = (expr: string): string => (/^[\w.]+\([\w.]*\)$/.test(expr) ? `!${expr}` : `!(${expr})`);

/** The expression as an operand of `||`: parenthesised when it holds `&&` or `||` itself. */
const group = (expr: string): string => (/&&|\|\|/.test(expr) ? `(${expr})` : expr);

/** One exported check of a generated module: its name and doc comment, the schema, and the name its inner functions are made from. */
export interface QuickCheckRoot {
  name: string;
  doc: string;
  schema: z.core.$ZodType;
  path: string;
}

/**
 * A module of quick checks, one exported function per root (each an object or a discriminated union
 * of objects); with `events`, a discriminated union among the roots, also the list of its options
 * the check can vouch for (QUICK_EVENT_TYPES).
 */
export function quickCheckModule(roots: readonly QuickCheckRoot[], events?: z.core.$ZodType): string {
  const writer = new QuickCheckWriter();
  for (const root of roots) writer.exported(root.name, root.doc, root.schema, root.path);
  return writer.module(events === undefined ? undefined : writer.coveredOptions(events));
}

/** The text of src/tape/quick-event-check.generated.ts. */
export function quickCheckSource(): string {
  return quickCheckModule(
    [
      { name: 'checkRunEvent', doc: '/** True only of an event the event schema (runEventSchema) accepts as it is. */', schema: runEventSchema, path: 'event' },
      {
        name: 'checkTapeHeader',
        doc: "/** True only of a tape's line 1 that tapeHeaderSchema accepts as it is (its `run` is checked by checkRunMeta). */",
        schema: tapeHeaderSchema,
        path: 'header',
      },
      { name: 'checkRunMeta', doc: "/** True only of run metadata (a tape header's `run`) that runMetaSchema accepts as it is. */", schema: runMetaSchema, path: 'runMeta' },
    ],
    runEventSchema,
  );
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  writeFileSync(GENERATED_FILE, quickCheckSource());
  console.log(`wrote ${GENERATED_FILE}`);
}
