import { describe, expect, it } from 'vitest';
import { createNavigation } from '../../src/flow/records.js';
import type { FlowState, FlowTrigger } from '../../src/flow/states.js';
import { MemoryLedger } from '../../src/ledger/memory.js';
import { duration, flowTable, percentile, reconciliation } from '../../src/ui/model.js';
import { navigationInput, testDeps } from '../flow/support.js';

const OPENED: [FlowState, FlowTrigger][] = [
  ['USER_REVIEW', 'presented'],
  ['NAVIGATION_ACCEPTED', 'user-accepted'],
  ['OUT_OF_BAND_PENDING', 'navigation-opened'],
];

async function world() {
  const deps = testDeps(3);
  const ledger = new MemoryLedger();
  const make = async (server: string, steps: [FlowState, FlowTrigger, number][], ttlMs = 600_000) => {
    deps.advance(1_000);
    const { record } = createNavigation(navigationInput({ server: { key: null, name: server, version: '1' }, ttlMs }), deps);
    await ledger.putNavigation(record);
    let state: FlowState = 'CREATED';
    let at = record.createdAt;
    for (const [to, trigger, after] of steps) {
      at += after;
      await ledger.updateFlowState(record.id, state, to, trigger, at);
      state = to;
    }
    return record;
  };
  const opened = OPENED.map(([s, t]) => [s, t, 0] as [FlowState, FlowTrigger, number]);
  const flows = {
    byNotice: await make('a', [
      ...opened,
      ['COMPLETION_NOTIFIED', 'completion-notice', 30_000],
      ['REQUIREMENT_VERIFIED', 'notice-verified', 0],
    ]),
    byHand: await make('a', [...opened, ['REQUIREMENT_VERIFIED', 'user-confirmed', 90_000]]),
    lostThenConfirmed: await make('b', [
      ...opened,
      ['EXPIRED', 'ttl-expired', 600_000],
      ['USER_RETRY', 'manual-recovery', 5_000],
      ['REQUIREMENT_VERIFIED', 'user-confirmed', 5_000],
    ]),
    expired: await make('b', [...opened, ['EXPIRED', 'ttl-expired', 600_000]]),
    declined: await make('a', [
      ['USER_REVIEW', 'presented', 0],
      ['DECLINED', 'user-declined', 1_000],
    ]),
    overdue: await make('c', opened, 60_000),
    pending: await make('c', opened),
  };
  return { ledger, flows, now: deps.clock() + 120_000 };
}

describe('the flows table', () => {
  it('puts expired and overdue flows first, then those waiting, then other live ones, then ended ones, newest first in each', async () => {
    const { ledger, flows, now } = await world();
    const table = await flowTable(ledger, { state: null, server: null, age: null }, now);
    // REQUIREMENT_VERIFIED is not an end in the table (a lineage may go on), DECLINED is.
    expect(table.rows.map((r) => r.stored.record.id)).toEqual([
      flows.overdue.id,
      flows.expired.id,
      flows.pending.id,
      flows.lostThenConfirmed.id,
      flows.byHand.id,
      flows.byNotice.id,
      flows.declined.id,
    ]);
    expect(table.rows.map((r) => r.overdue)).toEqual([true, false, false, false, false, false, false]);
    expect(table.servers).toEqual(['a', 'b', 'c']);
    expect(table.truncated).toBe(false);
    expect(table.rows[0]!.subjectDigest).toMatch(/^[0-9a-f]{12}$/);
  });

  it('filters by state (in the ledger), server and age, and says when the window cut the list', async () => {
    const { ledger, flows, now } = await world();
    expect((await flowTable(ledger, { state: 'EXPIRED', server: null, age: null }, now)).rows.map((r) => r.stored.record.id)).toEqual([
      flows.expired.id,
    ]);
    expect((await flowTable(ledger, { state: null, server: 'c', age: null }, now)).rows).toHaveLength(2);
    const hourAfterDeclined = flows.declined.createdAt + 3_600_000;
    expect(
      (await flowTable(ledger, { state: null, server: null, age: '1h' }, hourAfterDeclined)).rows.map((r) => r.stored.record.id).sort(),
    ).toEqual([flows.declined.id, flows.overdue.id, flows.pending.id].sort());
    const cut = await flowTable(ledger, { state: null, server: null, age: null }, now, 3);
    expect(cut.truncated).toBe(true);
    expect(cut.rows).toHaveLength(3);
  });
});

describe('reconciliation', () => {
  it('counts states, how requirements were met, and the notices that never came', async () => {
    const { ledger, now } = await world();
    const rec = await reconciliation(ledger, now);
    expect(rec.total).toBe(7);
    expect(Object.fromEntries(rec.byState)).toEqual({ REQUIREMENT_VERIFIED: 3, EXPIRED: 1, DECLINED: 1, OUT_OF_BAND_PENDING: 2 });
    expect(rec.verifiedBy).toEqual({ notice: 1, hand: 2, serverAnswer: 0 });
    // Opened → verified: 30 s, 90 s, 610 s.
    expect(rec.timeToVerification).toEqual({ count: 3, p50: 90_000, p99: 610_000 });
    // Expired twice (one recovered and confirmed) and one pending past its expiry.
    expect(rec.noticesLost).toBe(3);
    expect(rec.lostThenConfirmed).toBe(1);
    expect(rec.lostStillWaiting).toBe(2);
  });
});

describe('figures', () => {
  it('nearest-rank percentiles', () => {
    expect(percentile([], 0.5)).toBeNull();
    expect(percentile([7], 0.99)).toBe(7);
    const hundred = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(hundred, 0.5)).toBe(50);
    expect(percentile(hundred, 0.99)).toBe(99);
    expect(percentile([1, 2], 0.5)).toBe(1);
  });

  it('durations a person reads at a glance', () => {
    expect(duration(250)).toBe('250 ms');
    expect(duration(59_999)).toBe('59 s');
    expect(duration(252_000)).toBe('4 min 12 s');
    expect(duration(7_500_000)).toBe('2 h 5 min');
    expect(duration(3 * 86_400_000 + 4 * 3_600_000)).toBe('3 d 4 h');
  });
});
