/**
 * The flow book on its own, against a small model: random sequences of the era-neutral events a
 * codec produces (host requests, server responses of every outcome, presented URL elicitations,
 * pending forms, answers, notices, consent, manual controls, expiry, new generations), with ids
 * reused across directions. The checks are computed from the rulings and the notes the book gives,
 * and from the model, never from the book's internals.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FlowBook, type FlowNote, type PresentedEvent } from '../../src/flow/book.js';
import { canTransition, type FlowState } from '../../src/flow/states.js';
import { parsePolicy } from '../../src/policy/policy.js';
import { GuardError } from '../../src/protocol/errors.js';
import { propertyParameters, timeoutFor } from '../properties/runs.js';

const MAX_PENDING = 6;
const TTL_MS = 10_000;
type Analysis = { display: null; findings: [] };

type Event =
  | { e: 'call'; op: number }
  | { e: 'ping' }
  | { e: 'respond'; pick: number; outcome: 'result' | 'error' | 'url-required' | 'task' }
  | { e: 'elicitUrl'; el: number; task: boolean }
  | { e: 'elicitForm' }
  | { e: 'serverReuse'; pick: number }
  | { e: 'answer'; pick: number; action: 'accept' | 'decline' | 'cancel' }
  | { e: 'notice'; el: number }
  | { e: 'consent'; el: number; decision: 'accept' | 'decline' | 'cancel' }
  | { e: 'control'; el: number; control: 'confirm' | 'retry' | 'cancel' }
  | { e: 'cancelled'; pick: number }
  | { e: 'clock'; ms: number }
  | { e: 'restart' };

const el = fc.nat({ max: 7 });
const event: fc.Arbitrary<Event> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ e: fc.constant('call' as const), op: fc.nat({ max: 3 }) }) },
  { weight: 1, arbitrary: fc.constant({ e: 'ping' as const }) },
  {
    weight: 4,
    arbitrary: fc.record({
      e: fc.constant('respond' as const),
      pick: fc.nat(),
      outcome: fc.constantFrom('result', 'result', 'error', 'url-required', 'task') as fc.Arbitrary<
        'result' | 'error' | 'url-required' | 'task'
      >,
    }),
  },
  { weight: 4, arbitrary: fc.record({ e: fc.constant('elicitUrl' as const), el, task: fc.boolean() }) },
  { weight: 2, arbitrary: fc.constant({ e: 'elicitForm' as const }) },
  { weight: 1, arbitrary: fc.record({ e: fc.constant('serverReuse' as const), pick: fc.nat() }) },
  {
    weight: 4,
    arbitrary: fc.record({
      e: fc.constant('answer' as const),
      pick: fc.nat(),
      action: fc.constantFrom('accept', 'accept', 'decline', 'cancel') as fc.Arbitrary<'accept' | 'decline' | 'cancel'>,
    }),
  },
  { weight: 4, arbitrary: fc.record({ e: fc.constant('notice' as const), el }) },
  {
    weight: 2,
    arbitrary: fc.record({
      e: fc.constant('consent' as const),
      el,
      decision: fc.constantFrom('accept', 'decline', 'cancel') as fc.Arbitrary<'accept' | 'decline' | 'cancel'>,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      e: fc.constant('control' as const),
      el,
      control: fc.constantFrom('confirm', 'retry', 'cancel') as fc.Arbitrary<'confirm' | 'retry' | 'cancel'>,
    }),
  },
  { weight: 1, arbitrary: fc.record({ e: fc.constant('cancelled' as const), pick: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({ e: fc.constant('clock' as const), ms: fc.oneof(fc.integer({ min: 1, max: 1000 }), fc.constant(TTL_MS)) }),
  },
  { weight: 1, arbitrary: fc.constant({ e: 'restart' as const }) },
);

/** What the model knows of a URL elicitation id: who presented it last, and what its notice may do. */
interface ModelFlow {
  requestId: number | null;
  generation: number;
  presentedAt: number;
  consented: boolean;
  done: boolean;
  /** The book no longer holds it: more than MAX_PENDING other ids were presented since (its table's cap). */
  forgotten?: boolean;
}

const reached = { accepts: 0, delivered: 0, refusals: 0, formAnswers: 0, urlRequired: 0, idInUse: 0 };

function run(events: readonly Event[]): string[] {
  const failures: string[] = [];
  const fail = (m: string) => void (failures.includes(m) || failures.push(m));
  let now = 1_000_000;
  let bytes = 0;
  const notes: FlowNote[] = [];
  const book = new FlowBook<Analysis>({
    policy: parsePolicy({ completion: { maxPending: MAX_PENDING, ttlSeconds: TTL_MS / 1000 }, retry: { maxRetries: 1 } }).base,
    deps: { clock: () => now, random: (n) => new Uint8Array(n).fill(++bytes % 251) },
    store: null,
    sessionId: 's',
    onWriteError: (error) => fail(`a write failed without a store: ${String(error)}`),
    onNote: (note) => notes.push(note),
  });
  book.restart();
  let generation = 1;
  let nextId = 1;
  const inFlight: { id: number; method: string; params: Record<string, unknown> }[] = [];
  const pendingServer: { id: number; form: boolean; el: string | null }[] = [];
  const answered = new Set<number>();
  const flows = new Map<string, ModelFlow>();
  // The ids in the order the book's flow table holds them (a presentation makes an id the newest;
  // past MAX_PENDING the oldest is forgotten, in every generation: a restart keeps the table).
  const held: string[] = [];
  const hold = (elicitationId: string) => {
    const at = held.indexOf(elicitationId);
    if (at >= 0) held.splice(at, 1);
    held.push(elicitationId);
    if (held.length > MAX_PENDING) {
      const oldest = flows.get(held.shift()!);
      if (oldest !== undefined) oldest.forgotten = true;
    }
  };
  const shown: Analysis = { display: null, findings: [] };
  const present = (elicitationId: string): PresentedEvent<Analysis> => ({
    elicitationId,
    url: 'https://accounts.google.com/',
    message: 'm',
    analysis: shown,
    server: { key: null, name: null, version: null },
    subject: null,
  });
  const guarded = (f: () => void) => {
    try {
      f();
    } catch (error) {
      if (!GuardError.is(error)) fail(`threw ${String(error)}`);
    }
  };
  for (const ev of events) {
    switch (ev.e) {
      case 'call':
      case 'ping': {
        const request =
          ev.e === 'call'
            ? { id: nextId++, method: 'tools/call', params: { name: 'op', arguments: { op: ev.op } } }
            : { id: nextId++, method: 'ping', params: {} };
        const ruling = book.hostRequest(request);
        if (ruling.ruling === 'pass') inFlight.push(request);
        else reached.refusals += 1;
        break;
      }
      case 'respond': {
        if (inFlight.length === 0) break;
        const [request] = inFlight.splice(ev.pick % inFlight.length, 1);
        const ruling = book.serverResponse(
          request!.id,
          ev.outcome,
          { jsonrpc: '2.0', id: request!.id, result: {} },
          ev.outcome === 'task' ? `t${request!.id}` : undefined,
        );
        if (ruling.ruling === 'accept') reached.accepts += 1;
        if (ruling.ruling === 'url-required') {
          reached.urlRequired += 1;
          const elicitationId = `r${request!.id}`;
          book.urlRequired(ruling.original, request!.id, [present(elicitationId)]);
          flows.set(elicitationId, { requestId: null, generation, presentedAt: now, consented: false, done: false });
          hold(elicitationId);
        }
        if (ev.outcome === 'task') book.taskStatus(`t${request!.id}`, 'completed');
        break;
      }
      case 'elicitUrl': {
        const id = nextId++;
        const elicitationId = `e${ev.el}`;
        const relatedTaskId = ev.task ? `t${inFlight[0]?.id ?? 0}` : undefined;
        if (book.serverRequest({ id, method: 'elicitation/create' }, null) === 'id-in-use') fail(`a fresh server id ${id} was in use`);
        // (recorded as a plain request first: `presented` records it as the URL elicitation it is)
        book.presented(id, { ...present(elicitationId), relatedTaskId });
        pendingServer.push({ id, form: false, el: elicitationId });
        // The same id again in this generation keeps whether it is done, unless the book forgot it.
        const known = flows.get(elicitationId);
        const sameGeneration = known !== undefined && known.generation === generation && known.forgotten !== true;
        flows.set(elicitationId, {
          requestId: id,
          generation,
          presentedAt: now,
          consented: false,
          done: sameGeneration ? known.done : false,
        });
        hold(elicitationId);
        break;
      }
      case 'elicitForm': {
        const id = nextId++;
        book.serverRequest({ id, method: 'elicitation/create' }, { mode: 'form', requestedSchema: { form: id }, elicitationId: null });
        pendingServer.push({ id, form: true, el: null });
        break;
      }
      case 'serverReuse': {
        if (pendingServer.length === 0) break;
        const { id } = pendingServer[ev.pick % pendingServer.length]!;
        if (book.serverRequest({ id, method: 'ping' }, null) !== 'id-in-use') fail(`a ping replaced the pending request ${id}`);
        else reached.idInUse += 1;
        break;
      }
      case 'answer': {
        if (pendingServer.length === 0) break;
        const [asked] = pendingServer.splice(ev.pick % pendingServer.length, 1);
        const ruling = book.answer(asked!.id, 'result', ev.action);
        answered.add(asked!.id);
        if (asked!.form) {
          if (ruling.ruling !== 'form' || (ruling.requestedSchema as { form: number }).form !== asked!.id)
            fail(`the answer to form ${asked!.id} was ruled ${JSON.stringify(ruling)}`);
          else reached.formAnswers += 1;
        } else if (ruling.ruling === 'form') fail(`a URL answer ${asked!.id} was checked as a form`);
        const model = asked!.el === null ? undefined : flows.get(asked!.el);
        if (model !== undefined && model.requestId === asked!.id && model.generation === generation && ruling.ruling !== 'override') {
          if (ev.action === 'accept') model.consented = true;
          else model.done = true;
        }
        if (book.answer(asked!.id, 'result', ev.action).ruling !== 'unmatched') fail(`a second answer to ${asked!.id} was matched`);
        break;
      }
      case 'notice': {
        const elicitationId = `e${ev.el}`;
        const ruling = book.notice(elicitationId);
        const model = flows.get(elicitationId);
        if (ruling.deliver) {
          reached.delivered += 1;
          if (
            model === undefined ||
            model.generation !== generation ||
            !model.consented ||
            model.done ||
            now >= model.presentedAt + TTL_MS
          ) {
            fail(`a notice for ${elicitationId} was delivered (model ${JSON.stringify(model)}, generation ${generation})`);
          }
          if (model !== undefined) model.done = true;
        }
        break;
      }
      case 'consent': {
        const elicitationId = `e${ev.el}`;
        const model = flows.get(elicitationId);
        book.consent(elicitationId, ev.decision).then(
          () => {
            if (model === undefined) return;
            if (ev.decision === 'accept') model.consented = true;
          },
          (error: unknown) => void (GuardError.is(error) || fail(`consent rejected with ${String(error)}`)),
        );
        // Declining is effective at once, whatever else happened (no notice after it).
        if (model !== undefined && ev.decision !== 'accept') model.done = true;
        break;
      }
      case 'control':
        guarded(() => {
          const elicitationId = `e${ev.el}`;
          book[ev.control](elicitationId);
          const model = flows.get(elicitationId);
          if (model !== undefined && ev.control === 'cancel') model.done = true;
        });
        break;
      case 'cancelled': {
        if (pendingServer.length === 0) break;
        const asked = pendingServer[ev.pick % pendingServer.length]!;
        book.serverCancelled(asked.id);
        const model = asked.el === null ? undefined : flows.get(asked.el);
        if (model !== undefined && model.requestId === asked.id) model.done = true;
        break;
      }
      case 'clock':
        now += ev.ms;
        book.expired();
        break;
      case 'restart':
        book.restart();
        generation += 1;
        inFlight.length = 0;
        pendingServer.length = 0;
        break;
    }
    if (book.pending().length > MAX_PENDING) fail(`${book.pending().length} pending flows, more than ${MAX_PENDING}`);
    if (book.counters.maxAcceptancesPerLineage > 1) fail('a lineage was accepted twice');
    if (book.counters.completionNoticesAdvancingUnknown !== 0) fail('a notice for an unknown id moved a flow');
  }
  // Every move is an edge of the table and starts where the last one ended.
  const at = new Map<string, FlowState>();
  const receipts = new Map<string, number>();
  for (const note of notes) {
    if ('navigationId' in note) {
      if (!canTransition(note.from, note.to, note.trigger)) fail(`${note.from} → ${note.to} on ${note.trigger} is not an edge`);
      if ((at.get(note.navigationId) ?? 'CREATED') !== note.from)
        fail(`navigation ${note.navigationId} moved from ${note.from}, but was in ${at.get(note.navigationId)}`);
      at.set(note.navigationId, note.to);
    } else if (note.receipt.schema === 'businessReceipt.v1') {
      const key = JSON.stringify(note.receipt.lineage);
      receipts.set(key, (receipts.get(key) ?? 0) + 1);
      if (receipts.get(key)! > 1) fail(`two business receipts for ${key}`);
    }
  }
  return failures;
}

describe('the flow book against its model', () => {
  it(
    'keeps every invariant on random event sequences',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(event, { minLength: 10, maxLength: 80, size: 'max' }), async (events) => {
          const failures = run(events);
          await new Promise((resolve) => setImmediate(resolve));
          expect(failures).toEqual([]);
        }),
        propertyParameters(300),
      );
    },
    timeoutFor(300),
  );

  it('reached the situations the checks are about', () => {
    for (const [situation, count] of Object.entries(reached)) expect(count, situation).toBeGreaterThan(0);
  });
});
