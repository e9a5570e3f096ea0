import { afterEach, describe, expect, it, vi } from 'vitest';
import type { GuardEvent } from '../../src/core/events.js';
import { createGuard } from '../../src/core/guard.js';
import { collectInvariants } from './support/invariants.js';
import { lineageHost, type LineageHost } from './support/lineage-server.js';

// Fault: the host reconnects (a new initialize on the same guard: a new session generation) and a
// completion notice for an elicitation of the old session arrives. It belongs to a session that no
// longer exists: it must not reach the host or move a flow.

const invariants = collectInvariants('old-session-notice');
const hosts: LineageHost[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close();
});

function dropped(events: GuardEvent[]): string[] {
  return events.flatMap((e) => (e.type === 'completion.dropped' ? [e.reason] : []));
}

describe('fault: a notice from an old session', () => {
  it("drops the old session's notice as stale after re-initialize; the new session's own notice still works", async () => {
    const events: GuardEvent[] = [];
    const guard = invariants.guard(createGuard({ onEvent: (e) => events.push(e) }));

    const first = await lineageHost(guard, { idPrefix: 'old-' });
    const stranded = first.connect().catch((e: unknown) => e);
    await vi.waitFor(() => expect(guard.flow('old-connect-1')?.state).toBe('OUT_OF_BAND_PENDING'));
    expect(guard.session().generation).toBe(1);
    await first.close();
    await stranded;

    // The host reconnects through the same guard.
    const second = await lineageHost(guard, { idPrefix: 'new-' });
    hosts.push(second);
    expect(guard.session().generation).toBe(2);

    await second.server.notification({ method: 'notifications/elicitation/complete', params: { elicitationId: 'old-connect-1' } });
    await second.server.notification({ method: 'notifications/elicitation/complete', params: { elicitationId: 'never-issued' } });
    await vi.waitFor(() => expect(dropped(events)).toHaveLength(2));
    expect(dropped(events)).toEqual(['stale', 'unknown']);
    expect(second.notices).toEqual([]);
    // The old flow did not move: it waits for the user's manual recovery.
    expect(guard.flow('old-connect-1')?.state).toBe('OUT_OF_BAND_PENDING');

    const current = second.connect();
    await vi.waitFor(() => expect(guard.flow('new-connect-1')?.state).toBe('OUT_OF_BAND_PENDING'));
    second.finishOutOfBand();
    expect(await current).toBe('connected #1');
    expect(second.notices).toEqual(['new-connect-1']);
    expect(guard.metrics()).toMatchObject({
      completionsDelivered: 1,
      completionsDropped: 2,
      completionNoticesAdvancingUnknown: 0,
      maxAcceptancesPerLineage: 1,
    });
    invariants.expectGuard(guard);
  });
});
