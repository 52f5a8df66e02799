/**
 * parseToolCall keys each call object once: whatever the arguments text, and however often (and
 * after whatever change to the call) it is asked, it answers what parseCallArguments computes afresh.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ToolCall } from '../core/messages.js';
import { parseCallArguments, parseToolCall } from './call-key.js';

const argumentsText = fc.oneof(
  fc.json({ maxDepth: 3 }),
  fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 })).map((o) => JSON.stringify(o)),
  fc.constantFrom('', '   ', '{', 'null', '[1]', '"x"', '{"a":1}', '{"a": 1}'),
);
const name = fc.constantFrom('read_file', 'write_file', 'shell');

describe('parseToolCall key cache', () => {
  it('gives the same result as parsing afresh, on repeated calls and after the call changes', () => {
    fc.assert(
      fc.property(name, argumentsText, name, argumentsText, (tool1, raw1, tool2, raw2) => {
        const call: ToolCall = { id: 'c', type: 'function', function: { name: tool1, arguments: raw1 } };
        expect(parseToolCall(call)).toEqual(parseCallArguments(tool1, raw1));
        const again = parseToolCall(call);
        expect(again).toEqual(parseCallArguments(tool1, raw1));
        // Each caller gets its own arguments object.
        const third = parseToolCall(call);
        if (again.ok && third.ok) expect(third.args).not.toBe(again.args);
        call.function.name = tool2;
        call.function.arguments = raw2;
        expect(parseToolCall(call)).toEqual(parseCallArguments(tool2, raw2));
      }),
      { numRuns: 1000 },
    );
  });
});
