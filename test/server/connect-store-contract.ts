/**
 * The ConnectFlowStore contract, written once and run against every store
 * (test/server/connect-stores.test.ts): memory, SQLite and PostgreSQL.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createNavigation } from '../../src/flow/records.js';
import { ConnectCode } from '../../src/server/connect-audit.js';
import type { ConnectAttempt, ConnectFlow, ConnectFlowStore } from '../../src/server/connect-store.js';
import { sha256Hex } from '../../src/protocol/digest.js';
import { navigationInput, testDeps, type TestDeps } from '../flow/support.js';

export interface StoreHarness {
  readonly store: ConnectFlowStore;
  /** Closes the store and opens it again on the same data; null for a store that does not survive a restart. */
  readonly reopen: (() => Promise<ConnectFlowStore>) | null;
  dispose(): Promise<void>;
}

export function connectStoreContract(name: string, open: () => Promise<StoreHarness>): void {
  describe(`${name}: the ConnectFlowStore contract`, () => {
    let harness: StoreHarness;
    let store: ConnectFlowStore;
    let deps: TestDeps;
    let n = 0;

    beforeEach(async () => {
      harness = await open();
      store = harness.store;
      deps = testDeps(7);
    });
    afterEach(async () => {
      await harness.dispose();
    });

    function flow(overrides: Partial<ConnectFlow> = {}): ConnectFlow {
      n += 1;
      const now = deps.clock();
      return {
        id: `flow-${n}-${Math.random().toString(36).slice(2)}`,
        elicitationId: `el_${n}`,
        subject: 'mcp|alice',
        session: `session-${n}`,
        purpose: 'Connect TestHub',
        createdAt: now,
        expiresAt: now + 600_000,
        status: 'pending',
        attempt: null,
        retiredReason: null,
        endedAt: null,
        ...overrides,
      };
    }

    function attempt(): { attempt: ConnectAttempt; state: string } {
      const { record, stateNonce } = createNavigation(navigationInput(), deps);
      return {
        attempt: {
          navigation: record,
          codeVerifier: `verifier-${Math.random().toString(36).slice(2)}`.padEnd(43, 'v'),
          browserBindingDigest: sha256Hex(`binding-${n}-${Math.random()}`),
        },
        state: sha256Hex(stateNonce),
      };
    }

    it('keeps every field of a flow and of its attempt', async () => {
      const f = flow({ session: null });
      await store.add(f);
      expect(await store.get(f.id)).toEqual(f);
      const { attempt: a } = attempt();
      expect(await store.startAttempt(f.id, a)).toBe(true);
      expect(await store.get(f.id)).toEqual({ ...f, attempt: a });
      expect(await store.get('no-such-flow')).toBeNull();
      await expect(Promise.resolve().then(() => store.add(f))).rejects.toThrow(/exists/);
    });

    it('hands a live state out once, keeps no verifier afterwards, and tells a spent state from a forged one', async () => {
      const f = flow();
      await store.add(f);
      const { attempt: a, state } = attempt();
      await store.startAttempt(f.id, a);
      const taken = await store.takeState(state);
      expect(taken).toEqual({ kind: 'live', flow: { ...f, attempt: a } });
      expect((await store.get(f.id))?.attempt).toBeNull();
      expect(await store.takeState(state)).toEqual({ kind: 'used', flowId: f.id });
      expect(await store.takeState(sha256Hex('forged'))).toEqual({ kind: 'unknown' });
    });

    it('lets exactly one of many concurrent takers have a state', async () => {
      const f = flow();
      await store.add(f);
      const { attempt: a, state } = attempt();
      await store.startAttempt(f.id, a);
      const results = await Promise.all(Array.from({ length: 12 }, () => Promise.resolve().then(() => store.takeState(state))));
      expect(results.filter((r) => r.kind === 'live')).toHaveLength(1);
      expect(results.filter((r) => r.kind === 'used')).toHaveLength(11);
    });

    it("turns the previous attempt's state into a tombstone when a new attempt starts", async () => {
      const f = flow();
      await store.add(f);
      const first = attempt();
      const second = attempt();
      await store.startAttempt(f.id, first.attempt);
      await store.startAttempt(f.id, second.attempt);
      expect(await store.takeState(first.state)).toEqual({ kind: 'used', flowId: f.id });
      expect((await store.takeState(second.state)).kind).toBe('live');
    });

    it('completes a pending flow once, and never a retired one', async () => {
      const f = flow();
      await store.add(f);
      const at = deps.advance(5);
      expect(await store.complete(f.id, at)).toBe(true);
      expect(await store.complete(f.id, at)).toBe(false);
      expect(await store.get(f.id)).toMatchObject({ status: 'completed', endedAt: at });
      const g = flow();
      await store.add(g);
      expect(await store.retire(g.id, ConnectCode.subjectMismatch, at)).toBe(true);
      expect(await store.complete(g.id, at)).toBe(false);
      expect(await store.complete('no-such-flow', at)).toBe(false);
    });

    it('retires a flow with its reason, burns its live state, and refuses new attempts', async () => {
      const f = flow();
      await store.add(f);
      const { attempt: a, state } = attempt();
      await store.startAttempt(f.id, a);
      const at = deps.advance(3);
      expect(await store.retire(f.id, ConnectCode.otherBrowser, at)).toBe(true);
      expect(await store.get(f.id)).toMatchObject({
        status: 'retired',
        retiredReason: ConnectCode.otherBrowser,
        endedAt: at,
        attempt: null,
      });
      expect(await store.takeState(state)).toEqual({ kind: 'used', flowId: f.id });
      expect(await store.retire(f.id, ConnectCode.stateReplayed, at)).toBe(false);
      expect(await store.startAttempt(f.id, attempt().attempt)).toBe(false);
      expect(await store.retire('no-such-flow', ConnectCode.stateReplayed, at)).toBe(false);
      // A completed flow whose token could not be stored is retired after all.
      const g = flow();
      await store.add(g);
      await store.complete(g.id, at);
      expect(await store.retire(g.id, ConnectCode.vaultFailed, at)).toBe(true);
      expect((await store.get(g.id))?.status).toBe('retired');
    });

    it('sweeps flows and tombstones whose time is up', async () => {
      const short = flow({ expiresAt: deps.clock() + 10 });
      const long = flow();
      await store.add(short);
      await store.add(long);
      const { attempt: a, state } = attempt();
      await store.startAttempt(short.id, a);
      await store.takeState(state);
      expect(await store.sweep(deps.clock() + 11)).toBe(1);
      expect(await store.get(short.id)).toBeNull();
      expect(await store.get(long.id)).not.toBeNull();
      expect(await store.takeState(state)).toEqual({ kind: 'unknown' });
    });

    it('keeps flows, attempts and spent states across a restart (durable stores)', async () => {
      if (harness.reopen === null) return;
      const f = flow();
      await store.add(f);
      const { attempt: a, state } = attempt();
      await store.startAttempt(f.id, a);
      const spent = attempt();
      const g = flow();
      await store.add(g);
      await store.startAttempt(g.id, spent.attempt);
      await store.takeState(spent.state);
      store = await harness.reopen();
      expect(await store.get(f.id)).toEqual({ ...f, attempt: a });
      expect(await store.takeState(spent.state)).toEqual({ kind: 'used', flowId: g.id });
      expect((await store.takeState(state)).kind).toBe('live');
    });
  });
}
