import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { GuardEvent } from '../../src/core/events.js';
import { createGuard } from '../../src/core/guard.js';
import { collectInvariants } from './support/invariants.js';
import { lineageHost, type LineageHost } from './support/lineage-server.js';
import { deferred } from './support/sdk.js';

// Fault: a completion notice arrives while the user is still looking at the URL (before accept). It
// proves nothing, since the user has not opened anything yet: it is dropped and the id stays
// pending, so the real notice after accept still counts.

const invariants = collectInvariants('completion-before-accept');
const hosts: LineageHost[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close();
});

async function setup() {
  const events: GuardEvent[] = [];
  const guard = invariants.guard(createGuard({ onEvent: (e) => events.push(e) }));
  const decision = deferred<ElicitResult>();
  const host = await lineageHost(guard, { onElicit: () => decision.promise });
  hosts.push(host);
  const early = async () => {
    await host.server.notification({ method: 'notifications/elicitation/complete', params: { elicitationId: 'connect-1' } });
    await vi.waitFor(() => expect(events.some((e) => e.type === 'completion.dropped')).toBe(true));
  };
  return { guard, host, events, decide: decision.resolve, early };
}

describe('fault: completion before accept', () => {
  it('drops the early notice; after accept the real one is delivered and the original accepted once', async () => {
    const { guard, host, events, decide, early } = await setup();
    const original = host.connect();
    await vi.waitFor(() => expect(guard.flow('connect-1')?.state).toBe('USER_REVIEW'));
    await early();
    expect(events.find((e) => e.type === 'completion.dropped')).toMatchObject({ reason: 'before-consent' });
    expect(host.notices).toEqual([]);
    expect(guard.flow('connect-1')?.state).toBe('USER_REVIEW');

    decide({ action: 'accept' });
    await vi.waitFor(() => expect(guard.flow('connect-1')?.state).toBe('OUT_OF_BAND_PENDING'));
    host.finishOutOfBand();
    expect(await original).toBe('connected #1');
    expect(host.notices).toEqual(['connect-1']);
    expect(guard.flow('connect-1')?.state).toBe('ORIGINAL_RESPONSE_ACCEPTED');
    expect(guard.metrics()).toMatchObject({
      completionsDropped: 1,
      completionsDelivered: 1,
      originalOperationsAccepted: 1,
      maxAcceptancesPerLineage: 1,
      completionNoticesAdvancingUnknown: 0,
    });
    invariants.expectGuard(guard);
  });

  it('drops the early notice and, after a decline, every later one: no flow advances', async () => {
    const { guard, host, events, decide, early } = await setup();
    const original = host.connect();
    await vi.waitFor(() => expect(guard.flow('connect-1')?.state).toBe('USER_REVIEW'));
    await early();
    decide({ action: 'decline' });
    expect(await original).toBe('decline');
    await host.server.notification({ method: 'notifications/elicitation/complete', params: { elicitationId: 'connect-1' } });
    await vi.waitFor(() => expect(events.filter((e) => e.type === 'completion.dropped')).toHaveLength(2));
    expect(events.flatMap((e) => (e.type === 'completion.dropped' ? [e.reason] : []))).toEqual(['before-consent', 'finished']);
    expect(host.notices).toEqual([]);
    expect(guard.flow('connect-1')?.state).toBe('DECLINED');
    expect(guard.metrics()).toMatchObject({ completionsDelivered: 0, originalOperationsAccepted: 0 });
    invariants.expectGuard(guard);
  });
});
