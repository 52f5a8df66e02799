import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { packedMap } from './packed-map.js';

describe('packedMap', () => {
  it('property: gives what Array.prototype.map gives, items and indexes', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue()), (list) => {
        const f = (item: unknown, i: number): unknown => [i, item];
        expect(packedMap(list, f)).toEqual(list.map(f));
      }),
    );
  });

  it('returns arrays of one shape, without holes, before and after V8 optimises it (where map does not)', () => {
    // V8's own answers, asked through its natives syntax in a child process: the function, called
    // before and after the optimising compiler has compiled it, must return arrays of one map
    // without holes. The same check of a function that calls Array.prototype.map shows the reason.
    const script = `
      const packedMap = ${packedMap.toString()};
      const mapped = (list, f) => list.map(f);
      const f = (x) => ({ x });
      const out = {};
      for (const [name, fn] of [['packedMap', packedMap], ['map', mapped]]) {
        %PrepareFunctionForOptimization(fn);
        const before = fn([1, 2, 3], f);
        fn([1, 2, 3], f);
        %OptimizeFunctionOnNextCall(fn);
        const after = fn([1, 2, 3], f);
        out[name] = { holey: %HasHoleyElements(after), sameMap: %HaveSameMap(before, after), optimized: (%GetOptimizationStatus(fn) & 16) !== 0 };
      }
      console.log(JSON.stringify(out));`;
    const child = spawnSync(process.execPath, ['--allow-natives-syntax', '-e', script], { encoding: 'utf8' });
    expect(child.stderr).toBe('');
    const result = JSON.parse(child.stdout) as Record<'packedMap' | 'map', { holey: boolean; sameMap: boolean; optimized: boolean }>;
    expect(result.packedMap).toEqual({ holey: false, sameMap: true, optimized: true });
  });
});
