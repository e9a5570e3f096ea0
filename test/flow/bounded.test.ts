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

  it('answers as a Map with eviction does on any sequence, its sole entry included: reads, odd keys, changes while iterating', () => {
    /** The table as a plain Map that evicts its first entry (what Bounded must behave as). */
    class Reference {
      readonly map = new Map<unknown, number>();
      constructor(readonly limit: number) {}
      put(k: unknown, v: number, onEvict: (v: number) => void): void {
        this.map.set(k, v);
        while (this.map.size > this.limit) {
          const [oldKey, oldValue] = this.map.entries().next().value as [unknown, number];
          this.map.delete(oldKey);
          onEvict(oldValue);
        }
      }
      take(k: unknown): number | undefined {
        const v = this.map.get(k);
        if (v !== undefined) this.map.delete(k);
        return v;
      }
    }
    // 1 and '1' are different keys, NaN is itself, -0 is 0 (as for a Map).
    const oddKey = fc.constantFrom<unknown>(0, -0, 1, '1', 2, Number.NaN, 'a');
    type Step =
      | { readonly op: 'put'; readonly key: unknown; readonly value: number }
      | { readonly op: 'get' | 'has' | 'delete' | 'take'; readonly key: unknown }
      | { readonly op: 'clear' }
      // Iterate, and at the `at`-th entry delete it, or put `key`, or both (what a caller may do while iterating).
      | { readonly op: 'iterate'; readonly at: number; readonly change: 'delete' | 'put' | 'both'; readonly key: unknown };
    const step: fc.Arbitrary<Step> = fc.oneof(
      { weight: 6, arbitrary: fc.record({ op: fc.constant('put' as const), key: oddKey, value: fc.integer({ min: 1, max: 99 }) }) },
      { weight: 2, arbitrary: fc.record({ op: fc.constantFrom('get' as const, 'has' as const), key: oddKey }) },
      { weight: 3, arbitrary: fc.record({ op: fc.constantFrom('delete' as const, 'take' as const), key: oddKey }) },
      { weight: 1, arbitrary: fc.constant({ op: 'clear' as const }) },
      {
        weight: 2,
        arbitrary: fc.record({
          op: fc.constant('iterate' as const),
          at: fc.integer({ min: 0, max: 3 }),
          change: fc.constantFrom('delete' as const, 'put' as const, 'both' as const),
          key: oddKey,
        }),
      },
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4 }), fc.array(step, { maxLength: 120 }), fc.boolean(), (limit, steps, byValues) => {
        const table = new Bounded<unknown, number>(limit);
        const reference = new Reference(limit);
        for (const s of steps) {
          const evicted: number[] = [];
          const expected: number[] = [];
          if (s.op === 'put') {
            table.put(s.key, s.value, (v) => evicted.push(v));
            reference.put(s.key, s.value, (v) => expected.push(v));
          } else if (s.op === 'get') expect(table.get(s.key)).toBe(reference.map.get(s.key));
          else if (s.op === 'has') expect(table.has(s.key)).toBe(reference.map.has(s.key));
          else if (s.op === 'delete') expect(table.delete(s.key)).toBe(reference.map.delete(s.key));
          else if (s.op === 'take') expect(table.take(s.key)).toBe(reference.take(s.key));
          else if (s.op === 'clear') {
            table.clear();
            reference.map.clear();
          } else if (s.op === 'iterate') {
            const walk = (entries: Iterable<[unknown, number]>, put: (k: unknown) => void, del: (k: unknown) => void) => {
              const seen: [unknown, number][] = [];
              let n = 0;
              for (const entry of entries) {
                seen.push(entry);
                if (n++ !== s.at) continue;
                if (s.change !== 'put') del(entry[0]);
                if (s.change !== 'delete') put(s.key);
              }
              return seen;
            };
            if (byValues) {
              // values() yields lazily: compare what it yields while the same changes are made.
              const got: number[] = [];
              let n = 0;
              for (const v of table.values()) {
                got.push(v);
                if (n++ !== s.at) continue;
                if (s.change !== 'delete') table.put(s.key, 100, (x) => evicted.push(x));
              }
              const want: number[] = [];
              n = 0;
              for (const v of reference.map.values()) {
                want.push(v);
                if (n++ !== s.at) continue;
                if (s.change !== 'delete') reference.put(s.key, 100, (x) => expected.push(x));
              }
              expect(got).toEqual(want);
            } else {
              const got = walk(
                table,
                (k) => table.put(k, 100, (x) => evicted.push(x)),
                (k) => table.delete(k),
              );
              const want = walk(
                reference.map,
                (k) => reference.put(k, 100, (x) => expected.push(x)),
                (k) => reference.map.delete(k),
              );
              expect(got).toEqual(want);
            }
          }
          expect(evicted).toEqual(expected);
          expect([...table]).toEqual([...reference.map]);
          expect(table.size).toBe(reference.map.size);
        }
      }),
      { numRuns: 400, seed: 11 },
    );
  });

  it('finds its sole entry by the keys a Map takes for the same, and only by those', () => {
    const keys: unknown[] = [0, -0, 1, '1', Number.NaN, 'NaN', '', null, undefined];
    for (const put of keys) {
      for (const asked of keys) {
        const table = new Bounded<unknown, string>(4);
        const reference = new Map<unknown, string>();
        table.put(put, 'v');
        reference.set(put, 'v');
        expect([table.get(asked), table.has(asked)]).toEqual([reference.get(asked), reference.has(asked)]);
        table.put(asked, 'w');
        reference.set(asked, 'w');
        expect([...table]).toEqual([...reference]);
        expect(table.take(put)).toBe(reference.get(put));
        reference.delete(put);
        expect(table.delete(asked)).toBe(reference.delete(asked));
        expect([...table]).toEqual([...reference]);
      }
    }
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
