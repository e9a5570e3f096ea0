import { describe, expect, it } from 'vitest';
import { AcceptanceTally, emptyMetrics, lineageKeyString, noticeAdvancedUnknown } from '../../src/core/metrics.js';

describe('invariant counters', () => {
  it('start at zero', () => {
    expect(emptyMetrics()).toMatchObject({
      completionNoticesAdvancingUnknown: 0,
      originalOperationsAccepted: 0,
      maxAcceptancesPerLineage: 0,
    });
  });

  it('count a notice that moved something although its id was not pending', () => {
    expect(noticeAdvancedUnknown(false, true, false)).toBe(true);
    expect(noticeAdvancedUnknown(false, false, true)).toBe(true);
    expect(noticeAdvancedUnknown(false, false, false)).toBe(false);
    expect(noticeAdvancedUnknown(true, true, true)).toBe(false);
  });

  it('tally acceptances per lineage key and keep the largest', () => {
    const tally = new AcceptanceTally(2);
    const a = lineageKeyString({ kind: 'nested', session: 's/1/number:3', originalRequestDigest: 'd1' });
    const b = lineageKeyString({ kind: 'error-retry', session: 's/1/number:3', originalRequestDigest: 'd1' });
    expect(a).not.toBe(b);
    expect(tally.record(a)).toBe(1);
    expect(tally.record(b)).toBe(1);
    expect(tally.max).toBe(1);
    expect(tally.record(a)).toBe(2);
    expect(tally.max).toBe(2);
  });

  it('stay bounded, and remember the largest count of a forgotten key', () => {
    const tally = new AcceptanceTally(2);
    tally.record('x');
    tally.record('x');
    for (const key of ['y', 'z', 'w']) tally.record(key);
    expect(tally.size).toBe(2);
    expect(tally.max).toBe(2);
    expect(() => new AcceptanceTally(0)).toThrow(RangeError);
  });
});
