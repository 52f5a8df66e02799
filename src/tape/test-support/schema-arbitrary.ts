/**
 * fast-check generators of values a zod schema accepts, made from the schema itself: every event
 * type and every optional field, including one added tomorrow, without a hand-kept copy of the
 * shapes. For the property tests of the quick check (whose checks are generated from the same
 * schemas by another route: scripts/generate-quick-check.ts). Covers the constructs the tape
 * schemas use; a refinement is met by filtering with the schema.
 */
import fc from 'fast-check';
import type { z } from 'zod';

/** What this reads of a zod schema's internals (zod 4: `schema._zod`). */
interface ZodNode {
  _zod: { def: { type: string; checks?: ZodNode[]; [field: string]: unknown }; values?: ReadonlySet<unknown> };
}

const json = fc.jsonValue({ maxDepth: 2 });

/** Values `schema` accepts, as JSON would give them back (a tape line's). */
export function arbitraryOf(schema: z.core.$ZodType): fc.Arbitrary<unknown> {
  return arbitrary(schema as unknown as ZodNode).map((value) => JSON.parse(JSON.stringify(value)) as unknown);
}

function arbitrary(node: ZodNode): fc.Arbitrary<unknown> {
  const def = node._zod.def;
  const checks = (def.checks ?? []).map((c) => c._zod.def);
  const refined = checks.some((c) => c.check === 'custom');
  const plain = plainArbitrary(node, checks);
  if (!refined) return plain;
  const accepts = (value: unknown): boolean => (node as unknown as z.ZodType).safeParse(value).success;
  return plain.filter(accepts);
}

function plainArbitrary(node: ZodNode, checks: readonly ZodNode['_zod']['def'][]): fc.Arbitrary<unknown> {
  const def = node._zod.def;
  switch (def.type) {
    case 'unknown':
    case 'any':
      return json;
    case 'string': {
      const pattern = checks.find((c) => c.check === 'string_format' && c.pattern instanceof RegExp)?.pattern as RegExp | undefined;
      if (pattern !== undefined) return fc.stringMatching(pattern);
      const min = checks.find((c) => c.check === 'min_length')?.minimum as number | undefined;
      const max = checks.find((c) => c.check === 'max_length')?.maximum as number | undefined;
      return fc.string({ minLength: min ?? 0, maxLength: Math.min(max ?? 12, Math.max(min ?? 0, 12)) });
    }
    case 'number': {
      const bound = (check: string): { value: number; excluded: boolean } | undefined => {
        const found = checks.find((c) => c.check === check);
        return found === undefined ? undefined : { value: found.value as number, excluded: found.inclusive !== true };
      };
      const min = bound('greater_than');
      const max = bound('less_than');
      if (checks.some((c) => c.check === 'number_format')) {
        return fc.integer({
          min: min === undefined ? Number.MIN_SAFE_INTEGER : Math.ceil(min.value) + (min.excluded && Number.isInteger(min.value) ? 1 : 0),
          max: max === undefined ? Number.MAX_SAFE_INTEGER : Math.floor(max.value) - (max.excluded && Number.isInteger(max.value) ? 1 : 0),
        });
      }
      return fc.double({
        noNaN: true,
        noDefaultInfinity: true,
        ...(min === undefined ? {} : { min: min.value, minExcluded: min.excluded }),
        ...(max === undefined ? {} : { max: max.value, maxExcluded: max.excluded }),
      });
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'literal':
    case 'enum':
      return fc.constantFrom(...(node._zod.values ?? []));
    case 'nullable':
      return fc.option(arbitrary(def.innerType as ZodNode), { nil: null });
    case 'array':
      return fc.array(arbitrary(def.element as ZodNode), { maxLength: 3 });
    case 'record': {
      const keys = arbitrary(def.keyType as ZodNode) as fc.Arbitrary<string>;
      const dictionary = fc.dictionary(keys, arbitrary(def.valueType as ZodNode), { maxKeys: 3 });
      // A refined record may be a tool's JSON Schema, which must say `"type": "object"` (core/tool-spec-schema.ts):
      // with it tried too, the schema's filter finds values.
      return checks.some((c) => c.check === 'custom') ? fc.oneof(dictionary, dictionary.map((d) => ({ ...d, type: 'object' }))) : dictionary;
    }
    case 'object': {
      const shape = def.shape as Record<string, ZodNode>;
      const fields: Record<string, fc.Arbitrary<unknown>> = {};
      const required: string[] = [];
      for (const [key, field] of Object.entries(shape)) {
        const optional = field._zod.def.type === 'optional';
        fields[key] = arbitrary(optional ? (field._zod.def.innerType as ZodNode) : field);
        if (!optional) required.push(key);
      }
      return fc.record(fields, { requiredKeys: required });
    }
    case 'union':
      return fc.oneof(...(def.options as ZodNode[]).map(arbitrary));
    default:
      throw new Error(`arbitraryOf: no generator for a zod ${def.type}`);
  }
}
