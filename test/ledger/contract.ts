/**
 * The Ledger contract, written once and run against every implementation
 * (test/ledger/memory.test.ts, test/ledger/sqlite.test.ts).
 */
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBusinessReceipt, createConsentReceipt, createNavigation, type NavigationRecord } from '../../src/flow/records.js';
import { FLOW_STATES, FLOW_TRIGGERS, canTransition, type FlowState, type FlowTrigger } from '../../src/flow/states.js';
import type { Ledger } from '../../src/ledger/types.js';
import { GuardError } from '../../src/protocol/errors.js';
import { businessInput, digestOf, navigationInput, testDeps, type TestDeps } from '../flow/support.js';

export interface LedgerHarness {
  readonly ledger: Ledger;
  /** Closes whatever the harness opened and removes its files. */
  dispose(): Promise<void>;
}

async function codeOf(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
  } catch (error) {
    return GuardError.is(error) ? error.code : `not a GuardError: ${(error as Error).message}`;
  }
  return 'no error';
}

const shown = { display: { host: 'auth.example.com' }, findings: [], message: 'Sign in' };

export function ledgerContract(name: string, open: () => Promise<LedgerHarness>): void {
  describe(`${name}: the Ledger contract`, () => {
    let harness: LedgerHarness;
    let ledger: Ledger;
    let deps: TestDeps;

    beforeEach(async () => {
      harness = await open();
      ledger = harness.ledger;
      deps = testDeps(42);
    });
    afterEach(async () => {
      await harness.dispose();
    });

    const newNavigation = (overrides: Parameters<typeof navigationInput>[0] = {}): NavigationRecord =>
      createNavigation(navigationInput(overrides), deps).record;

    async function stored(record = newNavigation()): Promise<NavigationRecord> {
      await ledger.putNavigation(record);
      return record;
    }

    describe('navigation records', () => {
      it('stores a record with its flow in CREATED and reads it back unchanged', async () => {
        const record = newNavigation();
        const put = await ledger.putNavigation(record);
        expect(put.flow).toEqual({
          id: record.id,
          state: 'CREATED',
          trigger: null,
          createdAt: record.createdAt,
          updatedAt: record.createdAt,
        });
        const got = await ledger.getNavigation(record.id);
        expect(got).toEqual({ record, flow: put.flow });
        expect(Object.isFrozen(got!.record)).toBe(true);
        expect(Object.isFrozen(got!.flow)).toBe(true);
      });

      it('answers null for an unknown id', async () => {
        expect(await ledger.getNavigation('nav_unknown')).toBeNull();
      });

      it('refuses a second record with the same id', async () => {
        const record = await stored();
        expect(await codeOf(() => ledger.putNavigation(record))).toBe('E_DUPLICATE_RECORD');
      });

      it('refuses a record that fails validation, and stores nothing', async () => {
        const record = newNavigation();
        const tampered = { ...record, target: { ...record.target, urlDigest: 'not-a-digest' } } as NavigationRecord;
        expect(await codeOf(() => ledger.putNavigation(tampered))).toBe('E_RECORD_INVALID');
        expect(await ledger.getNavigation(record.id)).toBeNull();
      });

      it('lists newest first, by state, with a limit', async () => {
        const a = await stored();
        deps.advance(10);
        const b = await stored();
        deps.advance(10);
        const c = await stored();
        await ledger.updateFlowState(b.id, 'CREATED', 'USER_REVIEW', 'presented', deps.clock());
        expect((await ledger.listNavigations()).map((s) => s.record.id)).toEqual([c.id, b.id, a.id]);
        expect((await ledger.listNavigations({ state: 'CREATED' })).map((s) => s.record.id)).toEqual([c.id, a.id]);
        expect((await ledger.listNavigations({ state: 'USER_REVIEW' })).map((s) => s.flow.state)).toEqual(['USER_REVIEW']);
        expect((await ledger.listNavigations({ limit: 2 })).map((s) => s.record.id)).toEqual([c.id, b.id]);
        expect(await ledger.listNavigations({ state: 'EXPIRED' })).toEqual([]);
        expect(await codeOf(() => ledger.listNavigations({ limit: 0 }))).toBe('E_RECORD_INVALID');
      });
    });

    describe('flow state', () => {
      it('moves a flow only from the expected state, and records each move', async () => {
        const record = await stored();
        const t1 = deps.advance(5);
        const moved = await ledger.updateFlowState(record.id, 'CREATED', 'USER_REVIEW', 'presented', t1);
        expect(moved).toEqual({
          updated: true,
          flow: { id: record.id, state: 'USER_REVIEW', trigger: 'presented', createdAt: record.createdAt, updatedAt: t1 },
        });
        const t2 = deps.advance(5);
        await ledger.updateFlowState(record.id, 'USER_REVIEW', 'NAVIGATION_ACCEPTED', 'user-accepted', t2);
        expect((await ledger.getNavigation(record.id))!.flow).toMatchObject({
          state: 'NAVIGATION_ACCEPTED',
          trigger: 'user-accepted',
          updatedAt: t2,
        });
        expect(await ledger.listTransitions(record.id)).toEqual([
          { navigationId: record.id, from: null, to: 'CREATED', trigger: null, at: record.createdAt },
          { navigationId: record.id, from: 'CREATED', to: 'USER_REVIEW', trigger: 'presented', at: t1 },
          { navigationId: record.id, from: 'USER_REVIEW', to: 'NAVIGATION_ACCEPTED', trigger: 'user-accepted', at: t2 },
        ]);
      });

      it('refuses a stale compare-and-set and reports the current flow', async () => {
        const record = await stored();
        await ledger.updateFlowState(record.id, 'CREATED', 'USER_REVIEW', 'presented', deps.advance(1));
        const first = await ledger.updateFlowState(record.id, 'USER_REVIEW', 'DECLINED', 'user-declined', deps.advance(1));
        expect(first.updated).toBe(true);
        const second = await ledger.updateFlowState(record.id, 'USER_REVIEW', 'CANCELLED', 'user-cancelled', deps.advance(1));
        expect(second).toMatchObject({ updated: false, reason: 'state-conflict', current: { state: 'DECLINED' } });
        expect((await ledger.getNavigation(record.id))!.flow.state).toBe('DECLINED');
        expect(await ledger.listTransitions(record.id)).toHaveLength(3);
      });

      it('reports an unknown navigation', async () => {
        expect(await ledger.updateFlowState('nav_missing', 'CREATED', 'USER_REVIEW', 'presented', 1)).toEqual({
          updated: false,
          reason: 'unknown-navigation',
          current: null,
        });
      });

      it('throws E_ILLEGAL_TRANSITION for a move the table does not have, and changes nothing', async () => {
        const record = await stored();
        expect(await codeOf(() => ledger.updateFlowState(record.id, 'CREATED', 'NAVIGATION_ACCEPTED', 'user-accepted', 2))).toBe(
          'E_ILLEGAL_TRANSITION',
        );
        expect(await codeOf(() => ledger.updateFlowState(record.id, 'CREATED', 'USER_REVIEW', 'completion-notice', 2))).toBe(
          'E_ILLEGAL_TRANSITION',
        );
        expect((await ledger.getNavigation(record.id))!.flow.state).toBe('CREATED');
        expect(await ledger.listTransitions(record.id)).toHaveLength(1);
      });

      it('refuses a time that is not a non-negative integer', async () => {
        const record = await stored();
        expect(await codeOf(() => ledger.updateFlowState(record.id, 'CREATED', 'USER_REVIEW', 'presented', 1.5))).toBe('E_RECORD_INVALID');
      });

      it('lets exactly one of many concurrent movers win', async () => {
        const record = await stored();
        await ledger.updateFlowState(record.id, 'CREATED', 'USER_REVIEW', 'presented', 1);
        const results = await Promise.all([
          ledger.updateFlowState(record.id, 'USER_REVIEW', 'NAVIGATION_ACCEPTED', 'user-accepted', 2),
          ledger.updateFlowState(record.id, 'USER_REVIEW', 'DECLINED', 'user-declined', 2),
          ledger.updateFlowState(record.id, 'USER_REVIEW', 'CANCELLED', 'server-cancelled', 2),
        ]);
        expect(results.filter((r) => r.updated)).toHaveLength(1);
      });

      it('agrees with the transition table over random sequences of compare-and-set moves', async () => {
        const move = fc.record({
          useStoredState: fc.boolean(),
          from: fc.constantFrom(...FLOW_STATES),
          to: fc.constantFrom(...FLOW_STATES),
          trigger: fc.constantFrom(...FLOW_TRIGGERS),
        });
        await fc.assert(
          fc.asyncProperty(fc.array(move, { maxLength: 12 }), async (moves) => {
            const record = await stored();
            let state: FlowState = 'CREATED';
            for (const m of moves) {
              const from: FlowState = m.useStoredState ? state : m.from;
              const legal = canTransition(from, m.to, m.trigger as FlowTrigger);
              let outcome: string;
              try {
                const r = await ledger.updateFlowState(record.id, from, m.to, m.trigger, deps.advance(1));
                outcome = r.updated ? 'updated' : r.reason;
              } catch (error) {
                outcome = GuardError.is(error) ? error.code : 'not a GuardError';
              }
              const expected = !legal ? 'E_ILLEGAL_TRANSITION' : from === state ? 'updated' : 'state-conflict';
              expect(outcome).toBe(expected);
              if (expected === 'updated') state = m.to;
            }
            expect((await ledger.getNavigation(record.id))!.flow.state).toBe(state);
          }),
          { numRuns: 60, seed: 1125 },
        );
      });
    });

    describe('consent receipts', () => {
      it('stores receipts per navigation, oldest first', async () => {
        const record = await stored();
        const other = await stored();
        const first = createConsentReceipt({ navigationId: record.id, shown, decision: 'cancel' }, deps);
        deps.advance(1);
        const second = createConsentReceipt({ navigationId: record.id, shown, decision: 'accept' }, deps);
        await ledger.putConsentReceipt(second);
        await ledger.putConsentReceipt(first);
        await ledger.putConsentReceipt(createConsentReceipt({ navigationId: other.id, shown, decision: 'decline' }, deps));
        expect(await ledger.listConsentReceipts(record.id)).toEqual([first, second]);
        expect(await ledger.listConsentReceipts('nav_missing')).toEqual([]);
      });

      it('refuses a receipt for an unknown navigation', async () => {
        const receipt = createConsentReceipt({ navigationId: 'nav_missing', shown, decision: 'accept' }, deps);
        expect(await codeOf(() => ledger.putConsentReceipt(receipt))).toBe('E_UNKNOWN_NAVIGATION');
      });

      it('refuses the same receipt id twice', async () => {
        const record = await stored();
        const receipt = createConsentReceipt({ navigationId: record.id, shown, decision: 'accept' }, deps);
        await ledger.putConsentReceipt(receipt);
        expect(await codeOf(() => ledger.putConsentReceipt(receipt))).toBe('E_DUPLICATE_RECORD');
        expect(await ledger.listConsentReceipts(record.id)).toHaveLength(1);
      });
    });

    describe('business receipts', () => {
      it('accepts the first receipt of a lineage and returns it for every later one', async () => {
        const first = createBusinessReceipt(businessInput(), deps);
        const second = createBusinessReceipt(
          businessInput({ requestId: 8, retryGeneration: 1, responseDigest: digestOf('other result') }),
          deps,
        );
        expect(await ledger.acceptBusinessReceipt(first)).toEqual({ accepted: true });
        expect(await ledger.acceptBusinessReceipt(second)).toEqual({ accepted: false, existing: first });
        expect(await ledger.acceptBusinessReceipt(first)).toEqual({ accepted: false, existing: first });
        expect(await ledger.getBusinessReceipt(first.lineage)).toEqual(first);
      });

      it('keeps lineages apart by session, kind and original request', async () => {
        const base = businessInput().lineage;
        const keys = [
          base,
          { ...base, session: 'session-2' },
          { ...base, kind: 'error-retry' as const },
          { ...base, kind: 'input-required' as const },
          { ...base, originalRequestDigest: digestOf('other') },
        ];
        for (const lineage of keys)
          expect(await ledger.acceptBusinessReceipt(createBusinessReceipt(businessInput({ lineage }), deps))).toEqual({ accepted: true });
        for (const lineage of keys) expect((await ledger.getBusinessReceipt(lineage))!.lineage).toEqual(lineage);
      });

      it('accepts one receipt per input-required operation (spec 2026-07-28), whichever round answered it', async () => {
        const lineage = { ...businessInput().lineage, kind: 'input-required' as const };
        const first = createBusinessReceipt(businessInput({ lineage, requestId: 3, retryGeneration: 2 }), deps);
        const again = createBusinessReceipt(
          businessInput({ lineage, requestId: 4, retryGeneration: 3, responseDigest: digestOf('re-sent round') }),
          deps,
        );
        expect(await ledger.acceptBusinessReceipt(first)).toEqual({ accepted: true });
        expect(await ledger.acceptBusinessReceipt(again)).toEqual({ accepted: false, existing: first });
      });

      it('answers null for a lineage with no receipt', async () => {
        expect(await ledger.getBusinessReceipt(businessInput().lineage)).toBeNull();
      });

      it('accepts exactly one of many concurrent receipts for one lineage', async () => {
        const receipts = Array.from({ length: 20 }, (_, i) => createBusinessReceipt(businessInput({ requestId: i }), deps));
        const outcomes = await Promise.all(receipts.map((r) => ledger.acceptBusinessReceipt(r)));
        const winners = outcomes.filter((o) => o.accepted);
        expect(winners).toHaveLength(1);
        const winner = await ledger.getBusinessReceipt(businessInput().lineage);
        for (const o of outcomes) if (!o.accepted) expect(o.existing).toEqual(winner);
      });

      it('decides receipts for one lineage made without awaiting in call order: the first is accepted', async () => {
        const receipts = Array.from({ length: 5 }, (_, i) => createBusinessReceipt(businessInput({ requestId: i }), deps));
        const outcomes = await Promise.all(receipts.map((r) => ledger.acceptBusinessReceipt(r)));
        expect(outcomes).toEqual([{ accepted: true }, ...receipts.slice(1).map(() => ({ accepted: false, existing: receipts[0] }))]);
      });

      it('refuses a known receipt id on another lineage', async () => {
        const receipt = createBusinessReceipt(businessInput(), deps);
        await ledger.acceptBusinessReceipt(receipt);
        const reused = { ...receipt, lineage: { ...receipt.lineage, session: 'session-9' } };
        expect(await codeOf(() => ledger.acceptBusinessReceipt(reused))).toBe('E_DUPLICATE_RECORD');
        expect(await ledger.getBusinessReceipt(reused.lineage)).toBeNull();
      });

      it('lists the receipts of every lineage of one original request, oldest first, and nothing of another', async () => {
        const base = businessInput().lineage;
        const first = createBusinessReceipt(businessInput(), deps);
        deps.advance(1000);
        const other = createBusinessReceipt(businessInput({ lineage: { ...base, originalRequestDigest: digestOf('other') } }), deps);
        const second = createBusinessReceipt(businessInput({ lineage: { ...base, session: 'session-2', kind: 'error-retry' } }), deps);
        const refused = createBusinessReceipt(businessInput({ requestId: 9 }), deps);
        for (const r of [second, other, first, refused]) await ledger.acceptBusinessReceipt(r);
        expect(await ledger.listBusinessReceipts(base.originalRequestDigest)).toEqual([first, second]);
        expect(await ledger.listBusinessReceipts(digestOf('other'))).toEqual([other]);
        expect(await ledger.listBusinessReceipts(digestOf('nothing'))).toEqual([]);
        expect(await codeOf(() => ledger.listBusinessReceipts('not-a-digest'))).toBe('E_RECORD_INVALID');
      });

      /** A navigation moved to `state` along the table, with an accepting consent receipt; returns the receipt's id. */
      async function consentedFlow(state: FlowState): Promise<{ navigationId: string; consentId: string }> {
        const record = await stored();
        const consent = createConsentReceipt({ navigationId: record.id, shown, decision: 'accept' }, deps);
        await ledger.putConsentReceipt(consent);
        const path: [FlowState, FlowState, FlowTrigger][] = [
          ['CREATED', 'USER_REVIEW', 'presented'],
          ['USER_REVIEW', 'NAVIGATION_ACCEPTED', 'user-accepted'],
          ['NAVIGATION_ACCEPTED', 'OUT_OF_BAND_PENDING', 'navigation-opened'],
        ];
        if (state === 'CANCELLED')
          path.push(['OUT_OF_BAND_PENDING', 'USER_RETRY', 'manual-recovery'], ['USER_RETRY', 'CANCELLED', 'user-cancelled']);
        if (state === 'DECLINED') path.splice(1, 2, ['USER_REVIEW', 'DECLINED', 'user-declined']);
        for (const [from, to, trigger] of path)
          expect((await ledger.updateFlowState(record.id, from, to, trigger, deps.clock())).updated).toBe(true);
        return { navigationId: record.id, consentId: consent.id };
      }

      it('refuses a receipt resting on a flow the ledger holds as CANCELLED or DECLINED, and writes nothing', async () => {
        for (const state of ['CANCELLED', 'DECLINED'] as const) {
          const ended = await consentedFlow(state);
          const live = await consentedFlow('OUT_OF_BAND_PENDING');
          const lineage = { ...businessInput().lineage, session: `ended-${state}` };
          const receipt = createBusinessReceipt(businessInput({ lineage, requirementReceiptIds: [live.consentId, ended.consentId] }), deps);
          expect(await ledger.acceptBusinessReceipt(receipt)).toEqual({
            accepted: false,
            existing: null,
            endedFlow: { navigationId: ended.navigationId, state },
          });
          expect(await ledger.getBusinessReceipt(lineage)).toBeNull();
          expect(await ledger.listBusinessReceipts(lineage.originalRequestDigest)).not.toContainEqual(receipt);
          // The lineage stays open: a receipt resting on live flows only is accepted.
          const next = createBusinessReceipt(businessInput({ lineage, requirementReceiptIds: [live.consentId] }), deps);
          expect(await ledger.acceptBusinessReceipt(next)).toEqual({ accepted: true });
        }
      });

      it('answers an accepted lineage with its receipt even when the later one rests on an ended flow', async () => {
        const live = await consentedFlow('OUT_OF_BAND_PENDING');
        const first = createBusinessReceipt(businessInput({ requirementReceiptIds: [live.consentId] }), deps);
        expect(await ledger.acceptBusinessReceipt(first)).toEqual({ accepted: true });
        const ended = await consentedFlow('CANCELLED');
        const second = createBusinessReceipt(businessInput({ requestId: 9, requirementReceiptIds: [ended.consentId] }), deps);
        expect(await ledger.acceptBusinessReceipt(second)).toEqual({ accepted: false, existing: first });
      });

      it('sees a cancel made without awaiting before the receipt: the receipt is refused', async () => {
        const flow = await consentedFlow('OUT_OF_BAND_PENDING');
        const receipt = createBusinessReceipt(businessInput({ requirementReceiptIds: [flow.consentId] }), deps);
        const moves = [
          ledger.updateFlowState(flow.navigationId, 'OUT_OF_BAND_PENDING', 'USER_RETRY', 'manual-recovery', deps.clock()),
          ledger.updateFlowState(flow.navigationId, 'USER_RETRY', 'CANCELLED', 'user-cancelled', deps.clock()),
        ];
        const outcome = ledger.acceptBusinessReceipt(receipt);
        await Promise.all(moves);
        expect(await outcome).toMatchObject({ accepted: false, endedFlow: { navigationId: flow.navigationId, state: 'CANCELLED' } });
      });

      it('refuses a receipt that fails validation', async () => {
        const receipt = createBusinessReceipt(businessInput(), deps);
        expect(await codeOf(() => ledger.acceptBusinessReceipt({ ...receipt, retryGeneration: -1 }))).toBe('E_RECORD_INVALID');
        expect(await ledger.getBusinessReceipt(receipt.lineage)).toBeNull();
      });
    });

    describe('ordering', () => {
      it('applies writes made without awaiting in call order, and shows each to reads once its promise has resolved', async () => {
        const record = newNavigation();
        const consent = createConsentReceipt({ navigationId: record.id, shown, decision: 'accept' }, deps);
        const receipt = createBusinessReceipt(businessInput(), deps);
        const [put, moved, , accepted] = await Promise.all([
          ledger.putNavigation(record),
          ledger.updateFlowState(record.id, 'CREATED', 'USER_REVIEW', 'presented', deps.advance(1)),
          ledger.putConsentReceipt(consent),
          ledger.acceptBusinessReceipt(receipt),
        ]);
        expect(put.flow.state).toBe('CREATED');
        expect(moved).toMatchObject({ updated: true, flow: { state: 'USER_REVIEW' } });
        expect(accepted).toEqual({ accepted: true });
        expect((await ledger.getNavigation(record.id))!.flow.state).toBe('USER_REVIEW');
        expect(await ledger.listConsentReceipts(record.id)).toEqual([consent]);
        expect(await ledger.getBusinessReceipt(receipt.lineage)).toEqual(receipt);
      });

      it('fails a write made without awaiting alone when an earlier one it needs failed', async () => {
        const record = newNavigation();
        const tampered = { ...record, target: { ...record.target, urlDigest: 'not-a-digest' } } as NavigationRecord;
        const consent = createConsentReceipt({ navigationId: record.id, shown, decision: 'accept' }, deps);
        const receipt = createBusinessReceipt(businessInput(), deps);
        const results = await Promise.allSettled([
          ledger.putNavigation(tampered),
          ledger.putConsentReceipt(consent),
          ledger.acceptBusinessReceipt(receipt),
        ]);
        expect(
          results.map((r) => (r.status === 'fulfilled' ? 'fulfilled' : GuardError.is(r.reason) ? r.reason.code : 'not a GuardError')),
        ).toEqual(['E_RECORD_INVALID', 'E_UNKNOWN_NAVIGATION', 'fulfilled']);
        expect(await ledger.getBusinessReceipt(receipt.lineage)).toEqual(receipt);
      });
    });

    describe('close', () => {
      it('refuses every call after close, and closing twice is harmless', async () => {
        const record = await stored();
        await ledger.close();
        await ledger.close();
        expect(await codeOf(() => ledger.getNavigation(record.id))).toBe('E_LEDGER_UNAVAILABLE');
        expect(await codeOf(() => ledger.putNavigation(newNavigation()))).toBe('E_LEDGER_UNAVAILABLE');
        expect(await codeOf(() => ledger.acceptBusinessReceipt(createBusinessReceipt(businessInput(), deps)))).toBe('E_LEDGER_UNAVAILABLE');
      });
    });
  });
}
