import { afterEach, describe, expect, it, vi } from 'vitest';
import type { GuardEvent } from '../../src/core/events.js';
import { createGuard } from '../../src/core/guard.js';
import { MemoryLedger } from '../../src/ledger/memory.js';
import { collectInvariants } from './support/invariants.js';
import { lineageHost, type LineageHost } from './support/lineage-server.js';
import { rejection } from './support/sdk.js';

// Fault: the server sends the completion notice for one elicitation twice (a retrying notifier, two
// replicas). The host hears it once; the flow advances once; nothing is accepted twice.

const invariants = collectInvariants('duplicate-completion');
const hosts: LineageHost[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close();
});

function dropped(events: GuardEvent[]): string[] {
  return events.flatMap((e) => (e.type === 'completion.dropped' ? [e.reason] : []));
}

describe('fault: a completion notice delivered twice', () => {
  it('nested: the host hears it once, the original is accepted once', async () => {
    const events: GuardEvent[] = [];
    const guard = invariants.guard(createGuard({ ledger: new MemoryLedger(), onEvent: (e) => events.push(e) }));
    const host = await lineageHost(guard, { notices: 2 });
    hosts.push(host);
    const original = host.connect();
    await vi.waitFor(() => expect(guard.flow('connect-1')?.state).toBe('OUT_OF_BAND_PENDING'));
    host.finishOutOfBand();
    expect(await original).toBe('connected #1');
    // And once more, long after: still nothing.
    await host.server.notification({ method: 'notifications/elicitation/complete', params: { elicitationId: 'connect-1' } });
    await vi.waitFor(() => expect(dropped(events)).toHaveLength(2));

    expect(host.notices).toEqual(['connect-1']);
    expect(dropped(events)).toEqual(['duplicate', 'duplicate']);
    expect(guard.flow('connect-1')?.state).toBe('ORIGINAL_RESPONSE_ACCEPTED');
    expect(events.filter((e) => e.type === 'flow.transition' && e.to === 'COMPLETION_NOTIFIED')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'receipt.business')).toHaveLength(1);
    expect(guard.metrics()).toMatchObject({
      completionsDelivered: 1,
      completionsDropped: 2,
      originalOperationsAccepted: 1,
      maxAcceptancesPerLineage: 1,
      completionNoticesAdvancingUnknown: 0,
    });
    invariants.expectGuard(guard);
  });

  it('error-retry: a burst of the same notice makes the requirement eligible once; one retry runs', async () => {
    const events: GuardEvent[] = [];
    const guard = invariants.guard(createGuard({ onEvent: (e) => events.push(e) }));
    const host = await lineageHost(guard);
    hosts.push(host);
    await rejection(host.pay());
    const ticket = await guard.recordConsent('pay-1', 'accept');
    await guard.openUrl(ticket!, () => {});
    host.meetPayment();
    await Promise.all(
      [1, 2, 3].map(() => host.server.notification({ method: 'notifications/elicitation/complete', params: { elicitationId: 'pay-1' } })),
    );
    await vi.waitFor(() => expect(dropped(events)).toHaveLength(2));
    expect(host.notices).toEqual(['pay-1']);
    expect(guard.flow('pay-1')?.state).toBe('ERROR_RETRY_ELIGIBLE');

    expect(await host.pay()).toBe('paid #1');
    expect(guard.flow('pay-1')?.state).toBe('RETRY_RESPONSE_ACCEPTED');
    expect(host.operations.pay).toBe(1);
    expect(guard.metrics()).toMatchObject({
      completionsDelivered: 1,
      completionsDropped: 2,
      originalOperationsAccepted: 1,
      maxAcceptancesPerLineage: 1,
    });
    invariants.expectGuard(guard);
  });
});
