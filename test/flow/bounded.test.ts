/**
 * `Bounded` against a plain model (an array in insertion order): random sequences of puts, deletes,
 * takes and clears, with the same entries, order and evictions after every step; and a flood far
 * past the limit, which forgets the oldest first and keeps the newest.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Bounded } from '../../src/flow/book.js';

type Op =
  | { readonly op: 'put'; readonly key: number; readonly value: number }
  | { readonly op: 'delete' | 'take'; readonly key: number }
  | { readonly op: 'clear' };

const key = fc.integer({ min: 0, max: 12 });
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ op: fc.constant('put' as const), key, value: fc.integer({ min: 1, max: 99 }) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('delete' as const), key }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('take' as const), key }) },
  { weight: 1, arbitrary: fc.constant({ op: 'clear' as const }) },
);

describe('Bounded', () => {
  it('keeps the entries, order and evictions of an insertion-ordered model on any sequence', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 5 }), fc.array(op, { maxLength: 200 }), (limit, ops) => {
        const table = new Bounded<number, number>(limit);
        let model: [number, number][] = [];
        for (const step of ops) {
          const evicted: number[] = [];
          const expectedEvicted: number[] = [];
          if (step.op === 'put') {
            table.put(step.key, step.value, (v) => evicted.push(v));
            const at = model.findIndex(([k]) => k === step.key);
            if (at >= 0) model[at] = [step.key, step.value];
            else model.push([step.key, step.value]);
            while (model.length > limit) expectedEvicted.push(model.shift()![1]);
          } else if (step.op === 'delete') {
            expect(table.delete(step.key)).toBe(model.some(([k]) => k === step.key));
            model = model.filter(([k]) => k !== step.key);
          } else if (step.op === 'take') {
            expect(table.take(step.key)).toBe(model.find(([k]) => k === step.key)?.[1]);
            model = model.filter(([k]) => k !== step.key);
          } else {
            table.clear();
            model = [];
          }
          expect(evicted).toEqual(expectedEvicted);
          expect([...table]).toEqual(model);
          expect(table.size).toBe(model.length);
        }
      }),
      { numRuns: 300, seed: 7 },
    );
  });

  it('forgets the oldest first under a flood far past its limit, with answered entries among them', () => {
    const table = new Bounded<number, number>(64);
    const model: number[] = [];
    let evictions = 0;
    for (let i = 0; i < 100_000; i++) {
      table.put(i, i, () => evictions++);
      model.push(i);
      if (model.length > 64) model.shift();
      if (i % 3 === 0) {
        table.delete(i - 10);
        const at = model.indexOf(i - 10);
        if (at >= 0) model.splice(at, 1);
      }
    }
    expect(evictions).toBeGreaterThan(60_000);
    expect([...table].map(([k]) => k)).toEqual(model);
  });

  it('holds no memory for a flood that is over: steady traffic after it leaves the heap where it was', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const table = new Bounded<number, number>(4096);
    let id = 0;
    for (let i = 0; i < 5000; i++) table.put(id++, i); // a flood: the table evicts
    for (let i = 0; i < 4000; i++) table.delete(id - 5000 + i); // then answers make room
    gc();
    const before = process.memoryUsage().heapUsed;
    // Plain traffic, one request answered at a time: the map is rehashed about every 2,000 pairs.
    for (let i = 0; i < 1_000_000; i++) {
      table.put(id, i);
      table.delete(id);
      id++;
    }
    gc();
    // An eviction iterator kept idle through this held every rehashed table: about 55 MB here.
    expect((process.memoryUsage().heapUsed - before) / 1e6).toBeLessThan(10);
    expect(table.size).toBe(1000);
  });
});
