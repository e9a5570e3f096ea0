import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBusinessReceipt, createConsentReceipt, createNavigation, type BusinessReceipt } from '../../src/flow/records.js';
import { SqliteLedger, type SqliteLedgerOptions } from '../../src/ledger/sqlite.js';
import { GuardError } from '../../src/protocol/errors.js';
import { businessInput, digestOf, navigationInput, testDeps, type TestDeps } from '../flow/support.js';
import { tempDir } from './support.js';

function codeOf(reason: unknown): string {
  return GuardError.is(reason) ? reason.code : `not a GuardError: ${String(reason)}`;
}

/** Reads the file through a connection of its own, as another process would. */
function storedIds(file: string): string[] {
  const raw = new Database(file, { readonly: true });
  try {
    return raw
      .prepare<[], { id: string }>('SELECT id FROM business_receipts ORDER BY id')
      .all()
      .map((row) => row.id);
  } finally {
    raw.close();
  }
}

describe('SqliteLedger group commit', () => {
  let tmp: ReturnType<typeof tempDir>;
  let file: string;
  let deps: TestDeps;
  const open: SqliteLedger[] = [];
  const openLedger = async (options?: SqliteLedgerOptions) => {
    const ledger = await SqliteLedger.open(file, options);
    open.push(ledger);
    return ledger;
  };
  const receiptFor = (lineage: string, requestId: number): BusinessReceipt =>
    createBusinessReceipt(
      businessInput({ lineage: { session: 'session-1', kind: 'nested', originalRequestDigest: digestOf(lineage) }, requestId }),
      deps,
    );

  beforeEach(() => {
    tmp = tempDir();
    file = join(tmp.dir, 'ledger.sqlite');
    deps = testDeps(31);
  });
  afterEach(async () => {
    for (const ledger of open.splice(0)) await ledger.close();
    tmp.remove();
  });

  it('decides receipts for one lineage in one transaction in call order: the first accepted, the others answered with it', async () => {
    const ledger = await openLedger();
    const [a1, b1, a2, b2, a3] = [receiptFor('a', 1), receiptFor('b', 1), receiptFor('a', 2), receiptFor('b', 2), receiptFor('a', 3)];
    const outcomes = await Promise.all([a1, b1, a2, b2, a3].map((r) => ledger.acceptBusinessReceipt(r!)));
    expect(outcomes).toEqual([
      { accepted: true },
      { accepted: true },
      { accepted: false, existing: a1 },
      { accepted: false, existing: b1 },
      { accepted: false, existing: a1 },
    ]);
    expect(ledger.writeStats()).toEqual({ commits: 1, writes: 5, failures: 0, largestGroup: 5 });
    expect(storedIds(file)).toEqual([a1!.id, b1!.id].sort());
  });

  it('resolves a caller only after its receipt is committed: a new connection opened in the resolution callback finds it', async () => {
    const ledger = await openLedger();
    const receipts = [receiptFor('x', 1), receiptFor('y', 1), receiptFor('z', 1)];
    const foundAtResolution = await Promise.all(
      receipts.map((r) => ledger.acceptBusinessReceipt(r).then(() => storedIds(file).includes(r.id))),
    );
    expect(foundAtResolution).toEqual([true, true, true]);
  });

  it('keeps nothing of a group whose transaction fails, and rejects every caller in it with E_LEDGER_UNAVAILABLE', async () => {
    const ledger = await openLedger({ busyTimeoutMs: 0 });
    // Another connection holds the write lock, so the group cannot even begin.
    const holder = new Database(file);
    holder.exec('BEGIN IMMEDIATE');
    const receipts = [receiptFor('p', 1), receiptFor('q', 1), receiptFor('p', 2)];
    let failed: PromiseSettledResult<unknown>[];
    try {
      failed = await Promise.allSettled(
        receipts.map((r) =>
          ledger.acceptBusinessReceipt(r).catch((error: unknown) => {
            // At the moment of rejection the file holds none of the group.
            expect(storedIds(file)).toEqual([]);
            throw error;
          }),
        ),
      );
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    expect(failed.map((r) => (r.status === 'rejected' ? codeOf(r.reason) : 'fulfilled'))).toEqual([
      'E_LEDGER_UNAVAILABLE',
      'E_LEDGER_UNAVAILABLE',
      'E_LEDGER_UNAVAILABLE',
    ]);
    expect(ledger.writeStats()).toMatchObject({ commits: 0, failures: 1 });
    // The same calls succeed once the lock is free: the failed group left no trace.
    expect(await Promise.all(receipts.map((r) => ledger.acceptBusinessReceipt(r)))).toEqual([
      { accepted: true },
      { accepted: true },
      { accepted: false, existing: receipts[0] },
    ]);
  });

  it('fails a write that fails on its own alone: the rest of its group is stored', async () => {
    const ledger = await openLedger();
    const first = receiptFor('m', 1);
    await ledger.acceptBusinessReceipt(first);
    const reusedId = { ...receiptFor('n', 1), id: first.id };
    const fresh = [receiptFor('o', 1), receiptFor('r', 1)];
    const batchFresh = receiptFor('s', 1);
    const results = await Promise.allSettled([
      ledger.acceptBusinessReceipt(fresh[0]!),
      ledger.acceptBusinessReceipt(reusedId),
      // All or nothing inside the group too: the batch's fresh receipt goes with its failed one.
      ledger.acceptBusinessReceipts([batchFresh, reusedId]),
      ledger.acceptBusinessReceipt(fresh[1]!),
    ]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : codeOf(r.reason)))).toEqual([
      { accepted: true },
      'E_DUPLICATE_RECORD',
      'E_DUPLICATE_RECORD',
      { accepted: true },
    ]);
    expect(ledger.writeStats()).toMatchObject({ commits: 2, failures: 0 });
    expect(storedIds(file)).toEqual([first.id, fresh[0]!.id, fresh[1]!.id].sort());
  });

  it('writes navigation, flow move, consent and business receipt made without awaiting in call order, in one transaction', async () => {
    const ledger = await openLedger();
    const record = createNavigation(navigationInput(), deps).record;
    const consent = createConsentReceipt(
      { navigationId: record.id, shown: { display: null, findings: [], message: 'm' }, decision: 'accept' },
      deps,
    );
    const [, moved, , accepted, conflict] = await Promise.all([
      ledger.putNavigation(record),
      ledger.updateFlowState(record.id, 'CREATED', 'USER_REVIEW', 'presented', deps.advance(1)),
      ledger.putConsentReceipt(consent),
      ledger.acceptBusinessReceipt(receiptFor('flow', 1)),
      ledger.updateFlowState(record.id, 'CREATED', 'USER_REVIEW', 'presented', deps.advance(1)),
    ]);
    expect(moved.updated).toBe(true);
    expect(accepted).toEqual({ accepted: true });
    expect(conflict).toMatchObject({ updated: false, reason: 'state-conflict', current: { state: 'USER_REVIEW' } });
    expect(ledger.writeStats()).toEqual({ commits: 1, writes: 5, failures: 0, largestGroup: 5 });
    expect(await ledger.listConsentReceipts(record.id)).toEqual([consent]);
  });

  it('commits a lone caller on its own: each awaited call is one transaction', async () => {
    const ledger = await openLedger();
    for (let i = 0; i < 4; i++) expect(await ledger.acceptBusinessReceipt(receiptFor(`lone ${i}`, i))).toEqual({ accepted: true });
    expect(ledger.writeStats()).toEqual({ commits: 4, writes: 4, failures: 0, largestGroup: 1 });
  });

  it('writes a burst in transactions of at most maxGroupSize', async () => {
    const ledger = await openLedger({ maxGroupSize: 10 });
    const receipts = Array.from({ length: 25 }, (_, i) => receiptFor(`burst ${i}`, i));
    const outcomes = await Promise.all(receipts.map((r) => ledger.acceptBusinessReceipt(r)));
    expect(outcomes.every((o) => o.accepted)).toBe(true);
    expect(ledger.writeStats()).toEqual({ commits: 3, writes: 25, failures: 0, largestGroup: 10 });
    expect(storedIds(file)).toHaveLength(25);
  });

  it('refuses a maxGroupSize that is not a positive integer', async () => {
    for (const maxGroupSize of [0, -1, 1.5, Number.NaN]) {
      const error = await SqliteLedger.open(file, { maxGroupSize }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(codeOf(error), String(maxGroupSize)).toBe('E_RECORD_INVALID');
    }
  });

  it('writes what is still queued before it closes, and answers those callers', async () => {
    const ledger = await SqliteLedger.open(file);
    const receipts = [receiptFor('c1', 1), receiptFor('c2', 1), receiptFor('c1', 2)];
    const calls = receipts.map((r) => ledger.acceptBusinessReceipt(r));
    await ledger.close();
    expect(await Promise.all(calls)).toEqual([{ accepted: true }, { accepted: true }, { accepted: false, existing: receipts[0] }]);
    expect(storedIds(file)).toEqual([receipts[0]!.id, receipts[1]!.id].sort());
    expect(codeOf(await ledger.acceptBusinessReceipt(receiptFor('c3', 1)).catch((e: unknown) => e))).toBe('E_LEDGER_UNAVAILABLE');
  });
});
