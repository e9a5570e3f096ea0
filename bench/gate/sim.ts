/**
 * A guard on simulated time: an injected clock, a seeded nonce source, an in-memory ledger, and
 * the wire messages a server would send. Shared by the reconciliation and the expiry lines.
 */
import type { GuardEvent } from '../../src/core/events.js';
import { createGuard, type Guard } from '../../src/core/guard.js';
import { MemoryLedger } from '../../src/ledger/memory.js';
import type { Decision } from '../../src/core/decision.js';
import { completion, handshake, urlRequest } from '../../test/helpers/session.js';
import { seededBytes } from './random.js';

export interface SimulatedGuard {
  readonly guard: Guard;
  readonly ledger: MemoryLedger;
  readonly events: GuardEvent[];
  /** Simulated milliseconds since the epoch; the guard reads it through its clock. */
  now: number;
}

export function simulatedGuard(seed: number, start = 1_800_000_000_000): SimulatedGuard {
  const ledger = new MemoryLedger();
  const events: GuardEvent[] = [];
  const sim: SimulatedGuard = {
    ledger,
    events,
    now: start,
    guard: undefined as unknown as Guard,
  };
  (sim as { guard: Guard }).guard = createGuard({
    clock: () => sim.now,
    random: seededBytes(seed),
    ledger,
    subject: 'gate-user',
    onEvent: (e) => events.push(e),
  });
  handshake(sim.guard, { url: {} });
  return sim;
}

export function expectAction(decision: Decision, action: Decision['action'], what: string): void {
  if (decision.action === action) return;
  const detail = 'message' in decision ? `: ${JSON.stringify(decision.message).slice(0, 300)}` : '';
  throw new Error(`${what}: the guard answered ${decision.action}, expected ${action}${detail}`);
}

/** A URL elicitation from the server, consented and opened: the flow waits for the out-of-band step. */
export async function openedFlow(sim: SimulatedGuard, requestId: number, elicitationId: string, url: string): Promise<void> {
  expectAction(sim.guard.inbound(urlRequest(requestId, url, elicitationId)), 'forward', `elicitation ${elicitationId}`);
  await consentAndOpen(sim, elicitationId);
}

export async function consentAndOpen(sim: SimulatedGuard, elicitationId: string): Promise<void> {
  const ticket = await sim.guard.recordConsent(elicitationId, 'accept');
  if (ticket === null) throw new Error(`no ticket for ${elicitationId}`);
  await sim.guard.openUrl(ticket, () => undefined);
}

export function notice(sim: SimulatedGuard, elicitationId: string): Decision {
  return sim.guard.inbound(completion(elicitationId));
}
