/**
 * Random interleavings of both lineages through one guard, as plain JSON-RPC: host requests,
 * `-32042` answers, nested URL `elicitation/create`, accept / decline / cancel, completion notices,
 * duplicated, reordered and lost messages on both links, retries with the same digest,
 * re-initialisation, clock jumps past expiry and the manual flow controls.
 *
 * A small server model decides what the server answers; the checks are computed from what the
 * host and the server saw, never from the guard's internals.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GuardEvent } from '../../src/core/events.js';
import type { Decision } from '../../src/core/decision.js';
import { createGuard, type Guard } from '../../src/core/guard.js';
import { FLOW_STATES } from '../../src/flow/states.js';
import { GuardError } from '../../src/protocol/errors.js';
import { DESIGNED_TRIGGERS } from '../flow/support.js';
import { benignSchema, handshake, passwordSchema } from '../helpers/session.js';
import { propertyParameters, timeoutFor } from './runs.js';

const TTL_MS = 60_000;
const GOOD_URL = 'https://accounts.google.com/o/oauth2/v2/auth?client_id=123.apps.googleusercontent.com&response_type=code&scope=openid';
const BLOCKED_URL = 'http://192.168.0.1/pay';
const URL_META = 'mcp-elicitation-guard/url-analysis';
const FORM_META = 'mcp-elicitation-guard/form-audit';
const RETRY_CODES = ['E_RETRY_WHILE_IN_FLIGHT', 'E_RETRY_EXHAUSTED', 'E_RETRY_NOT_ELIGIBLE'];

type Id = string | number;
type Msg = Record<string, any>;
type Kind = 'nested' | 'error' | 'plain';

// ------------------------------------------------------------------ the scenario language

type Step =
  | { readonly t: 'call'; readonly kind: Kind; readonly blocked: boolean }
  | { readonly t: 'retry'; readonly pick: number }
  | { readonly t: 'toServer'; readonly pick: number; readonly mode: 'deliver' | 'duplicate' | 'lose' }
  | { readonly t: 'toHost'; readonly pick: number; readonly mode: 'deliver' | 'duplicate' | 'lose' }
  | { readonly t: 'serverAnswer'; readonly pick: number; readonly force: boolean }
  | { readonly t: 'serverComplete'; readonly pick: number; readonly any: boolean }
  | { readonly t: 'serverGhostNotice'; readonly n: number }
  | { readonly t: 'serverCancel'; readonly pick: number }
  | { readonly t: 'serverForm'; readonly sensitive: boolean }
  | { readonly t: 'hostAnswer'; readonly pick: number; readonly action: 'accept' | 'decline' | 'cancel' }
  | { readonly t: 'control'; readonly pick: number; readonly control: 'confirm' | 'retry' | 'cancel' | 'accept' | 'decline' | 'dismiss' }
  | { readonly t: 'flush' }
  | { readonly t: 'clock'; readonly ms: number }
  | { readonly t: 'reconnect' };

const pick = fc.nat({ max: 15 });
const link = fc.constantFrom('deliver', 'deliver', 'deliver', 'duplicate', 'lose') as fc.Arbitrary<'deliver' | 'duplicate' | 'lose'>;
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      t: fc.constant('call' as const),
      kind: fc.constantFrom<Kind>('nested', 'nested', 'error', 'error', 'plain'),
      blocked: fc.boolean(),
    }),
  },
  { weight: 4, arbitrary: fc.record({ t: fc.constant('retry' as const), pick }) },
  { weight: 8, arbitrary: fc.record({ t: fc.constant('toServer' as const), pick, mode: link }) },
  { weight: 8, arbitrary: fc.record({ t: fc.constant('toHost' as const), pick, mode: link }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('serverAnswer' as const), pick, force: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('serverComplete' as const), pick, any: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('serverGhostNotice' as const), n: fc.nat({ max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('serverCancel' as const), pick }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('serverForm' as const), sensitive: fc.boolean() }) },
  {
    weight: 4,
    arbitrary: fc.record({
      t: fc.constant('hostAnswer' as const),
      pick,
      action: fc.constantFrom('accept', 'accept', 'decline', 'cancel') as fc.Arbitrary<'accept' | 'decline' | 'cancel'>,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant('control' as const),
      pick,
      control: fc.constantFrom('confirm', 'retry', 'cancel', 'accept', 'decline', 'dismiss') as fc.Arbitrary<
        'confirm' | 'retry' | 'cancel' | 'accept' | 'decline' | 'dismiss'
      >,
    }),
  },
  { weight: 8, arbitrary: fc.constant({ t: 'flush' as const }) },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant('clock' as const),
      ms: fc.oneof(fc.integer({ min: 1, max: 5_000 }), fc.integer({ min: TTL_MS, max: 2 * TTL_MS })),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ t: 'reconnect' as const }) },
);
const scenario = fc.record({ maxRetries: fc.constantFrom(1, 2), steps: fc.array(step, { minLength: 10, maxLength: 60, size: 'max' }) });

// ------------------------------------------------------------------ the world

/** One original operation as the host sees it: the original request and the retries of its lineage. */
interface Op {
  readonly base: number;
  readonly ids: Id[];
  finalResults: number;
  receipts: number;
}

/** A `-32042` the guard checked and passed on: the host may retry its original within the time to live. */
interface Requirement {
  readonly base: number;
  readonly op: Op;
  readonly elicitationIds: readonly string[];
  readonly createdAt: number;
  readonly generation: number;
  refused: boolean;
}

/** What the host was told about an elicitation id, for the completion check. */
interface KnownId {
  readonly generation: number;
  readonly registeredAt: number;
  state: 'pending' | 'delivered' | 'finished';
}

interface ServerElicitation {
  readonly id: string;
  readonly base: number;
  state: 'issued' | 'accepted' | 'refused' | 'done';
}

/** Counts over all runs: the checks prove little unless the runs reach these situations. */
const reached = {
  receipts: 0,
  deliveredCompletions: 0,
  droppedCompletions: 0,
  refusedRetries: new Set<string>(),
  withheld: 0,
  staleDrops: 0,
  guardErrors: 0,
  errorRequirements: 0,
  nestedBound: 0,
};

class World {
  now = 1_800_000_000_000;
  generation = 1;
  readonly events: GuardEvent[] = [];
  readonly guard: Guard;
  readonly failures: string[] = [];
  readonly asyncControls: Promise<void>[] = [];

  // host side
  readonly bases: { kind: Kind; blocked: boolean }[] = [];
  readonly ops: Op[] = [];
  readonly opOf = new Map<Id, Op>();
  readonly baseOf = new Map<Id, number>();
  readonly latestOp = new Map<number, Op>();
  readonly hostWaiting = new Set<Id>();
  readonly hostElicitations: { serverId: Id; mode: 'form' | 'url'; elicitationId: string | null }[] = [];
  readonly seenElicitationIds: string[] = [];
  nextHostId = 100;

  // the model of what the guard must know (computed from the wire, not from the guard)
  readonly inFlight = new Set<Id>();
  readonly boundNested = new Map<Id, number>();
  readonly currentRequirement = new Map<number, Requirement>();
  readonly requirements: Requirement[] = [];
  readonly known = new Map<string, KnownId>();
  readonly openServerElicitations = new Map<Id, string | null>();

  // server side and the two links
  readonly toServer: Msg[] = [];
  readonly toHost: Msg[] = [];
  readonly serverElicitations = new Map<string, ServerElicitation>();
  readonly serverCreates = new Map<Id, string>();
  readonly nestedWaiting = new Map<Id, { base: number; elicitationId: string; answered: boolean }>();
  readonly requirementDone = new Set<number>();
  nextServerId = 0;
  nextElicitationId = 0;

  constructor(maxRetries: number) {
    this.guard = createGuard({
      clock: () => this.now,
      policy: { completion: { ttlSeconds: TTL_MS / 1000 }, retry: { maxRetries } },
      onEvent: (event) => this.events.push(event),
    });
    handshake(this.guard, { form: {}, url: {} });
  }

  fail(message: string): void {
    if (!this.failures.includes(message)) this.failures.push(message);
  }

  // ---------------------------------------------------------------- through the guard

  #judge(direction: 'inbound' | 'outbound', message: Msg): Decision {
    let decision: Decision;
    try {
      decision = direction === 'inbound' ? this.guard.inbound(message) : this.guard.outbound(message);
    } catch (error) {
      this.fail(`${direction} threw ${String(error)}`);
      throw error;
    }
    this.#checkShape(decision);
    return decision;
  }

  #checkShape(decision: Decision): void {
    const keys = Object.keys(decision).sort().join(',');
    const expected =
      decision.action === 'drop' ? 'action,events' : decision.action === 'defer' ? 'action,events,until' : 'action,events,message';
    if (!['forward', 'reply', 'drop', 'defer'].includes(decision.action) || keys !== expected)
      this.fail(`decision has the shape ${decision.action}:{${keys}}`);
    // Without a ledger nothing waits for a durable write.
    if (decision.action === 'defer') this.fail('a decision was deferred without a ledger');
    if (!Array.isArray(decision.events)) this.fail('decision.events is not an array');
    for (const event of decision.events) {
      if (
        typeof event.type !== 'string' ||
        typeof event.at !== 'number' ||
        typeof event.generation !== 'number' ||
        typeof event.server !== 'object'
      )
        this.fail(`malformed event ${JSON.stringify(event)}`);
    }
    if (
      (decision.action === 'forward' || decision.action === 'reply') &&
      (typeof decision.message !== 'object' || decision.message === null || (decision.message as Msg).jsonrpc !== '2.0')
    ) {
      this.fail(`decision message is not JSON-RPC 2.0: ${JSON.stringify(decision.message)}`);
    }
  }

  // ---------------------------------------------------------------- host

  hostSend(request: Msg, op: Op, base: number): void {
    const id = request.id as Id;
    this.opOf.set(id, op);
    this.baseOf.set(id, base);
    op.ids.push(id);
    this.hostWaiting.add(id);
    const requirement = this.currentRequirement.get(base);
    const refusedLineage = requirement !== undefined && requirement.refused && this.#alive(requirement);
    const nestedInFlight = [...this.boundNested].some(([original, b]) => b === base && this.inFlight.has(original));
    const decision = this.#judge('outbound', request);
    if (decision.action === 'forward') {
      if (refusedLineage) this.fail(`retry ${id} reached the server after the user declined or cancelled its URL elicitation`);
      if (nestedInFlight) this.fail(`retry ${id} reached the server while its nested original was in flight`);
      this.inFlight.add(id);
      this.toServer.push(decision.message as Msg);
    } else if (decision.action === 'reply') {
      const code = (decision.message as Msg).error?.data?.code;
      if (!RETRY_CODES.includes(code)) this.fail(`a host request was answered locally with ${JSON.stringify(decision.message)}`);
      reached.refusedRetries.add(code);
      this.#hostReceivesResponse(decision.message as Msg);
    } else {
      this.fail(`a host request was ${decision.action}ped`);
    }
  }

  call(kind: Kind, blocked: boolean): void {
    const base = this.bases.length;
    this.bases.push({ kind, blocked });
    this.#newRequest(base);
  }

  #newRequest(base: number): void {
    const op: Op = { base, ids: [], finalResults: 0, receipts: 0 };
    this.ops.push(op);
    this.latestOp.set(base, op);
    this.hostSend(this.#request(base), op, base);
  }

  #request(base: number): Msg {
    return { jsonrpc: '2.0', id: this.nextHostId++, method: 'tools/call', params: { name: 'operate', arguments: { base } } };
  }

  /** The host sends an operation again with the same digest. */
  retry(n: number): void {
    if (this.bases.length === 0) return;
    // Mostly the host retries what a -32042 asked it to, sometimes anything it sent before.
    const required = [...this.currentRequirement.values()].filter((r) => this.#alive(r)).map((r) => r.base);
    const base = n % 3 !== 0 && required.length > 0 ? required[n % required.length]! : n % this.bases.length;
    const requirement = this.currentRequirement.get(base);
    // Within the lineage's life a request with the same digest is a retry of the same operation;
    // after it (expired, or another session) it is a new operation as far as anyone can tell.
    if (requirement !== undefined && this.#alive(requirement)) this.hostSend(this.#request(base), requirement.op, base);
    else this.#newRequest(base);
  }

  #alive(requirement: Requirement): boolean {
    return requirement.generation === this.generation && this.now < requirement.createdAt + TTL_MS;
  }

  #hostReceivesResponse(message: Msg): void {
    const id = message.id as Id;
    if (!this.hostWaiting.has(id)) return;
    // A JSON-RPC client matches answers to requests it is waiting for; anything else it discards.
    this.hostWaiting.delete(id);
    const op = this.opOf.get(id);
    if (op !== undefined && 'result' in message) op.finalResults += 1;
  }

  hostAnswer(n: number, action: 'accept' | 'decline' | 'cancel'): void {
    if (this.hostElicitations.length === 0) return;
    const [asked] = this.hostElicitations.splice(n % this.hostElicitations.length, 1);
    if (asked === undefined) return;
    const result: Msg = action === 'accept' && asked.mode === 'form' ? { action, content: { name: 'demo' } } : { action };
    if (this.openServerElicitations.has(asked.serverId)) {
      const elicitationId = this.openServerElicitations.get(asked.serverId) ?? null;
      this.openServerElicitations.delete(asked.serverId);
      if (elicitationId !== null && action !== 'accept') this.#finish(elicitationId);
    }
    const decision = this.#judge('outbound', { jsonrpc: '2.0', id: asked.serverId, result });
    if (decision.action !== 'forward') this.fail(`the host's answer to ${asked.serverId} was not forwarded`);
    else this.toServer.push(decision.message as Msg);
  }

  #finish(elicitationId: string): void {
    const known = this.known.get(elicitationId);
    if (known !== undefined && known.state === 'pending') known.state = 'finished';
  }

  /** The manual controls a host UI offers; a refused move is a GuardError, anything else is a bug. */
  control(n: number, control: 'confirm' | 'retry' | 'cancel' | 'accept' | 'decline' | 'dismiss'): void {
    // The controls are for flows the host no longer answers on the wire (-32042 entries, answered
    // elicitations): a host that cancels a flow and then answers its question anyway is not modelled.
    const open = new Set(this.hostElicitations.map((e) => e.elicitationId));
    const ids = [...this.seenElicitationIds.filter((id) => !open.has(id)), 'never-issued'];
    const id = ids[n % ids.length]!;
    try {
      switch (control) {
        case 'confirm':
          this.guard.confirmFlow(id);
          break;
        case 'retry':
          this.guard.retryFlow(id);
          break;
        case 'cancel':
          this.guard.cancelFlow(id);
          break;
        case 'accept':
        case 'decline':
        case 'dismiss': {
          const decision = control === 'dismiss' ? 'cancel' : control;
          this.asyncControls.push(
            this.guard.recordConsent(id, decision).then(
              () => undefined,
              (error: unknown) => {
                if (!GuardError.is(error)) this.fail(`recordConsent failed with ${String(error)}`);
                else reached.guardErrors += 1;
              },
            ),
          );
          break;
        }
      }
    } catch (error) {
      if (!GuardError.is(error)) {
        this.fail(`${control}Flow threw ${String(error)}`);
        return;
      }
      reached.guardErrors += 1;
    }
    const state = this.guard.flow(id)?.state;
    if (state === 'DECLINED' || state === 'CANCELLED') {
      for (const requirement of this.requirements) if (requirement.elicitationIds.includes(id)) requirement.refused = true;
    }
  }

  reconnect(): void {
    handshake(this.guard, { form: {}, url: {} });
    this.generation += 1;
    // A reconnected client forgets what it waited for; the new session starts clean.
    this.hostWaiting.clear();
    this.inFlight.clear();
    this.boundNested.clear();
    this.openServerElicitations.clear();
    this.hostElicitations.length = 0;
    if (this.guard.session().generation !== this.generation)
      this.fail(`generation ${this.guard.session().generation}, expected ${this.generation}`);
  }

  // ---------------------------------------------------------------- the links

  deliverToServer(n: number, mode: 'deliver' | 'duplicate' | 'lose'): void {
    const message = this.#take(this.toServer, n, mode);
    if (message !== undefined) this.#serverReceives(message);
  }

  /** Both links deliver everything in order until nothing is left in flight. */
  flush(): void {
    for (let rounds = 0; rounds < 20 && (this.toServer.length > 0 || this.toHost.length > 0); rounds++) {
      while (this.toServer.length > 0) this.deliverToServer(0, 'deliver');
      while (this.toHost.length > 0) {
        const next = this.toHost[0]!;
        if (next.method === 'notifications/cancelled') this.onCancelledDelivered(next);
        this.deliverToHost(0, 'deliver');
      }
    }
  }

  deliverToHost(n: number, mode: 'deliver' | 'duplicate' | 'lose'): void {
    const message = this.#take(this.toHost, n, mode);
    if (message !== undefined) this.#throughGuardToHost(message);
  }

  #take(queue: Msg[], n: number, mode: 'deliver' | 'duplicate' | 'lose'): Msg | undefined {
    if (queue.length === 0) return undefined;
    const index = n % queue.length;
    const message = queue[index]!;
    if (mode !== 'duplicate') queue.splice(index, 1);
    return mode === 'lose' ? undefined : structuredClone(message);
  }

  #throughGuardToHost(message: Msg): void {
    const isResponse = !('method' in message) && message.id !== undefined && message.id !== null;
    const answersInFlight = isResponse && this.inFlight.has(message.id);
    if (answersInFlight) this.inFlight.delete(message.id);
    const decision = this.#judge('inbound', message);
    for (const event of decision.events) this.#onDecisionEvent(event);
    if (decision.action === 'reply') {
      this.toServer.push(decision.message as Msg);
      return;
    }
    if (decision.action !== 'forward') {
      if (message.method === 'notifications/elicitation/complete') reached.droppedCompletions += 1;
      return;
    }
    const out = decision.message as Msg;
    if (out.method === 'elicitation/create') this.#hostGetsElicitation(out);
    else if (out.method === 'notifications/elicitation/complete') this.#hostGetsCompletion(out);
    else if (!('method' in out)) {
      if (answersInFlight && out.error?.code === -32042) this.#hostGetsRequirement(out, message.id as Id);
      this.#hostReceivesResponse(out);
    }
  }

  #onDecisionEvent(event: GuardEvent): void {
    if (event.type === 'response.withheld') reached.withheld += 1;
    if (event.type === 'completion.dropped' && event.reason === 'stale') reached.staleDrops += 1;
  }

  #register(elicitationId: string): void {
    if (!this.known.has(elicitationId))
      this.known.set(elicitationId, { generation: this.generation, registeredAt: this.now, state: 'pending' });
    if (!this.seenElicitationIds.includes(elicitationId)) this.seenElicitationIds.push(elicitationId);
  }

  #hostGetsElicitation(request: Msg): void {
    const params = request.params ?? {};
    const mode = params.mode === 'url' ? 'url' : 'form';
    if (params._meta?.[mode === 'url' ? URL_META : FORM_META] === undefined)
      this.fail(`an ${mode}-mode elicitation reached the host without the guard's judgement`);
    const elicitationId = mode === 'url' ? (params.elicitationId as string) : null;
    if (elicitationId !== null) {
      this.#register(elicitationId);
      // The guard binds a nested elicitation to the one request in flight, and only then.
      if (this.inFlight.size === 1) {
        const [original] = this.inFlight;
        if (this.guard.flow(elicitationId)?.lineage !== 'nested')
          this.fail(`elicitation ${elicitationId} was not bound to the one request in flight`);
        this.boundNested.set(original!, this.baseOf.get(original!)!);
        reached.nestedBound += 1;
      }
    }
    this.openServerElicitations.set(request.id as Id, elicitationId);
    this.hostElicitations.push({ serverId: request.id as Id, mode, elicitationId });
  }

  #hostGetsCompletion(notice: Msg): void {
    const id = notice.params?.elicitationId as string;
    const known = this.known.get(id);
    if (known === undefined) this.fail(`a completion for the unknown id ${id} reached the host`);
    else if (known.generation !== this.generation)
      this.fail(`a completion for ${id} of session generation ${known.generation} reached the host in generation ${this.generation}`);
    else if (known.state !== 'pending') this.fail(`a completion for the ${known.state} id ${id} reached the host`);
    else if (this.now >= known.registeredAt + TTL_MS) this.fail(`a completion for the expired id ${id} reached the host`);
    else known.state = 'delivered';
    reached.deliveredCompletions += 1;
  }

  #hostGetsRequirement(error: Msg, originalId: Id): void {
    const entries = error.error?.data?.elicitations;
    if (!Array.isArray(entries)) return this.fail('a -32042 reached the host without its list');
    for (const entry of entries)
      if (entry?._meta?.[URL_META] === undefined) this.fail(`an unchecked -32042 entry reached the host: ${JSON.stringify(entry)}`);
    const base = this.baseOf.get(originalId)!;
    const requirement: Requirement = {
      base,
      op: this.opOf.get(originalId)!,
      elicitationIds: entries.map((e: Msg) => e.elicitationId as string),
      createdAt: this.now,
      generation: this.generation,
      refused: false,
    };
    for (const id of requirement.elicitationIds) this.#register(id);
    this.requirements.push(requirement);
    this.currentRequirement.set(base, requirement);
    reached.errorRequirements += 1;
  }

  // ---------------------------------------------------------------- the server model

  #serverReceives(message: Msg): void {
    if (message.method === 'tools/call') return this.#serverRuns(message);
    if ('method' in message) return;
    const elicitationId = this.serverCreates.get(message.id as Id);
    const elicitation = elicitationId === undefined ? undefined : this.serverElicitations.get(elicitationId);
    if (elicitation === undefined || elicitation.state === 'done') return;
    elicitation.state = 'result' in message && message.result?.action === 'accept' ? 'accepted' : 'refused';
  }

  #serverRuns(request: Msg): void {
    const base = request.params.arguments.base as number;
    const { kind, blocked } = this.bases[base]!;
    const id = request.id as Id;
    const done = (text: string): void => void this.toHost.push({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } });
    switch (kind) {
      case 'plain':
        return done(`plain ${base}`);
      case 'error': {
        if (this.requirementDone.has(base)) return done(`retried ${base}`);
        const elicitationId = this.#issue(base);
        const entries: Msg[] = [{ mode: 'url', elicitationId, url: GOOD_URL, message: 'Sign in to continue' }];
        if (blocked) entries.push({ mode: 'url', elicitationId: this.#issue(base), url: BLOCKED_URL, message: 'Pay here' });
        this.toHost.push({
          jsonrpc: '2.0',
          id,
          error: { code: -32042, message: 'URL elicitation required', data: { elicitations: entries } },
        });
        return;
      }
      case 'nested': {
        const elicitationId = this.#issue(base);
        const serverId = `s${this.nextServerId++}`;
        this.serverCreates.set(serverId, elicitationId);
        this.nestedWaiting.set(id, { base, elicitationId, answered: false });
        this.toHost.push({
          jsonrpc: '2.0',
          id: serverId,
          method: 'elicitation/create',
          params: { mode: 'url', message: 'Connect your account', url: blocked ? BLOCKED_URL : GOOD_URL, elicitationId },
        });
        return;
      }
    }
  }

  #issue(base: number): string {
    const id = `el-${this.nextElicitationId++}`;
    this.serverElicitations.set(id, { id, base, state: 'issued' });
    return id;
  }

  /** The server answers a nested original: done after consent, an error after a refusal, or (forced) whatever the state. */
  serverAnswer(n: number, force: boolean): void {
    const waiting = [...this.nestedWaiting].filter(([, w]) => !w.answered);
    if (waiting.length === 0) return;
    const [id, entry] = waiting[n % waiting.length]!;
    const state = this.serverElicitations.get(entry.elicitationId)!.state;
    if (state === 'issued' && !force) return;
    entry.answered = true;
    if (state === 'refused' && !force)
      this.toHost.push({ jsonrpc: '2.0', id, error: { code: -32603, message: 'The user did not connect the account' } });
    else this.toHost.push({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: `nested ${entry.base}` }] } });
  }

  /** The out-of-band step finished: the server notifies (with `any`, also for ids it should not). */
  serverComplete(n: number, any: boolean): void {
    const candidates = [...this.serverElicitations.values()].filter(
      (e) =>
        any || e.state === 'accepted' || (e.state === 'issued' && !this.serverCreates.has(e.id) && this.bases[e.base]!.kind === 'error'),
    );
    if (candidates.length === 0) return;
    const elicitation = candidates[n % candidates.length]!;
    if (elicitation.state !== 'refused') elicitation.state = 'done';
    if (this.bases[elicitation.base]!.kind === 'error') this.requirementDone.add(elicitation.base);
    this.toHost.push({ jsonrpc: '2.0', method: 'notifications/elicitation/complete', params: { elicitationId: elicitation.id } });
  }

  serverGhostNotice(n: number): void {
    this.toHost.push({ jsonrpc: '2.0', method: 'notifications/elicitation/complete', params: { elicitationId: `ghost-${n}` } });
  }

  serverCancel(n: number): void {
    const ids = [...this.serverCreates.keys()];
    if (ids.length === 0) return;
    const serverId = ids[n % ids.length]!;
    // The guard finishes the id only while the host has not answered yet (what the host still shows).
    const cancelled = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: serverId, reason: 'timeout' } };
    this.toHost.push(cancelled);
  }

  serverForm(sensitive: boolean): void {
    this.toHost.push({
      jsonrpc: '2.0',
      id: `s${this.nextServerId++}`,
      method: 'elicitation/create',
      params: { mode: 'form', message: 'A few details', requestedSchema: sensitive ? passwordSchema : benignSchema },
    });
  }

  /** `notifications/cancelled` is delivered through the guard like any other message. */
  onCancelledDelivered(message: Msg): void {
    const serverId = message.params.requestId as Id;
    if (!this.openServerElicitations.has(serverId)) return;
    const elicitationId = this.openServerElicitations.get(serverId) ?? null;
    this.openServerElicitations.delete(serverId);
    if (elicitationId !== null) this.#finish(elicitationId);
  }

  // ---------------------------------------------------------------- checks after every step

  checkFlows(): void {
    for (const id of this.seenElicitationIds) {
      const flow = this.guard.flow(id);
      if (flow !== null && !(FLOW_STATES as readonly string[]).includes(flow.state))
        this.fail(`flow ${id} is in ${flow.state}, a state outside the table`);
    }
    const metrics = this.guard.metrics() as unknown as Record<string, number>;
    if (metrics.sensitiveFieldsLetThrough !== 0) this.fail(`sensitiveFieldsLetThrough = ${metrics.sensitiveFieldsLetThrough}`);
    if (metrics.internalErrors !== 0) this.fail(`internalErrors = ${metrics.internalErrors}`);
    // Counters another change adds; read only where they exist.
    if ('completionNoticesAdvancingUnknown' in metrics && metrics.completionNoticesAdvancingUnknown !== 0)
      this.fail(`completionNoticesAdvancingUnknown = ${metrics.completionNoticesAdvancingUnknown}`);
    if ('maxAcceptancesPerLineage' in metrics && metrics.maxAcceptancesPerLineage! > 1)
      this.fail(`maxAcceptancesPerLineage = ${metrics.maxAcceptancesPerLineage}`);
  }

  checkAtTheEnd(): void {
    const last = new Map<string, string>();
    for (const event of this.events) {
      if (event.type === 'flow.transition') {
        if (
          DESIGNED_TRIGGERS[event.from as keyof typeof DESIGNED_TRIGGERS]?.[event.to as keyof typeof DESIGNED_TRIGGERS]?.includes(
            event.trigger as never,
          ) !== true
        ) {
          this.fail(`flow.transition ${event.from} → ${event.to} on ${event.trigger} is not an edge of the table`);
        }
        const previous = last.get(event.navigation) ?? 'CREATED';
        if (previous !== event.from) this.fail(`navigation ${event.navigation} moved from ${event.from} but was in ${previous}`);
        last.set(event.navigation, event.to);
      }
      if (event.type === 'receipt.business') {
        reached.receipts += 1;
        const op = this.opOf.get(event.requestId);
        if (op === undefined) this.fail(`a business receipt for ${event.requestId}, which no operation sent`);
        else op.receipts += 1;
      }
    }
    for (const op of this.ops) {
      if (op.receipts > 1) this.fail(`operation ${op.base} (${op.ids.join(', ')}) has ${op.receipts} business receipts`);
      if (op.finalResults > 1)
        this.fail(`operation ${op.base} (${op.ids.join(', ')}) reached the host with ${op.finalResults} final answers`);
    }
  }
}

function play(world: World, s: Step): void {
  switch (s.t) {
    case 'call':
      return world.call(s.kind, s.blocked);
    case 'retry':
      return world.retry(s.pick);
    case 'toServer':
      return world.deliverToServer(s.pick, s.mode);
    case 'toHost': {
      const queue = world.toHost;
      if (queue.length > 0 && s.mode !== 'lose') {
        const next = queue[s.pick % queue.length]!;
        if (next.method === 'notifications/cancelled') world.onCancelledDelivered(next);
      }
      return world.deliverToHost(s.pick, s.mode);
    }
    case 'serverAnswer':
      return world.serverAnswer(s.pick, s.force);
    case 'serverComplete':
      return world.serverComplete(s.pick, s.any);
    case 'serverGhostNotice':
      return world.serverGhostNotice(s.n);
    case 'serverCancel':
      return world.serverCancel(s.pick);
    case 'serverForm':
      return world.serverForm(s.sensitive);
    case 'hostAnswer':
      return world.hostAnswer(s.pick, s.action);
    case 'control':
      return world.control(s.pick, s.control);
    case 'flush':
      return world.flush();
    case 'clock':
      world.now += s.ms;
      return;
    case 'reconnect':
      return world.reconnect();
  }
}

describe('random interleavings of both lineages through one guard', () => {
  it(
    'keeps every safety invariant on every run',
    async () => {
      await fc.assert(
        fc.asyncProperty(scenario, async ({ maxRetries, steps }) => {
          const world = new World(maxRetries);
          for (const s of steps) {
            play(world, s);
            world.checkFlows();
            if (world.failures.length > 0) break;
          }
          // Let the manual controls' promises settle: a rejection must be a GuardError.
          await Promise.all(world.asyncControls);
          world.checkFlows();
          world.checkAtTheEnd();
          expect(world.failures).toEqual([]);
        }),
        propertyParameters(200),
      );
    },
    timeoutFor(200),
  );

  it('reached the situations the checks are about', () => {
    // Checks over runs that never got anywhere prove nothing: the runs must reach these situations.
    expect(reached.receipts).toBeGreaterThan(0);
    expect(reached.deliveredCompletions).toBeGreaterThan(0);
    expect(reached.droppedCompletions).toBeGreaterThan(0);
    expect(reached.withheld + reached.refusedRetries.size).toBeGreaterThan(0);
    expect([...reached.refusedRetries].sort()).toEqual([...RETRY_CODES].sort());
    expect(reached.staleDrops).toBeGreaterThan(0);
    expect(reached.errorRequirements).toBeGreaterThan(0);
    expect(reached.nestedBound).toBeGreaterThan(0);
    expect(reached.guardErrors).toBeGreaterThan(0);
  });
});
