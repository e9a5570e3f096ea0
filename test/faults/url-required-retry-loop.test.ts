import { UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { GuardEvent } from '../../src/core/events.js';
import { createGuard } from '../../src/core/guard.js';
import { MemoryLedger } from '../../src/ledger/memory.js';
import { collectInvariants } from './support/invariants.js';
import { lineageHost, type LineageHost } from './support/lineage-server.js';
import { guardCode, rejection } from './support/sdk.js';

// Fault: after -32042 the client retries the original again and again (an agent loop). The guard
// lets retry.maxRetries (1) through and the server runs the operation at most once.

const invariants = collectInvariants('url-required-retry-loop');
const hosts: LineageHost[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close();
});

async function setup() {
  const events: GuardEvent[] = [];
  const guard = invariants.guard(createGuard({ ledger: new MemoryLedger(), onEvent: (e) => events.push(e) }));
  const host = await lineageHost(guard);
  hosts.push(host);
  return { guard, host, events };
}

describe('fault: a -32042 flow retried again and again', () => {
  it('sequential loop: one retry runs, the next nine are refused with E_RETRY_EXHAUSTED', async () => {
    const { guard, host, events } = await setup();
    expect(await rejection(host.pay())).toBeInstanceOf(UrlElicitationRequiredError);
    host.meetPayment();
    const outcomes: unknown[] = [];
    for (let i = 0; i < 10; i++) outcomes.push(await host.pay().catch((e: unknown) => guardCode(e as never)));
    expect(outcomes).toEqual(['paid #1', ...Array(9).fill('E_RETRY_EXHAUSTED')]);
    expect(host.operations.pay).toBe(1);
    expect(events.filter((e) => e.type === 'receipt.business')).toHaveLength(1);
    expect(guard.metrics()).toMatchObject({ originalOperationsAccepted: 1, maxAcceptancesPerLineage: 1 });
    invariants.expectGuard(guard);
  });

  it('concurrent burst after the user finished: exactly one of eight runs', async () => {
    const { guard, host } = await setup();
    await rejection(host.pay());
    const ticket = await guard.recordConsent('pay-1', 'accept');
    await guard.openUrl(ticket!, () => {});
    host.meetPayment();
    guard.confirmFlow('pay-1');
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => host.pay()));
    expect(results.filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<string>).value)).toEqual(['paid #1']);
    const refused = results.flatMap((r) => (r.status === 'rejected' ? [guardCode(r.reason as never)] : []));
    expect(refused).toHaveLength(7);
    expect(new Set(refused)).toEqual(new Set(['E_RETRY_EXHAUSTED']));
    expect(host.operations.pay).toBe(1);
    expect(guard.flow('pay-1')?.state).toBe('RETRY_RESPONSE_ACCEPTED');
    expect(guard.metrics()).toMatchObject({ originalOperationsAccepted: 1, maxAcceptancesPerLineage: 1 });
    invariants.expectGuard(guard);
  });

  it('a server that keeps answering -32042 runs nothing, and the loop stops after retry.maxUrlRequiredRounds rounds', async () => {
    const { guard, host } = await setup();
    for (let i = 0; i < 5; i++) expect(await rejection(host.pay())).toBeInstanceOf(UrlElicitationRequiredError);
    // The sixth attempt never reaches the server (default bound: 5 rounds, the MCP Inspector's cap).
    expect(guardCode(await rejection(host.pay()))).toBe('E_RETRY_EXHAUSTED');
    expect(host.operations.pay).toBe(0);
    expect(guard.metrics()).toMatchObject({ originalOperationsAccepted: 0, maxAcceptancesPerLineage: 0 });
    invariants.expectGuard(guard);
  });
});
