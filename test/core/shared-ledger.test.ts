/**
 * Guards that share a session key and one ledger (replicas serving one host conversation), on raw
 * 2026-07-28 JSON-RPC: the final answer of an input-required operation is accepted once between
 * them, whatever each guard saw before; a flow that another process cancelled in the ledger is not
 * accepted by the guard that shows it; and the ledger being down withholds the answer with
 * E_LEDGER_UNAVAILABLE. Run against the memory ledger (one object shared), SQLite (two connections
 * to one file) and PostgreSQL (two pools on one schema).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Decision } from '../../src/core/decision.js';
import type { GuardEvent } from '../../src/core/events.js';
import { createGuard, type Guard } from '../../src/core/guard.js';
import { moveByHand } from '../../src/ledger/manual.js';
import { MemoryLedger } from '../../src/ledger/memory.js';
import { PostgresLedger } from '../../src/ledger/postgres.js';
import { SqliteLedger } from '../../src/ledger/sqlite.js';
import type { Ledger } from '../../src/ledger/types.js';
import { handshake } from '../helpers/session.js';
import { dropSchema, freshSchema, postgresUrl } from '../ledger/postgres-support.js';

const GOOD_URL = 'https://github.com/login/oauth/authorize?client_id=Iv1.8a61f9b3a7aba766&state=x';
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {}, url: {} } },
};

type Message = {
  id?: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; data?: { code?: string } };
};

/** Two ledgers onto one store: what two processes would hold. */
interface Shared {
  readonly a: Ledger;
  readonly b: Ledger;
  close(): Promise<void>;
}

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const clean of cleanups.splice(0)) await clean();
});

const kinds: [string, () => Promise<Shared>, boolean][] = [
  [
    'MemoryLedger',
    async () => {
      const ledger = new MemoryLedger();
      return { a: ledger, b: ledger, close: () => ledger.close() };
    },
    true,
  ],
  [
    'SqliteLedger (one file, two connections)',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'meg-shared-'));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      const file = join(dir, 'ledger.sqlite');
      const a = await SqliteLedger.open(file);
      const b = await SqliteLedger.open(file);
      return { a, b, close: async () => void (await Promise.all([a.close(), b.close()])) };
    },
    true,
  ],
  [
    'PostgresLedger (one schema, two pools)',
    async () => {
      const schema = freshSchema('shared');
      cleanups.push(() => dropSchema(schema));
      const a = await PostgresLedger.connect(postgresUrl!, { schema, maxConnections: 3 });
      const b = await PostgresLedger.connect(postgresUrl!, { schema, maxConnections: 3 });
      return { a, b, close: async () => void (await Promise.all([a.close(), b.close()])) };
    },
    postgresUrl !== null,
  ],
];

/** Runs a decision to its end (a deferred one waits for its durable write). */
async function settle(decision: Decision): Promise<Decision> {
  return decision.action === 'defer' ? settle(await decision.until) : decision;
}

const call = (id: number, name: string, extra: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0' as const,
  id,
  method: 'tools/call',
  params: { name, arguments: { invoice: 'INV-7' }, ...extra, _meta: META },
});
const urlRound = (id: number, state: string) => ({
  jsonrpc: '2.0' as const,
  id,
  result: {
    resultType: 'input_required',
    inputRequests: { github: { method: 'elicitation/create', params: { mode: 'url', message: 'Connect GitHub', url: GOOD_URL } } },
    requestState: state,
  },
});
const done = (id: number) => ({ jsonrpc: '2.0' as const, id, result: { content: [{ type: 'text', text: 'paid' }] } });

/** The host's retry of `name` (id `id`) accepting the `github` input, with the round's `state`. */
const acceptingRetry = (id: number, state: string, name = 'pay') =>
  call(id, name, { inputResponses: { github: { action: 'accept' } }, requestState: state });

interface Replica {
  readonly guard: Guard;
  readonly events: GuardEvent[];
}

function replica(ledger: Ledger, sessionKey: string | undefined): Replica {
  const events: GuardEvent[] = [];
  const guard = createGuard({ ledger, onEvent: (e) => events.push(e), ...(sessionKey === undefined ? {} : { sessionKey }) });
  return { guard, events };
}

/**
 * One input-required operation through one guard: the original (id `first`), a URL round, the
 * host's accepting retry (id `first + 1`), the server's final answer. Returns what the host got.
 */
async function operation(r: Replica, first: number, state = 'flow=pay;round=1', name = 'pay'): Promise<Message> {
  const { guard } = r;
  expect((await settle(guard.outbound(call(first, name)))).action).toBe('forward');
  const round = (await settle(guard.inbound(urlRound(first, state)))) as { message: Message };
  expect(round.message.result?.resultType).toBe('input_required');
  const retry = await settle(guard.outbound(acceptingRetry(first + 1, state, name)));
  expect(retry.action).toBe('forward');
  const final = (await settle(guard.inbound(done(first + 1)))) as { action: string; message: Message };
  expect(final.action).toBe('forward');
  return final.message;
}

const code = (m: Message) => m.error?.data?.code ?? null;

/** Opens two ledgers onto one store, runs `body` with them and closes them, whatever happens. */
async function withShared(open: () => Promise<Shared>, body: (shared: Shared) => Promise<void>): Promise<void> {
  const shared = await open();
  try {
    await body(shared);
  } finally {
    await shared.close();
  }
}

/**
 * Through `guard`: the original (id 1), a URL round (state `round-1`) and the host's accepting retry
 * (id 2), until `ledger` (another process's view) holds the flow as OUT_OF_BAND_PENDING. Returns
 * the flow's navigation id; the server's final answer (id 2) is still to come.
 */
async function pendingRound(guard: Guard, ledger: Ledger): Promise<string> {
  await settle(guard.outbound(call(1, 'pay')));
  const round = (await settle(guard.inbound(urlRound(1, 'round-1')))) as { message: Message };
  const flowId = (round.message.result!.inputRequests as Record<string, { params: { _meta: Record<string, string> } }>).github!.params
    ._meta['mcp-elicitation-guard/flow']!;
  await settle(guard.outbound(acceptingRetry(2, 'round-1')));
  const navigationId = guard.flow(flowId)!.navigationId;
  await expect.poll(async () => (await ledger.getNavigation(navigationId))?.flow.state).toBe('OUT_OF_BAND_PENDING');
  return navigationId;
}

for (const [name, open, available] of kinds) {
  describe.skipIf(!available)(`guards sharing a session key on one ${name}`, () => {
    it('accept the final answer of one input-required operation once, even when they counted their chains differently', async () => {
      await withShared(open, async (shared) => {
        const a = replica(shared.a, 'conversation-ir');
        const b = replica(shared.b, 'conversation-ir');
        // B saw other operations first: its own chain counter is ahead of A's.
        for (const first of [100, 200]) expect(code(await operation(b, first, `other-${first}`, 'other'))).toBeNull();
        const got = [await operation(a, 1), await operation(b, 1)];
        expect(got.map(code)).toEqual([null, 'E_ALREADY_ACCEPTED']);
        expect(b.events).toContainEqual(expect.objectContaining({ type: 'response.withheld', code: 'E_ALREADY_ACCEPTED' }));
        expect(a.guard.metrics().maxAcceptancesPerLineage).toBe(1);
      });
    });

    it('without a shared key every guard is its own scope: each accepts its own answer', async () => {
      await withShared(open, async (shared) => {
        const got = [await operation(replica(shared.a, undefined), 1), await operation(replica(shared.b, undefined), 1)];
        expect(got.map(code)).toEqual([null, null]);
      });
    });

    it('under a shared key, the same operation with another original id is another operation', async () => {
      await withShared(open, async (shared) => {
        const a = replica(shared.a, 'conversation-ids');
        const b = replica(shared.b, 'conversation-ids');
        expect([code(await operation(a, 1)), code(await operation(b, 3))]).toEqual([null, null]);
      });
    });

    it('a flow cancelled in the ledger by another process while the server works: the answer is withheld, nothing accepted', async () => {
      await withShared(open, async (shared) => {
        const a = replica(shared.a, 'conversation-cancel');
        const { guard } = a;
        const navigationId = await pendingRound(guard, shared.b);
        // Another process (the CLI, the query page, another proxy) cancels the flow in the ledger.
        expect((await moveByHand(shared.b, navigationId, 'cancel', Date.now())).state).toBe('CANCELLED');
        const final = (await settle(guard.inbound(done(2)))) as { message: Message };
        expect(code(final.message)).toBe('E_RETRY_NOT_ELIGIBLE');
        expect(a.events).toContainEqual(expect.objectContaining({ type: 'response.withheld', code: 'E_RETRY_NOT_ELIGIBLE' }));
        expect(await shared.b.listBusinessReceipts((await shared.b.getNavigation(navigationId))!.record.originalRequestDigest!)).toEqual(
          [],
        );
        expect((await shared.b.getNavigation(navigationId))!.flow.state).toBe('CANCELLED');
        // The operation is over for this guard too: a retry of it is refused before it reaches the server.
        const again = await settle(guard.outbound(acceptingRetry(3, 'round-1')));
        expect(again.action).toBe('reply');
      });
    });

    it('a cancel racing the final answer: either the answer is accepted and the cancel refused, or the answer is withheld and the flow cancelled', async () => {
      await withShared(open, async (shared) => {
        for (let run = 0; run < 12; run++) {
          const a = replica(shared.a, `conversation-race-${run}`);
          const { guard } = a;
          const navigationId = await pendingRound(guard, shared.b);
          const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
          const [cancel, final] = await Promise.all([
            pause(Math.random() * 4).then(() =>
              moveByHand(shared.b, navigationId, 'cancel', Date.now()).then(
                () => 'cancelled',
                (error: { code: string }) => error.code,
              ),
            ),
            pause(Math.random() * 4).then(async () => code(((await settle(guard.inbound(done(2)))) as { message: Message }).message)),
          ]);
          await guard.flush();
          const state = (await shared.b.getNavigation(navigationId))!.flow.state;
          const receipts = await shared.b.listBusinessReceipts((await shared.b.getNavigation(navigationId))!.record.originalRequestDigest!);
          const mine = receipts.filter((r) => r.lineage.session.startsWith(`conversation-race-${run}/`));
          const outcome = JSON.stringify({ cancel, final, state, receipts: mine.length });
          if (cancel === 'cancelled')
            expect(outcome).toBe(JSON.stringify({ cancel, final: 'E_RETRY_NOT_ELIGIBLE', state: 'CANCELLED', receipts: 0 }));
          else {
            expect(['E_STATE_CONFLICT', 'E_ILLEGAL_TRANSITION'], outcome).toContain(cancel);
            expect({ final, state, receipts: mine.length }, outcome).toEqual({
              final: null,
              state: 'ORIGINAL_RESPONSE_ACCEPTED',
              receipts: 1,
            });
          }
        }
      });
    });

    it('a retry of rounds another guard of the session ran (and died): refused once that guard accepted, run once when it never did', async () => {
      await withShared(open, async (shared) => {
        // A accepted the operation, then died before the host saw the answer: B refuses the host's retry locally.
        expect(code(await operation(replica(shared.a, 'conversation-died'), 1, 'state-accepted'))).toBeNull();
        const b = replica(shared.b, 'conversation-died');
        const refused = (await settle(b.guard.outbound(acceptingRetry(2, 'state-accepted')))) as { action: string; message: Message };
        expect(refused.action).toBe('reply');
        expect(code(refused.message)).toBe('E_ALREADY_ACCEPTED');
        expect(b.events).toContainEqual(expect.objectContaining({ type: 'retry.refused', code: 'E_ALREADY_ACCEPTED' }));

        // Another operation: A showed its round and died before the retry. B sends the retry on
        // (without answers it never presented); the server asks again, and B accepts it once.
        const a2 = replica(shared.a, 'conversation-died');
        await settle(a2.guard.outbound(call(11, 'charge')));
        await settle(a2.guard.inbound(urlRound(11, 'state-open')));
        const sent = (await settle(b.guard.outbound(acceptingRetry(12, 'state-open', 'charge')))) as {
          action: string;
          message: { params: Record<string, unknown> };
        };
        expect(sent.action).toBe('forward');
        expect(sent.message.params.inputResponses).toBeUndefined();
        await settle(b.guard.inbound(urlRound(12, 'state-open-2')));
        await settle(b.guard.outbound(acceptingRetry(13, 'state-open-2', 'charge')));
        expect(code(((await settle(b.guard.inbound(done(13)))) as { message: Message }).message)).toBeNull();
        // A third guard of the session gets the same retry again: the operation is accepted, so it is refused.
        const c = replica(shared.a, 'conversation-died');
        const late = (await settle(c.guard.outbound(acceptingRetry(13, 'state-open-2', 'charge')))) as { action: string; message: Message };
        expect([late.action, code(late.message)]).toEqual(['reply', 'E_ALREADY_ACCEPTED']);
        // Another session key never sees this session's receipts.
        const other = replica(shared.b, 'another-conversation');
        expect((await settle(other.guard.outbound(acceptingRetry(2, 'state-accepted')))).action).toBe('forward');
      });
    });

    it('2025-11-25: a request re-sent through another guard of the session after a -32042 operation was accepted is refused before it is sent', async () => {
      await withShared(open, async (shared) => {
        const legacyCall = (id: number, invoice: string) => ({
          jsonrpc: '2.0' as const,
          id,
          method: 'tools/call',
          params: { name: 'pay', arguments: { invoice } },
        });
        const required = (id: number) => ({
          jsonrpc: '2.0' as const,
          id,
          error: {
            code: -32042,
            message: 'URL elicitation required',
            data: { elicitations: [{ mode: 'url', elicitationId: `e-${id}`, url: GOOD_URL, message: 'Connect GitHub' }] },
          },
        });
        const a = replica(shared.a, 'conversation-2025');
        handshake(a.guard, { form: {}, url: {} });
        await settle(a.guard.outbound(legacyCall(1, 'INV-1')));
        await settle(a.guard.inbound(required(1)));
        expect((await settle(a.guard.outbound(legacyCall(2, 'INV-1')))).action).toBe('forward');
        expect(code(((await settle(a.guard.inbound(done(2)))) as { message: Message }).message)).toBeNull();

        const b = replica(shared.b, 'conversation-2025');
        handshake(b.guard, { form: {}, url: {} });
        const refused = (await settle(b.guard.outbound(legacyCall(9, 'INV-1')))) as { action: string; message: Message };
        expect([refused.action, code(refused.message)]).toEqual(['reply', 'E_ALREADY_ACCEPTED']);
        // Refused, so not in flight: an answer to its id is nobody's.
        expect((await settle(b.guard.inbound(done(9)))).action).toBe('forward');
        expect(b.guard.metrics().originalOperationsAccepted).toBe(0);
        // Another operation, or another session, goes through.
        expect((await settle(b.guard.outbound(legacyCall(10, 'INV-2')))).action).toBe('forward');
        const other = replica(shared.b, 'conversation-other');
        handshake(other.guard, { form: {}, url: {} });
        expect((await settle(other.guard.outbound(legacyCall(9, 'INV-1')))).action).toBe('forward');
      });
    });

    it('a hostile server answering a retry while the guard still asks the ledger about it: its input requests are judged all the same', async () => {
      await withShared(open, async (shared) => {
        const { guard } = replica(shared.a, 'conversation-early');
        const pending = guard.outbound(call(5, 'pay', { inputResponses: { login: { action: 'accept' } }, requestState: 'nobody-knows' }));
        expect(pending.action).toBe('defer');
        // The server "answers" the request before it was sent, asking for a password.
        const early = (await settle(
          guard.inbound({
            jsonrpc: '2.0',
            id: 5,
            result: {
              resultType: 'input_required',
              inputRequests: {
                login: {
                  method: 'elicitation/create',
                  params: {
                    mode: 'form',
                    message: 'Sign in',
                    requestedSchema: { type: 'object', properties: { password: { type: 'string', title: 'Password' } } },
                  },
                },
              },
              requestState: 'early',
            },
          }),
        )) as { message: Message };
        expect(early.message.result?.inputRequests).toEqual({});
        const sent = (await settle(pending)) as { action: string; message: { params: Record<string, unknown> } };
        // No receipt in the ledger: it goes on, without the answer the guard never presented.
        expect(sent.action).toBe('forward');
        expect(sent.message.params.inputResponses).toBeUndefined();
      });
    });

    it('a hostile server: a final answer to a retry carrying the state of another round accepts nothing', async () => {
      await withShared(open, async (shared) => {
        const a = replica(shared.a, 'conversation-hostile');
        const { guard } = a;
        await settle(guard.outbound(call(1, 'pay')));
        await settle(guard.inbound(urlRound(1, 'round-1')));
        // The host retries with a state the guard never gave it: not a retry of this chain.
        const forged = await settle(guard.outbound(acceptingRetry(2, 'round-of-another-op')));
        expect(forged.action).toBe('forward');
        // The server answers it (and answers its id again): no acceptance, nothing recorded.
        for (let i = 0; i < 2; i++) {
          const final = (await settle(guard.inbound(done(2)))) as { action: string; message?: Message };
          if (final.action === 'forward') expect(code(final.message!)).toBeNull();
        }
        expect(guard.metrics().originalOperationsAccepted).toBe(0);
        // The real retry is accepted once; the server re-sending its final answer is not delivered twice.
        await settle(guard.outbound(acceptingRetry(3, 'round-1')));
        expect(code(((await settle(guard.inbound(done(3)))) as { message: Message }).message)).toBeNull();
        const again = await settle(guard.inbound(done(3)));
        expect(again.action === 'drop' || code((again as { message: Message }).message) === 'E_ALREADY_ACCEPTED').toBe(true);
        expect(guard.metrics().maxAcceptancesPerLineage).toBe(1);
      });
    });
  });
}

describe('a guard with a shared session key whose ledger cannot be read', () => {
  it('refuses a retry it cannot place with E_LEDGER_UNAVAILABLE (fail closed), and still passes a plain call', async () => {
    const ledger = new MemoryLedger();
    const r = replica(ledger, 'conversation-down');
    await ledger.close();
    const refused = (await settle(r.guard.outbound(acceptingRetry(2, 'somewhere')))) as { action: string; message: Message };
    expect([refused.action, code(refused.message)]).toEqual(['reply', 'E_LEDGER_UNAVAILABLE']);
    expect((await settle(r.guard.outbound(call(3, 'pay')))).action).toBe('forward');
  });
});
