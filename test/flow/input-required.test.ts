import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputRequiredBook } from '../../src/flow/input-required.js';

function book(maxRounds = 3, ttlMs = 60_000) {
  let now = 1_000;
  let n = 0;
  const b = new InputRequiredBook({ maxRounds, maxChains: 8, ttlMs, clock: () => now, newId: () => `chain-${++n}` });
  return { b, advance: (ms: number) => (now += ms) };
}
const digest = () => 'd1';
const round = (state: string | undefined) => ({ inputRequired: true, requestState: state, error: false });
const complete = { inputRequired: false, requestState: undefined, error: false };
/** The request an original leg stands for (the book records no leg for it: it comes with the answer). */
const O = { method: 'tools/call', digestOf: digest };
const O2 = { method: 'tools/call', digestOf: () => 'd2' };

describe('the input-required chain', () => {
  it('opens a chain only when the server asks for input, and follows it by requestState to one accepted answer', () => {
    const { b } = book();
    expect(b.onRequest(0, 'tools/call', false, undefined, digest)).toEqual({ kind: 'original' });
    expect(b.idle).toBe(true);
    const r1 = b.onAnswer(0, round('s1'), O);
    expect(r1).toMatchObject({ kind: 'round', fresh: true, chain: { round: 1, requestState: 's1', digest: 'd1' } });
    expect(b.onRequest(1, 'tools/call', true, 's1', digest)).toMatchObject({ kind: 'retry' });
    expect(b.onAnswer(1, round('s2'), O)).toMatchObject({ kind: 'round', fresh: false, chain: { round: 2 } });
    expect(b.onRequest(2, 'tools/call', true, 's2', digest)).toMatchObject({ kind: 'retry' });
    expect(b.onAnswer(2, complete, O)).toMatchObject({ kind: 'complete' });
    // The completed round sent again never reaches the server.
    expect(b.onRequest(3, 'tools/call', true, 's2', digest)).toMatchObject({ kind: 'refused', code: 'E_ALREADY_ACCEPTED' });
  });

  it('refuses a retry while the previous leg is in flight, and a re-sent older round', () => {
    const { b } = book();
    b.onRequest(0, 'tools/call', false, undefined, digest);
    b.onAnswer(0, round('s1'), O);
    expect(b.onRequest(1, 'tools/call', true, 's1', digest).kind).toBe('retry');
    expect(b.onRequest(2, 'tools/call', true, 's1', digest)).toMatchObject({ kind: 'refused', code: 'E_RETRY_WHILE_IN_FLIGHT' });
    b.onAnswer(1, round('s2'), O);
    expect(b.onRequest(3, 'tools/call', true, 's1', digest)).toMatchObject({ kind: 'refused', code: 'E_RETRY_NOT_ELIGIBLE' });
    expect(b.onRequest(4, 'tools/call', true, 's2', digest).kind).toBe('retry');
  });

  it('keeps two identical calls apart when the server gives both the same state', () => {
    const { b } = book();
    b.onRequest(0, 'tools/call', false, undefined, digest);
    b.onRequest(1, 'tools/call', false, undefined, digest);
    b.onAnswer(0, round('static'), O);
    b.onAnswer(1, round('static'), O);
    expect(b.onRequest(2, 'tools/call', true, 'static', digest).kind).toBe('retry');
    expect(b.onRequest(3, 'tools/call', true, 'static', digest).kind).toBe('retry');
    // A third retry with that state has no chain left waiting for it.
    expect(b.onRequest(4, 'tools/call', true, 'static', digest)).toMatchObject({ kind: 'refused', code: 'E_RETRY_WHILE_IN_FLIGHT' });
    expect(b.onAnswer(2, complete, O).kind).toBe('complete');
    expect(b.onAnswer(3, complete, O).kind).toBe('complete');
    expect(b.size).toBe(2);
  });

  it('bounds the rounds: the retry after maxRounds rounds is refused with E_RETRY_EXHAUSTED', () => {
    const { b } = book(2);
    b.onRequest(0, 'tools/call', false, undefined, digest);
    b.onAnswer(0, round('s1'), O);
    expect(b.onRequest(1, 'tools/call', true, 's1', digest).kind).toBe('retry');
    b.onAnswer(1, round('s2'), O);
    expect(b.onRequest(2, 'tools/call', true, 's2', digest).kind).toBe('retry');
    b.onAnswer(2, round('s3'), O);
    expect(b.onRequest(3, 'tools/call', true, 's3', digest)).toMatchObject({ kind: 'refused', code: 'E_RETRY_EXHAUSTED' });
  });

  it('chains rounds without requestState by the original digest', () => {
    const { b } = book();
    b.onRequest(0, 'tools/call', false, undefined, digest);
    b.onAnswer(0, round(undefined), O);
    expect(b.onRequest(1, 'tools/call', true, undefined, digest).kind).toBe('retry');
    expect(b.onRequest(2, 'tools/call', true, undefined, () => 'other')).toEqual({ kind: 'unknown' });
    expect(b.onAnswer(1, complete, O).kind).toBe('complete');
  });

  it('treats a state it never issued (or of another method) as unknown, and forgets chains past their time to live', () => {
    const { b, advance } = book(3, 1_000);
    expect(b.onRequest(0, 'tools/call', true, 'forged', digest)).toEqual({ kind: 'unknown' });
    b.onRequest(1, 'tools/call', false, undefined, digest);
    b.onAnswer(1, round('s1'), O);
    expect(b.onRequest(2, 'prompts/get', true, 's1', digest)).toEqual({ kind: 'unknown' });
    advance(1_001);
    expect(b.onRequest(3, 'tools/call', true, 's1', digest)).toEqual({ kind: 'unknown' });
    expect(b.size).toBe(0);
  });

  it('ends the chain on an error answer and after a cancelled round', () => {
    const { b } = book();
    b.onRequest(0, 'tools/call', false, undefined, digest);
    const first = b.onAnswer(0, round('s1'), O);
    if (first.kind !== 'round') throw new Error('expected a round');
    b.cancel(first.chain);
    expect(b.onRequest(1, 'tools/call', true, 's1', digest).kind).toBe('retry');
    expect(b.onAnswer(1, round('s2'), O)).toMatchObject({ kind: 'ended' });
    expect(b.onRequest(2, 'tools/call', true, 's2', digest)).toMatchObject({ kind: 'refused', code: 'E_RETRY_NOT_ELIGIBLE' });

    b.onRequest(3, 'tools/call', false, undefined, () => 'd2');
    b.onAnswer(3, round('t1'), O2);
    b.onRequest(4, 'tools/call', true, 't1', () => 'd2');
    expect(b.onAnswer(4, { inputRequired: false, requestState: undefined, error: true }, O).kind).toBe('ended');
    expect(b.onRequest(5, 'tools/call', true, 't1', () => 'd2')).toMatchObject({ kind: 'refused', code: 'E_RETRY_NOT_ELIGIBLE' });
  });

  it('accepts at most one final answer per chain under any order of legs and answers (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.integer({ min: 0, max: 5 }),
            fc.constantFrom('req', 'retry', 'round', 'complete', 'error'),
            fc.constantFrom('s1', 's2', 's3', undefined),
          ),
          { maxLength: 60 },
        ),
        (steps) => {
          const { b } = book(3);
          const completes = new Map<string, number>();
          for (const [id, step, state] of steps) {
            if (step === 'req') b.onRequest(id, 'tools/call', false, undefined, digest);
            else if (step === 'retry') b.onRequest(id, 'tools/call', true, state, digest);
            else {
              const ruling = b.onAnswer(id, { inputRequired: step === 'round', requestState: state, error: step === 'error' }, O);
              if (ruling.kind === 'complete') completes.set(ruling.chain.id, (completes.get(ruling.chain.id) ?? 0) + 1);
              if (ruling.kind === 'round') expect(ruling.chain.round).toBeGreaterThan(0);
            }
          }
          for (const count of completes.values()) expect(count).toBe(1);
          expect(b.size).toBeLessThanOrEqual(8);
        },
      ),
    );
  });
});
