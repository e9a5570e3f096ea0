import { afterEach, describe, expect, it, vi } from 'vitest';
import type { GuardEvent } from '../../src/core/events.js';
import { createGuard } from '../../src/core/guard.js';
import { MemoryLedger } from '../../src/ledger/memory.js';
import { collectInvariants } from './support/invariants.js';
import { lineageHost, type LineageHost } from './support/lineage-server.js';
import { guardCode, rejection } from './support/sdk.js';

// Fault: while a tool call waits for its nested URL elicitation, the client sends the same call
// again (a timeout-and-retry loop, a user clicking twice). The server would run the operation twice.

const invariants = collectInvariants('nested-retry');
const hosts: LineageHost[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close();
});

describe('fault: a nested flow retried by the client', () => {
  it('refuses every retry while the original is in flight; the operation runs and is accepted once', async () => {
    const events: GuardEvent[] = [];
    const guard = invariants.guard(createGuard({ ledger: new MemoryLedger(), onEvent: (e) => events.push(e) }));
    const host = await lineageHost(guard);
    hosts.push(host);
    const original = host.connect();
    await vi.waitFor(() => expect(guard.flow('connect-1')?.state).toBe('OUT_OF_BAND_PENDING'));

    const retries = await Promise.all([1, 2, 3].map(() => rejection(host.connect())));
    expect(retries.map(guardCode)).toEqual(['E_RETRY_WHILE_IN_FLIGHT', 'E_RETRY_WHILE_IN_FLIGHT', 'E_RETRY_WHILE_IN_FLIGHT']);
    expect(guard.pendingFlows().map((f) => f.elicitationId)).toEqual(['connect-1']);

    host.finishOutOfBand();
    expect(await original).toBe('connected #1');
    expect(host.operations.connect).toBe(1);
    expect(events.filter((e) => e.type === 'receipt.business')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'retry.refused')).toHaveLength(3);

    // The same call after the original finished is a new operation with its own lineage.
    const again = host.connect();
    await vi.waitFor(() => expect(guard.flow('connect-2')?.state).toBe('OUT_OF_BAND_PENDING'));
    expect(guardCode(await rejection(host.connect()))).toBe('E_RETRY_WHILE_IN_FLIGHT');
    host.finishOutOfBand();
    expect(await again).toBe('connected #2');
    expect(host.operations.connect).toBe(2);
    expect(guard.metrics()).toMatchObject({
      originalOperationsAccepted: 2,
      maxAcceptancesPerLineage: 1,
      completionNoticesAdvancingUnknown: 0,
    });
    invariants.expectGuard(guard);
  });

  it('lets a different call through while the original waits', async () => {
    const guard = invariants.guard(createGuard());
    const host = await lineageHost(guard);
    hosts.push(host);
    const original = host.connect({ account: 'octocat' });
    await vi.waitFor(() => expect(guard.flow('connect-1')?.state).toBe('OUT_OF_BAND_PENDING'));
    host.meetPayment();
    expect(await host.pay()).toBe('paid #1');
    host.finishOutOfBand();
    expect(await original).toBe('connected #1');
    expect(guard.metrics().maxAcceptancesPerLineage).toBe(1);
    invariants.expectGuard(guard);
  });
});
