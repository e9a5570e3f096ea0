import { describe, expect, it } from 'vitest';
import { formatTotals, parseCounters, sumCounters, violations, type FaultCounters } from './support/totals.js';

// The suite-wide check the global teardown runs over every fault file's counters.

function row(file: string, overrides: Partial<FaultCounters> = {}): FaultCounters {
  return {
    file,
    guards: 1,
    connectServices: 0,
    sensitiveFieldsBlocked: 0,
    sensitiveFieldsLetThrough: 0,
    completionsDelivered: 0,
    completionsDropped: 0,
    completionNoticesAdvancingUnknown: 0,
    originalOperationsAccepted: 0,
    maxAcceptancesPerLineage: 0,
    tokensBound: 0,
    crossSubjectBindings: 0,
    bindingsByOtherBrowser: 0,
    callbackReplayRefused: 0,
    ...overrides,
  };
}

const jsonl = (rows: FaultCounters[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

describe('suite-wide invariant totals', () => {
  it('sums counts and takes the largest acceptances-per-lineage', () => {
    const totals = sumCounters(
      parseCounters(
        jsonl([
          row('a', { originalOperationsAccepted: 2, maxAcceptancesPerLineage: 1 }),
          row('b', { originalOperationsAccepted: 3, maxAcceptancesPerLineage: 1, connectServices: 1, tokensBound: 2 }),
        ]),
      ),
    );
    expect(totals).toMatchObject({
      files: ['a', 'b'],
      guards: 2,
      originalOperationsAccepted: 5,
      maxAcceptancesPerLineage: 1,
      tokensBound: 2,
    });
    expect(violations(totals)).toEqual([]);
    expect(formatTotals(totals)).toContain('original operations accepted 5; most acceptances of one lineage 1');
  });

  it.each([
    ['sensitiveFieldsLetThrough', 1, /sensitive form field/],
    ['completionNoticesAdvancingUnknown', 1, /completion notice/],
    ['crossSubjectBindings', 1, /across subjects/],
    ['bindingsByOtherBrowser', 1, /from a browser that did not start the flow/],
    ['maxAcceptancesPerLineage', 2, /accepted 2 times/],
  ] as const)('reports a broken invariant when one file has %s = %i', (key, value, message) => {
    const broken = violations(sumCounters([row('good'), row('bad', { [key]: value })]));
    expect(broken).toHaveLength(1);
    expect(broken[0]).toMatch(message);
  });

  it('refuses a malformed counters line instead of skipping it', () => {
    expect(() => parseCounters('{"file":"x","guards":"one"}\n')).toThrow(/guards is not a count/);
    expect(() => parseCounters('not json\n')).toThrow();
  });

  it('has nothing to sum when no fault file ran', () => {
    const totals = sumCounters(parseCounters(''));
    expect(totals.files).toEqual([]);
    expect(violations(totals)).toEqual([]);
  });
});
