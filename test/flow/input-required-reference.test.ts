/**
 * `InputRequiredBook` against the reference kept in test/flow/reference/ (the book before its tables
 * became `Bounded` and its expiry order a linked list): random sequences of legs and answers as a
 * hostile server and a careless host send them (ids reused, states reused or forged, answers on
 * ids never sent, errors, cancelled legs), with a clock that jumps forward past the time to live
 * and back, and few chains allowed (evictions). Every ruling, every chain, every leg must match.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputRequiredBook } from '../../src/flow/input-required.js';
import { InputRequiredBook as Reference } from './reference/input-required.js';

type Op =
  | {
      readonly op: 'request';
      readonly id: number;
      readonly retry: boolean;
      readonly state?: string;
      readonly method: string;
      readonly digest: string;
    }
  | {
      readonly op: 'answer';
      readonly id: number;
      readonly inputRequired: boolean;
      readonly state?: string;
      readonly error: boolean;
      readonly method: string;
      readonly digest: string;
    }
  | { readonly op: 'clock'; readonly by: number }
  | { readonly op: 'host-cancelled'; readonly id: number };

const id = fc.integer({ min: 0, max: 6 });
const state = fc.constantFrom<string | undefined>(undefined, 's1', 's2', 's3');
const method = fc.constantFrom('tools/call', 'prompts/get');
const digest = fc.constantFrom('d1', 'd2');
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('request' as const), id, retry: fc.boolean(), state, method, digest }),
  fc.record({ op: fc.constant('answer' as const), id, inputRequired: fc.boolean(), state, error: fc.boolean(), method, digest }),
  fc.record({ op: fc.constant('clock' as const), by: fc.constantFrom(0, 1, 50, 200, -30, -300) }),
  fc.record({ op: fc.constant('host-cancelled' as const), id }),
);

/** What a ruling or chain says, without the parts the two books keep differently (links, the lineage, never-read sets). */
function shown(value: unknown): string {
  const hidden = new Set(['lineage', 'spentStates', 'flows', 'older', 'newer', 'listed']);
  return JSON.stringify(value, (key, v) => (hidden.has(key) ? undefined : v instanceof Map || v instanceof Set ? [...v] : v));
}

function outcome(run: () => unknown): string {
  try {
    return shown(run());
  } catch (error) {
    return `throws ${(error as Error).message}`;
  }
}

describe('InputRequiredBook against its reference', () => {
  it('forgets what the reference forgets when the clock went back between two chains and the older one moved on', () => {
    let now = 1_000;
    const options = (n = { count: 0 }) => ({ maxRounds: 3, maxChains: 8, ttlMs: 100, clock: () => now, newId: () => `c${++n.count}` });
    const book = new InputRequiredBook(options());
    const reference = new Reference(options());
    const both = (run: (b: InputRequiredBook | Reference) => unknown) => {
      expect(outcome(() => run(book))).toBe(outcome(() => run(reference)));
      expect(outcome(() => book.chains())).toBe(outcome(() => reference.chains()));
    };
    const round = { inputRequired: true, requestState: undefined, error: false };
    const original = (digest: string) => ({ method: 'tools/call', digestOf: () => digest });
    both((b) => b.onAnswer(1, round, original('a'))); // chain A, deadline 1100
    now = 700; // the clock goes back
    both((b) => b.onAnswer(2, round, original('b'))); // chain B, deadline 800, after A in the order
    now = 850;
    both((b) => b.onRequest(3, 'tools/call', true, undefined, () => 'a')); // a scan: A is live, B (expired) is behind it
    both((b) => b.onAnswer(3, round)); // A's next round: A moves behind B
    now = 900;
    both((b) => b.onRequest(4, 'tools/call', true, undefined, () => 'zzz')); // the scan now reaches B: forgotten
    expect(book.size).toBe(1);
  });

  it('forgets each chain once its time to live is over, the scan that forgot the first having found the second live', () => {
    let now = 1_000;
    const options = (n = { count: 0 }) => ({ maxRounds: 3, maxChains: 8, ttlMs: 100, clock: () => now, newId: () => `c${++n.count}` });
    const book = new InputRequiredBook(options());
    const reference = new Reference(options());
    const sizes: number[][] = [];
    for (const b of [book, reference]) {
      const seen: number[] = [];
      now = 1_000;
      b.onAnswer(1, { inputRequired: true, requestState: 's1', error: false }, { method: 'tools/call', digestOf: () => 'a' });
      now = 1_050;
      b.onAnswer(2, { inputRequired: true, requestState: 's2', error: false }, { method: 'tools/call', digestOf: () => 'b' });
      now = 1_120;
      b.onRequest(3, 'tools/call', true, 'forged', () => 'x'); // the first expired, the second live
      seen.push(b.size);
      now = 1_200;
      b.onRequest(4, 'tools/call', true, 'forged', () => 'x'); // the second's time to live is over too
      seen.push(b.size);
      sizes.push(seen);
    }
    expect(sizes).toEqual([
      [1, 0],
      [1, 0],
    ]);
  });

  it('rules, chains and legs as the reference does on any sequence, with clock jumps and evictions', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4 }), fc.array(op, { maxLength: 120 }), (maxChains, ops) => {
        let now = 1_000;
        const options = (n = { count: 0 }) => ({ maxRounds: 3, maxChains, ttlMs: 100, clock: () => now, newId: () => `c${++n.count}` });
        const book = new InputRequiredBook(options());
        const reference = new Reference(options());
        for (const step of ops) {
          if (step.op === 'clock') {
            now += step.by;
            continue;
          }
          const run = (b: InputRequiredBook | Reference) => () => {
            if (step.op === 'request')
              return b.onRequest(step.id, step.method, step.retry, step.retry ? step.state : undefined, () => step.digest);
            if (step.op === 'answer')
              return b.onAnswer(
                step.id,
                { inputRequired: step.inputRequired, requestState: step.state, error: step.error && !step.inputRequired },
                { method: step.method, digestOf: () => step.digest },
              );
            return b.onHostCancelled(step.id);
          };
          expect(outcome(run(book)), JSON.stringify(step)).toBe(outcome(run(reference)));
          expect(outcome(() => book.chains())).toBe(outcome(() => reference.chains()));
          expect([book.size, book.idle]).toEqual([reference.size, reference.idle]);
          for (let leg = 0; leg <= 6; leg++) expect(book.hasLeg(leg)).toBe(reference.hasLeg(leg));
        }
      }),
      { numRuns: 1500, seed: 17 },
    );
  });
});
