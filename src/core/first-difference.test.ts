import { describe, expect, it } from 'vitest';
import { firstDifference } from './first-difference.js';

describe('firstDifference', () => {
  it('a key one side lacks is absent there, even when Object has a member of that name', () => {
    expect(firstDifference({ constructor: 'Ada' }, {})).toEqual({ path: 'constructor', recorded: 'Ada', replayed: undefined });
    expect(firstDifference({}, { toString: 'x' })).toEqual({ path: 'toString', recorded: undefined, replayed: 'x' });
    expect(firstDifference(JSON.parse('{"a":{"__proto__":{"b":1}}}'), JSON.parse('{"a":{"__proto__":{"b":2}}}'))).toEqual({ path: 'a.__proto__.b', recorded: 1, replayed: 2 });
    expect(firstDifference({ constructor: 'Ada' }, { constructor: 'Ada' })).toBeNull();
  });
});
