import { describe, expect, it } from 'vitest';
import { isObjectMachineryKey, machineryKeyPath } from './object-keys.js';

describe('machineryKeyPath', () => {
  it('names the first machinery key at any depth, in arrays too', () => {
    expect(machineryKeyPath(JSON.parse('{"a":{"__proto__":1}}'))).toBe('a.__proto__');
    expect(machineryKeyPath({ a: [{ b: 1 }, { constructor: 2 }] })).toBe('a.1.constructor');
    expect(machineryKeyPath({ prototype: 1 })).toBe('prototype');
    expect(machineryKeyPath({ a: { toString: 1, valueOf: 2, hasOwnProperty: 3 } })).toBeNull();
    expect(machineryKeyPath('constructor')).toBeNull();
  });

  it('does not walk the values of the keys it is told to skip', () => {
    expect(machineryKeyPath({ body: { constructor: 1 }, a: 1 }, new Set(['body']))).toBeNull();
    expect(machineryKeyPath({ body: { constructor: 1 }, a: { prototype: 1 } }, new Set(['body']))).toBe('a.prototype');
    // A skipped key is still a key: `__proto__` cannot be one's name.
    expect(machineryKeyPath(JSON.parse('{"__proto__":{}}'), new Set(['__proto__']))).toBe('__proto__');
  });

  it('stops at a depth no record has, rather than overflow the stack', () => {
    let deep: unknown = { constructor: 1 };
    for (let i = 0; i < 20_000; i++) deep = { a: deep };
    expect(machineryKeyPath(deep)).toBeNull();
    let shallow: unknown = { constructor: 1 };
    for (let i = 0; i < 200; i++) shallow = { a: shallow };
    expect(machineryKeyPath(shallow)).toMatch(/\.constructor$/);
  });

  it('the three names, and no others', () => {
    expect(['__proto__', 'constructor', 'prototype'].every(isObjectMachineryKey)).toBe(true);
    expect(['toString', 'proto', '__proto', 'Constructor', ''].some(isObjectMachineryKey)).toBe(false);
  });
});
