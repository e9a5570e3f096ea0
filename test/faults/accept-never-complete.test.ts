import { UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { GuardEvent } from '../../src/core/events.js';
import { createGuard } from '../../src/core/guard.js';
import { MemoryLedger } from '../../src/ledger/memory.js';
import { collectInvariants } from './support/invariants.js';
import { lineageHost, type LineageHost } from './support/lineage-server.js';
import { guardCode, rejection } from './support/sdk.js';

// Fault: the user accepted a URL elicitation and the completion notice never comes (the browser tab
// was closed, the server lost it). The flow must stay visible after it expires, a late notice must
// not revive it, and the user must be able to recover it by hand or give up.

const invariants = collectInvariants('accept-never-complete');
const hosts: LineageHost[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close();
});

async function setup() {
  let now = 1_800_000_000_000;
  const events: GuardEvent[] = [];
  const ledger = new MemoryLedger();
  const guard = invariants.guard(
    createGuard({ clock: () => now, ledger, policy: { completion: { ttlSeconds: 60 } }, onEvent: (e) => events.push(e) }),
  );
  const host = await lineageHost(guard);
  hosts.push(host);
  return { guard, host, events, ledger, advance: (ms: number) => (now += ms) };
}

describe('fault: accept, then no completion ever', () => {
  it('nested: expires, ignores a late notice, is recovered by hand, and its original is accepted once', async () => {
    const { guard, host, events, ledger, advance } = await setup();
    const original = host.connect();
    await vi.waitFor(() => expect(guard.flow('connect-1')?.state).toBe('OUT_OF_BAND_PENDING'));

    advance(61_000);
    expect(guard.pendingFlows().map((f) => [f.elicitationId, f.state])).toEqual([['connect-1', 'EXPIRED']]);

    // A notice arriving after expiry is dropped: it revives nothing and reaches no one.
    await host.server.notification({ method: 'notifications/elicitation/complete', params: { elicitationId: 'connect-1' } });
    await vi.waitFor(() => expect(events.some((e) => e.type === 'completion.dropped' && e.reason === 'expired')).toBe(true));
    expect(host.notices).toEqual([]);
    expect(guard.flow('connect-1')?.state).toBe('EXPIRED');

    // Manual recovery: the user takes the flow up again and says the browser step is done.
    expect(guard.retryFlow('connect-1').state).toBe('USER_RETRY');
    expect(guard.confirmFlow('connect-1').state).toBe('NESTED_SERVER_CONTINUES');
    host.finishOutOfBand();
    // The server's own notice for it, after the host moved on, is dropped too.
    expect(await original).toBe('connected #1');
    expect(host.notices).toEqual([]);
    expect(guard.flow('connect-1')?.state).toBe('ORIGINAL_RESPONSE_ACCEPTED');
    expect(guard.pendingFlows()).toEqual([]);
    expect(host.operations.connect).toBe(1);

    await guard.flush();
    const [stored] = await ledger.listNavigations();
    expect((await ledger.listTransitions(stored!.record.id)).map((t) => t.to)).toContain('EXPIRED');
    expect(guard.metrics()).toMatchObject({
      completionsDelivered: 0,
      originalOperationsAccepted: 1,
      maxAcceptancesPerLineage: 1,
      completionNoticesAdvancingUnknown: 0,
    });
    invariants.expectGuard(guard);
  });

  it('error-retry: a retry before the step is confirmed is refused; the user gives up, and no retry is ever let through', async () => {
    const { guard, host, advance } = await setup();
    const required = await rejection(host.pay());
    expect(required).toBeInstanceOf(UrlElicitationRequiredError);
    const ticket = await guard.recordConsent('pay-1', 'accept');
    await guard.openUrl(ticket!, () => {});
    expect(guardCode(await rejection(host.pay()))).toBe('E_RETRY_NOT_ELIGIBLE');

    advance(30_000);
    expect(guard.pendingFlows().map((f) => f.state)).toEqual(['OUT_OF_BAND_PENDING']);
    expect(guard.cancelFlow('pay-1').state).toBe('CANCELLED');
    host.meetPayment();
    expect(guardCode(await rejection(host.pay()))).toBe('E_RETRY_NOT_ELIGIBLE');
    expect(host.operations.pay).toBe(0);
    expect(guard.pendingFlows()).toEqual([]);
    expect(guard.metrics().originalOperationsAccepted).toBe(0);
    invariants.expectGuard(guard);
  });

  it('error-retry: recovered by hand after expiry, the retry runs the operation once', async () => {
    const { guard, host, advance } = await setup();
    await rejection(host.pay());
    const ticket = await guard.recordConsent('pay-1', 'accept');
    await guard.openUrl(ticket!, () => {});
    advance(59_000);
    expect(guard.pendingFlows().map((f) => f.state)).toEqual(['OUT_OF_BAND_PENDING']);
    advance(2_000);
    expect(guard.pendingFlows().map((f) => f.state)).toEqual(['EXPIRED']);
    expect(guard.confirmFlow('pay-1').state).toBe('ERROR_RETRY_ELIGIBLE');
    host.meetPayment();
    // The lineage outlived its time to live: the call is a new operation, and the server runs it once.
    expect(await host.pay()).toBe('paid #1');
    expect(host.operations.pay).toBe(1);
    expect(guard.metrics().maxAcceptancesPerLineage).toBeLessThanOrEqual(1);
    invariants.expectGuard(guard);
  });
});
