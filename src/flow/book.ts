/**
 * The flow book: the one owner of everything the guard remembers between messages about
 * elicitation. It takes era-neutral events (a wire codec turns JSON-RPC into them) and returns
 * rulings; the guard turns rulings into Decisions. Nothing else keeps flow or lineage state.
 *
 * What it holds, each once, each bounded, each with one eviction order (oldest first):
 * - **flows**: every URL-mode elicitation by its `elicitationId`: the navigation record, the place in
 *   the lifecycle table (states.ts), the consent receipt, the completion-notice state and the lineage
 *   it belongs to. Cap and time to live: the policy's `completion.maxPending` / `ttlSeconds`.
 * - **in flight, per direction**: host → server requests by id (what a response answers, which
 *   requests can own a nested elicitation) and server → host requests by id (which answers must be
 *   checked, and against what). The two directions never touch each other's table, and a later
 *   message never replaces or clears a pending elicitation.
 * - **tasks**: tasks the server created for host requests (their result is the final answer), and
 *   tasks the host created for task-augmented elicitations (their result is the elicitation answer).
 * - **lineages** of every kind (`LINEAGE_RULES`), the retries in flight, and at-most-once acceptance:
 *   `acceptOriginalOperation` is called here only, and the answers it accepted are remembered so a
 *   repeat is withheld.
 *
 * Ledger writes are issued in order and do not hold up messages, except where durability is the
 * point: a consent receipt is durable before anything is opened, and a business receipt is durable
 * before the answer it accepts is delivered.
 */
import type { Policy } from '../policy/policy.js';
import { requestDigest } from '../protocol/digest.js';
import { GuardCode, GuardError } from '../protocol/errors.js';
import { field, type JsonRpcId } from '../protocol/jsonrpc.js';
import { ELICITING_METHODS, Method, TERMINAL_TASK_STATUSES } from '../protocol/wire.js';
import { InputRequiredBook, type InputChain } from './input-required.js';
import { Bounded } from './bounded.js';
import { acceptOriginalOperation, createLineage, LINEAGE_RULES, type Lineage, type RequirementProgress } from './lineage.js';
import {
  createConsentReceipt,
  createNavigation,
  lineageKeyString,
  matchesStateNonce,
  type BusinessReceipt,
  type ConsentDecision,
  type ConsentReceipt,
  type LineageKind,
  type NavigationRecord,
  type NavigationServer,
  type RecordDeps,
  type ShownToUser,
} from './records.js';
import { createFlow, STATE_GROUPS, transition, type Flow, type FlowState, type FlowTrigger } from './states.js';
import { AcceptanceTally, noticeAdvancedUnknown } from './tally.js';

/** The bounded table every book keeps its entries in (see bounded.ts). */
export { Bounded };

// ------------------------------------------------------------------ what the book is told

/** A request in either direction, as every era carries it: a JSON-RPC request satisfies it as is. */
export interface RequestEvent {
  readonly id: JsonRpcId;
  readonly method: string;
  readonly params?: Record<string, unknown> | undefined;
}

/** How a response ended, as the codec reads it. */
export type ResponseOutcome =
  | 'result'
  | 'error'
  /** A task was created: the final answer comes later through `tasks/result` (`taskId` given). */
  | 'task'
  /** The server needs URL elicitations first (2025-11-25: error `-32042`). */
  | 'url-required';

/** A server → host elicitation the host is answering: what its answer is checked against. */
export interface PendingElicitation {
  readonly mode: 'form' | 'url';
  readonly requestedSchema: unknown;
  readonly elicitationId: string | null;
}

/** A URL elicitation that passed the checkers and is about to reach the user. */
export interface PresentedEvent<A> {
  readonly elicitationId: string;
  readonly url: string;
  readonly message: string;
  /** The checker's analysis, kept for the host's review (opaque to the book). */
  readonly analysis: A;
  readonly server: NavigationServer;
  readonly subject: string | null;
  /** The task the server named in its related-task `_meta`, if any: the strongest evidence of the original. */
  readonly relatedTaskId?: string | undefined;
}

/** Where to send a URL-mode flow's writes: the `Ledger` satisfies it. */
export interface FlowStore {
  putNavigation(record: NavigationRecord): Promise<unknown>;
  updateFlowState(id: string, from: FlowState, to: FlowState, trigger: FlowTrigger, at: number): Promise<unknown>;
  putConsentReceipt(receipt: ConsentReceipt): Promise<unknown>;
  acceptBusinessReceipt(
    receipt: BusinessReceipt,
  ): Promise<{ readonly accepted: boolean; readonly endedFlow?: { readonly navigationId: string; readonly state: string } }>;
  /** The receipts of one original request (any session): read when another guard of a shared session may have accepted it. */
  listBusinessReceipts?(originalRequestDigest: string): Promise<readonly BusinessReceipt[]>;
}

/** What the book says happened, for the guard's events. */
export type FlowNote =
  | { readonly navigationId: string; readonly from: FlowState; readonly to: FlowState; readonly trigger: FlowTrigger }
  | { readonly receipt: ConsentReceipt | BusinessReceipt };

// ------------------------------------------------------------------ what the book rules

/** On a host request: let it through, or refuse it locally (a repeat the lineage rules forbid). */
export type HostRequestRuling =
  | { readonly ruling: 'pass' }
  | {
      readonly ruling: 'refuse';
      readonly code: 'E_RETRY_WHILE_IN_FLIGHT' | 'E_RETRY_EXHAUSTED' | 'E_RETRY_NOT_ELIGIBLE';
      readonly reason: string;
    };

/** On a server → host request: recorded, or its id is already pending in that direction. */
export type ServerRequestRuling = 'recorded' | 'id-in-use';

/** How an accepted final answer ends: delivered, or withheld with a reason. */
export type AcceptOutcome =
  | { readonly accepted: true }
  /**
   * `code`: `E_ALREADY_ACCEPTED` (another guard accepted one), `E_RETRY_NOT_ELIGIBLE` (a flow it
   * rests on was cancelled or declined in the ledger by another process), or `E_LEDGER_UNAVAILABLE`
   * (the receipt could not be written).
   */
  | {
      readonly accepted: false;
      readonly reason: string;
      readonly code: 'E_ALREADY_ACCEPTED' | 'E_RETRY_NOT_ELIGIBLE' | 'E_LEDGER_UNAVAILABLE';
    };

/** On a server response to a host request. */
export type ServerResponseRuling =
  /** Nothing to do: deliver it. */
  | { readonly ruling: 'pass' }
  /** It answers nothing in flight (`repeat`: a second answer to an operation already accepted). */
  | { readonly ruling: 'unmatched'; readonly repeat: boolean }
  /** URL elicitations are required before `original` can run: judge the list, then call `urlRequired`. */
  | { readonly ruling: 'url-required'; readonly original: RequestEvent }
  /** The final answer of an original operation, accepted once; with a store, deliver only after `until`. */
  | { readonly ruling: 'accept'; readonly until: Promise<AcceptOutcome> | null }
  | { readonly ruling: 'withhold'; readonly reason: string };

/** On the host's answer to a server → host request. */
export type AnswerRuling =
  | { readonly ruling: 'pass' }
  /** Answers nothing pending (`repeat`: a second answer to an elicitation already answered). */
  | { readonly ruling: 'unmatched'; readonly repeat: boolean }
  /** A form answer: check its content against `requestedSchema`. */
  | { readonly ruling: 'form'; readonly requestedSchema: unknown }
  /** A URL-mode answer: it carries no content back. */
  | { readonly ruling: 'url' }
  /** The flow was already decided through the guard: send `action` instead of a late accept. */
  | { readonly ruling: 'override'; readonly action: 'decline' | 'cancel'; readonly reason: string };

export type DropReason = 'unknown' | 'duplicate' | 'expired' | 'stale' | 'finished';

/** On a completion notice. */
export type NoticeRuling = { readonly deliver: true } | { readonly deliver: false; readonly reason: DropReason | 'before-consent' };

/** What a host sees of a URL-mode flow. The URL is held in memory only, never written to the ledger. */
export interface BookFlowView<A> {
  readonly navigationId: string;
  readonly elicitationId: string;
  readonly state: FlowState;
  readonly lineage: LineageKind | null;
  readonly server: NavigationServer;
  readonly message: string;
  readonly url: string;
  readonly analysis: A;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly consentReceiptId: string | null;
}

/** Proof that the user agreed to open one URL: the receipt and the one-time state nonce. */
export interface OpenTicket {
  readonly receipt: ConsentReceipt;
  readonly nonce: string;
}

/** Opens a URL for the user (the system browser, or a host function). Called only by the guard. */
export type Opener = (url: string) => Promise<void> | void;

/** Invariant counters the book keeps (see `GuardMetrics`). */
export interface BookCounters {
  completionNoticesAdvancingUnknown: number;
  originalOperationsAccepted: number;
  maxAcceptancesPerLineage: number;
}

export interface FlowBookOptions {
  readonly policy: Policy;
  readonly deps: RecordDeps;
  readonly store: FlowStore | null;
  /** A random id of this guard's session, so two sessions never share a lineage key. */
  readonly sessionId: string;
  /**
   * `sessionId` is a key the host gave to several guards on one ledger (`sessionKey`): their
   * lineage keys must then be the same for the same operation, whatever else each guard has seen.
   */
  readonly sharedSession?: boolean;
  readonly onWriteError: (error: unknown) => void;
  readonly onNote: (note: FlowNote) => void;
}

// ------------------------------------------------------------------ internals

interface FlowEntry<A> {
  readonly record: NavigationRecord;
  flow: Flow;
  /** The state nonce, until it is used or revoked. */
  nonce: string | null;
  readonly url: string;
  readonly message: string;
  readonly analysis: A;
  readonly server: NavigationServer;
  readonly lineage: Lineage | null;
  /** The host answers this elicitation on the wire (`elicitation/create`), so consent is seen there. */
  readonly answeredOnWire: boolean;
  /** The server request that presented it (`null` for a `-32042` entry): only its answer speaks for this flow. */
  readonly requestId: JsonRpcId | null;
  consent: ConsentReceipt | null;
  /** Settles when the consent receipt is in the store; rejects when it could not be written. */
  consentDurable: Promise<void>;
  opened: boolean;
  /** The completion notice: still awaited, delivered once, or no longer wanted (declined, cancelled). */
  notice: 'pending' | 'completed' | 'finished';
}

/** A host request in flight: the request itself (no copy), or for a retry, the request and its lineage. */
type HostRequestEntry = RequestEvent | Retry;

class Retry {
  constructor(
    readonly request: RequestEvent,
    /** The lineage this request is a retry of (its id is in that lineage's `retryIds` while in flight). */
    readonly retryOf: Lineage,
  ) {}
}

// `instanceof`, not `'retryOf' in entry`: a host's request may have a hidden class of its own, on
// which a key test misses V8's caches (see `field` in protocol/jsonrpc.ts).
function isRetry(entry: HostRequestEntry): entry is Retry {
  return entry instanceof Retry;
}

function requestOf(entry: HostRequestEntry): RequestEvent {
  return isRetry(entry) ? entry.request : entry;
}

interface ServerTask {
  readonly original: RequestEvent;
  lineage: Lineage | null;
  running: boolean;
}

const { live: LIVE, verified: VERIFIED, awaiting: AWAITING, beforeConsent: BEFORE_CONSENT } = STATE_GROUPS;

/** Requests in flight per direction, and answers remembered, at most this many (oldest forgotten first). */
const MAX_IN_FLIGHT = 4096;
const MAX_REMEMBERED = 1024;

const PASS = Object.freeze({ ruling: 'pass' as const });
const UNMATCHED = Object.freeze({ ruling: 'unmatched' as const, repeat: false });
const REPEAT = Object.freeze({ ruling: 'unmatched' as const, repeat: true });
const URL_ANSWER = Object.freeze({ ruling: 'url' as const });
const DELIVER: NoticeRuling = Object.freeze({ deliver: true });
const drop = (reason: DropReason | 'before-consent'): NoticeRuling => ({ deliver: false, reason });

export class FlowBook<A = unknown> {
  readonly #policy: Policy;
  readonly #deps: RecordDeps;
  readonly #store: FlowStore | null;
  readonly #sessionId: string;
  readonly #sharedSession: boolean;
  readonly #onWriteError: (error: unknown) => void;
  readonly #onNote: (note: FlowNote) => void;
  readonly #ttlMs: number;
  #generation = 0;
  #revoked = false;

  readonly #flows: Bounded<string, FlowEntry<A>>;
  readonly #hostRequests = new Bounded<JsonRpcId, HostRequestEntry>(MAX_IN_FLIGHT);
  /** Server → host requests by id: a pending elicitation, or the method of any other request. */
  readonly #serverRequests = new Bounded<JsonRpcId, PendingElicitation | string>(MAX_IN_FLIGHT);
  /** Elicitation ids (server → host) already answered: a second answer is not delivered. */
  readonly #answered = new Bounded<JsonRpcId, true>(MAX_REMEMBERED);
  /** Task-augmented elicitations the host answered with a task: their result is the real answer. */
  readonly #hostTasks = new Bounded<string, PendingElicitation>(MAX_REMEMBERED);
  readonly #serverTasks: Bounded<string, ServerTask>;
  /** Nested lineages by the id of their original request, while it is in flight. */
  readonly #nested = new Map<JsonRpcId, Lineage>();
  /** Error lineages by the digest of their original, until accepted or expired. */
  readonly #byDigest: Bounded<string, Lineage>;
  /** Host requests an unattributed nested elicitation may belong to: id → digest, while in flight. */
  readonly #ambiguous = new Bounded<JsonRpcId, string>(MAX_REMEMBERED);
  /** Response ids whose answer was accepted as an original operation's final answer. */
  readonly #accepted = new Bounded<JsonRpcId, true>(MAX_REMEMBERED);
  readonly #tally = new AcceptanceTally();
  readonly counters: BookCounters = { completionNoticesAdvancingUnknown: 0, originalOperationsAccepted: 0, maxAcceptancesPerLineage: 0 };
  /** Store writes not yet settled (each one already handles its own failure). */
  readonly #writes = new Set<Promise<void>>();
  /**
   * Spec 2026-07-28: the rounds of every input-required operation (one chain per original, chained
   * by requestState, bounded by policy retry.maxRounds). Its URL flows and its acceptance are this
   * book's like any other lineage's.
   */
  readonly rounds: InputRequiredBook;

  constructor(options: FlowBookOptions) {
    this.#policy = options.policy;
    this.#deps = options.deps;
    this.#store = options.store;
    this.#sessionId = options.sessionId;
    this.#sharedSession = options.sharedSession === true;
    this.#onWriteError = options.onWriteError;
    this.#onNote = options.onNote;
    this.#ttlMs = options.policy.completion.ttlSeconds * 1000;
    const max = options.policy.completion.maxPending;
    this.#flows = new Bounded(max);
    this.#serverTasks = new Bounded(max);
    this.#byDigest = new Bounded(max);
    // Chain ids are bound to this connection (a tag of the session's random id, or of this book when
    // the session key is shared) and counted within it: the flow ids built from them stay apart in a
    // ledger that several guards share.
    let chains = 0;
    const tag = this.#sharedSession ? Buffer.from(options.deps.random(6)).toString('base64url') : options.sessionId.slice(0, 8);
    this.rounds = new InputRequiredBook({
      maxRounds: options.policy.retry.maxRounds,
      maxChains: max,
      ttlMs: this.#ttlMs,
      clock: options.deps.clock,
      newId: () => `ir.${tag}.${(chains += 1)}`,
    });
  }

  get generation(): number {
    return this.#generation;
  }

  // ---------------------------------------------------------------- session

  /** A new `initialize`: a new generation. What was in flight is stale; flows stay for recovery. */
  restart(): void {
    this.#generation += 1;
    this.#hostRequests.clear();
    this.#serverRequests.clear();
    this.#answered.clear();
    this.#hostTasks.clear();
    this.#serverTasks.clear();
    this.#nested.clear();
    this.#byDigest.clear();
    this.#ambiguous.clear();
    this.#accepted.clear();
  }

  /** Rollback (`issuing: "stopped"`): pending nonces are revoked; flows stay as they are. */
  revokeAll(): void {
    this.#revoked = true;
    for (const entry of this.#flows.values()) entry.nonce = null;
  }

  /** Rollback by hand: every outstanding nonce is revoked (nothing accepted can be opened any more). Returns how many. */
  revokeNonces(): number {
    let revoked = 0;
    for (const entry of this.#flows.values()) {
      if (entry.nonce === null) continue;
      entry.nonce = null;
      revoked += 1;
    }
    return revoked;
  }

  /** Issuing resumed: flows presented from now on get a nonce again (revoked ones stay revoked). */
  resumeIssuing(): void {
    this.#revoked = false;
  }

  // ---------------------------------------------------------------- host → server

  /** The host sends a request. A repeat of a tracked original is ruled on by its lineage's kind. */
  hostRequest(request: RequestEvent): HostRequestRuling {
    let entry: HostRequestEntry = request;
    if (this.#nested.size > 0 || this.#byDigest.size > 0 || this.#ambiguous.size > 0) {
      const digest = requestDigest(request.method, request.params);
      const refusal = this.#ruleOnRepeat(digest);
      if (refusal !== null) return refusal;
      const retry = this.#retryOf(request.id, digest);
      if (retry !== null && 'ruling' in retry) return retry;
      if (retry !== null) entry = new Retry(request, retry);
    }
    this.#hostRequests.put(field(request, 'id') as JsonRpcId, entry, this.#forgetRequest);
    return PASS;
  }

  /**
   * `hostRequest` for the common case, when there is nothing to rule on: no lineage is tracked that
   * the request could repeat or belong to, and no shared-ledger question to ask of it. Records it as
   * `hostRequest` does and returns true; returns false, recording nothing, when it must be ruled on
   * (`hostRequest` then). `id` and `method` as read from the request.
   */
  passesRequest(request: RequestEvent, id: JsonRpcId, method: string): boolean {
    if (this.#nested.size > 0 || this.#byDigest.size > 0 || this.#ambiguous.size > 0) return false;
    if (this.#sharedSession && ELICITING_METHODS.has(method)) return false;
    this.#hostRequests.put(id, request, this.#forgetRequest);
    return true;
  }

  /**
   * Under a shared session key: a host request of an eliciting method that is not a retry this
   * book tracks may be the re-sent retry of a `-32042` operation another guard of the session ran
   * (and died). Returns the receipt of such an operation (same digest, within the time to live),
   * or `null` when there is none or no one to ask. Call after `hostRequest` passed it.
   */
  acceptedElsewhere(request: RequestEvent): Promise<BusinessReceipt | null> | null {
    if (!this.#sharedSession || !ELICITING_METHODS.has(request.method)) return null;
    const entry = this.#hostRequests.get(request.id);
    if (entry === undefined || isRetry(entry)) return null;
    return this.acceptedInSession('error-retry', requestDigest(request.method, request.params));
  }

  /** A request `hostRequest` passed was refused after all: it is not in flight. */
  withdrawn(id: JsonRpcId): void {
    this.#hostRequests.delete(id);
  }

  #ruleOnRepeat(digest: string): HostRequestRuling | null {
    const maxRetries = this.#policy.retry.maxRetries;
    for (const lineage of this.#nested.values()) {
      if (lineage.digest !== digest) continue;
      const ruling = LINEAGE_RULES[lineage.kind].ruleOnRepeat(lineage, {
        maxRetries,
        maxRounds: this.#policy.retry.maxUrlRequiredRounds,
        originalInFlight: this.#inFlight(lineage),
        progress: 'unseen',
      });
      if (!ruling.allow) return { ruling: 'refuse', code: ruling.code, reason: ruling.reason };
    }
    for (const [id, candidate] of this.#ambiguous) {
      if (!this.#hostRequests.has(id)) this.#ambiguous.delete(id);
      else if (candidate === digest) {
        return {
          ruling: 'refuse',
          code: 'E_RETRY_WHILE_IN_FLIGHT',
          reason:
            'a request with the same digest is still in flight and a URL elicitation may belong to it; the server would run ' +
            'the operation twice',
        };
      }
    }
    return null;
  }

  /** A repeat of an error lineage's original is a retry: counted, and ruled on. */
  #retryOf(id: JsonRpcId, digest: string): Lineage | HostRequestRuling | null {
    const lineage = this.#byDigest.get(digest);
    if (lineage === undefined) return null;
    if (lineage.expiresAt <= this.#deps.clock()) {
      this.#byDigest.delete(digest);
      return null;
    }
    const rules = LINEAGE_RULES[lineage.kind];
    const ruling = rules.ruleOnRepeat(lineage, {
      maxRetries: this.#policy.retry.maxRetries,
      maxRounds: this.#policy.retry.maxUrlRequiredRounds,
      originalInFlight: false,
      progress: this.#progress(lineage),
    });
    if (!ruling.allow) return { ruling: 'refuse', code: ruling.code, reason: ruling.reason };
    lineage.retriesUsed = ruling.generation;
    lineage.retryIds.set(id, ruling.generation);
    for (const entry of this.#flowsOf(lineage))
      if (entry.flow.state === 'ERROR_RETRY_ELIGIBLE') this.#move(entry, 'OPTIONAL_CLIENT_RETRY', 'client-retry');
    return lineage;
  }

  /** A host request left the in-flight table without an answer (evicted): its lineage forgets it. */
  readonly #forgetRequest = (entry: HostRequestEntry): void => {
    if (isRetry(entry)) entry.retryOf.retryIds.delete(entry.request.id);
  };

  /** The host answers a server → host request. */
  answer(id: JsonRpcId, outcome: ResponseOutcome, action: unknown, taskId?: string): AnswerRuling {
    const pending = this.#serverRequests.take(id);
    if (pending === undefined) return this.#answered.has(id) ? REPEAT : UNMATCHED;
    if (typeof pending === 'string') return PASS;
    this.#answered.put(id, true);
    if (outcome === 'task' && taskId !== undefined) {
      // A task-augmented elicitation: the answer comes later, as the result of the server's tasks/result.
      this.#hostTasks.put(taskId, pending);
      return PASS;
    }
    const elicitationId = pending.elicitationId;
    if (outcome === 'error') {
      if (elicitationId !== null) this.#finishNotice(elicitationId);
      return PASS;
    }
    if (pending.mode === 'form') return { ruling: 'form', requestedSchema: pending.requestedSchema };
    const entry = elicitationId === null ? undefined : this.#flows.get(elicitationId);
    // An answer to an earlier request for an id the server sent again does not speak for the flow it shows now.
    if (entry === undefined || entry.requestId !== id) return URL_ANSWER;
    const state = entry.flow.state;
    if (action === 'accept' && (state === 'CANCELLED' || state === 'DECLINED')) {
      // The user (or the server) ended this flow through the guard: a late accept must not reach the server.
      return {
        ruling: 'override',
        action: state === 'DECLINED' ? 'decline' : 'cancel',
        reason: `the flow was already ${state.toLowerCase()}`,
      };
    }
    this.#onWireAnswer(entry, action);
    if (action !== 'accept') entry.notice = entry.notice === 'pending' ? 'finished' : entry.notice;
    return URL_ANSWER;
  }

  // ---------------------------------------------------------------- server → host

  /**
   * The server sends a request to the host. `pending` is set for an elicitation that passed the
   * checkers; `taskId` for a `tasks/result` (its answer may be a task-augmented elicitation's).
   * A request whose id is already pending in this direction is not recorded (`id-in-use`).
   */
  serverRequest(request: RequestEvent, pending: PendingElicitation | null, taskId?: string): ServerRequestRuling {
    if (this.#serverRequests.has(request.id)) return 'id-in-use';
    const augmented = taskId === undefined ? undefined : this.#hostTasks.take(taskId);
    this.#serverRequests.put(request.id, pending ?? augmented ?? request.method);
    return 'recorded';
  }

  /** True when `id` is pending an answer from the host (server → host). */
  serverRequestPending(id: JsonRpcId): boolean {
    return this.#serverRequests.has(id);
  }

  /** The elicitation the host's answer to `id` will be checked against, if one is pending. */
  pendingElicitation(id: JsonRpcId): PendingElicitation | null {
    const pending = this.#serverRequests.get(id);
    return typeof pending === 'object' ? pending : null;
  }

  /** A URL elicitation is about to reach the user: record it and put it in review. Returns its lineage kind. */
  presented(serverRequestId: JsonRpcId, event: PresentedEvent<A>): LineageKind | null {
    const lineage = this.#attribute(event.relatedTaskId);
    this.#present(event, lineage, serverRequestId);
    this.#serverRequests.put(serverRequestId, { mode: 'url', requestedSchema: null, elicitationId: event.elicitationId });
    return lineage?.kind ?? null;
  }

  /**
   * The server answered `original` with URL elicitations it needs first; `entries` passed the
   * checkers. They form one error lineage: the host may send `original` again once they are done.
   */
  urlRequired(
    original: RequestEvent,
    responseId: JsonRpcId,
    entries: readonly PresentedEvent<A>[],
  ): { readonly round: number; readonly repeatedUrls: number } {
    const digest = requestDigest(original.method, original.params);
    const lineage = createLineage(
      'error-retry',
      { sessionId: this.#sessionId, generation: this.#generation },
      responseId,
      digest,
      this.#deps.clock() + this.#ttlMs,
    );
    // A -32042 answering a retry of the same original is the next round of one chain: counted, and
    // a URL the server already sent in the round before is a loop.
    const previous = this.#byDigest.get(digest);
    let repeatedUrls = 0;
    if (previous !== undefined && previous.expiresAt > this.#deps.clock()) {
      lineage.round = previous.round + 1;
      const before = new Set([...this.#flowsOf(previous)].map((e) => e.url));
      repeatedUrls = entries.filter((e) => before.has(e.url)).length;
    }
    this.#byDigest.delete(digest);
    this.#byDigest.put(digest, lineage);
    for (const entry of entries) this.#present(entry, lineage, null);
    return { round: lineage.round, repeatedUrls };
  }

  // ---------------------------------------------------------------- input-required rounds (2026-07-28)

  /**
   * The lineage of an input-required chain: scoped to the chain, so the same call made again later
   * is a new operation. Under a shared session key it is scoped like every other lineage (session
   * key, generation, original request id, digest): guards that count chains differently still give
   * one operation one key, so the ledger accepts its final answer once between them.
   */
  inputLineage(chain: InputChain, originalId: JsonRpcId): Lineage {
    chain.lineage ??= createLineage(
      'input-required',
      { sessionId: this.#sharedSession ? this.#sessionId : `${this.#sessionId}/${chain.id}`, generation: this.#generation },
      originalId,
      chain.digest,
      chain.expiresAt,
    );
    return chain.lineage;
  }

  /**
   * Under a shared session key, with a store that can say: the receipt another guard of this
   * session wrote for an operation of `kind` with this original digest within the completion time
   * to live, or `null`. `null` instead of a promise when there is no one to ask (no shared key, no
   * such store). For a retry this guard cannot place (the guard that saw its rounds is gone): an
   * operation already accepted elsewhere is not run again.
   */
  acceptedInSession(kind: LineageKind, digest: string): Promise<BusinessReceipt | null> | null {
    const store = this.#store;
    if (!this.#sharedSession || store?.listBusinessReceipts === undefined) return null;
    const prefix = `${this.#sessionId}/`;
    const since = this.#deps.clock() - this.#ttlMs;
    return store
      .listBusinessReceipts(digest)
      .then((receipts) => receipts.find((r) => r.lineage.kind === kind && r.lineage.session.startsWith(prefix) && r.at > since) ?? null);
  }

  /** A URL elicitation of an input-required round is about to reach the user (no `elicitationId` in this revision: the guard names it). */
  presentedInput(event: PresentedEvent<A>, lineage: Lineage, requestId: JsonRpcId): void {
    // Answered on the wire (the host's retry carries the answer); `requestId` is the host request whose answer carried the round.
    this.#present(event, lineage, requestId);
  }

  /** The host answered a URL input request on its retry: that answer is its consent when it drew its own UI. */
  inputAnswer(flowId: string, action: unknown): AnswerRuling {
    const entry = this.#flows.get(flowId);
    if (entry === undefined) return URL_ANSWER;
    const state = entry.flow.state;
    if (action === 'accept' && (state === 'CANCELLED' || state === 'DECLINED')) {
      return {
        ruling: 'override',
        action: state === 'DECLINED' ? 'decline' : 'cancel',
        reason: `the flow was already ${state.toLowerCase()}`,
      };
    }
    this.#onWireAnswer(entry, action);
    return URL_ANSWER;
  }

  /** The server answered a retry with its next round: the URL steps the user went through are verified by it. */
  inputRoundAnswered(lineage: Lineage): void {
    for (const entry of this.#flowsOf(lineage)) if (AWAITING.has(entry.flow.state)) this.#verify(entry, 'final-response');
  }

  /**
   * The final answer of an input-required operation. Like a nested original's, it is accepted once
   * with a business receipt when the operation rests on the user's consent to a URL step; an
   * operation of forms only has no receipt to write (its rounds still end at most once: the round
   * book refuses a re-sent completed round before it reaches the server).
   */
  inputComplete(lineage: Lineage, id: JsonRpcId, response: unknown, round: number): ServerResponseRuling {
    // Like a nested original's: an operation the user declined or cancelled is not accepted.
    if (lineage.consentReceiptIds.length === 0 || lineage.refused) return PASS;
    return this.#accept(lineage, id, response, round);
  }

  /** The server withdrew one of its requests (`notifications/cancelled`). The pending answer stays checked. */
  serverCancelled(requestId: JsonRpcId): void {
    const pending = this.#serverRequests.get(requestId);
    if (typeof pending !== 'object' || pending.elicitationId === null) return;
    const entry = this.#flows.get(pending.elicitationId);
    if (entry === undefined || entry.requestId !== requestId) return;
    if (entry.notice === 'pending') entry.notice = 'finished';
    if (entry.flow.state !== 'USER_REVIEW') return;
    this.#move(entry, 'CANCELLED', 'server-cancelled');
    entry.nonce = null;
  }

  taskStatus(taskId: string, status: string): void {
    const task = this.#serverTasks.get(taskId);
    if (task !== undefined && TERMINAL_TASK_STATUSES.has(status)) task.running = false;
  }

  /** The server answers a host request. `response` is the whole answer (its digest goes into a business receipt). */
  serverResponse(id: JsonRpcId, outcome: ResponseOutcome, response: unknown, taskId?: string): ServerResponseRuling {
    const entry = this.#hostRequests.take(id);
    if (entry === undefined) return this.#accepted.has(id) ? REPEAT : UNMATCHED;
    if (this.#ambiguous.size > 0) this.#ambiguous.delete(id);
    const request = requestOf(entry);
    if (outcome === 'task' && taskId !== undefined) {
      this.#serverTasks.put(taskId, { original: request, lineage: this.#nested.get(id) ?? null, running: true });
      return PASS;
    }
    if (field(request, 'method') === Method.taskResult) return this.#onTaskResult(request, id, outcome, response);
    const nested = this.#nested.get(id);
    if (nested !== undefined) this.#nested.delete(id);
    const retried = isRetry(entry) && entry.retryOf.retryIds.has(id) ? entry.retryOf : null;
    retried?.retryIds.delete(id);
    if (outcome === 'url-required') return { ruling: 'url-required', original: request };
    if (nested !== undefined && nested.consentReceiptIds.length > 0 && !nested.refused) return this.#accept(nested, id, response, 0);
    if (retried !== null) return this.#accept(retried, id, response, retried.retriesUsed);
    return PASS;
  }

  /**
   * `serverResponse` for the common case: a final answer (outcome `result`) to a plain request in
   * flight (not a retry, not `tasks/result`) while no lineage is tracked. The request is no longer in
   * flight and true is returned (the ruling would be `pass`); false, changing nothing, when it must
   * be ruled on (`serverResponse` then).
   */
  passesResult(id: JsonRpcId): boolean {
    if (this.#nested.size > 0 || this.#ambiguous.size > 0) return false;
    const entry = this.#hostRequests.get(id);
    if (entry === undefined || isRetry(entry) || field(entry, 'method') === Method.taskResult) return false;
    this.#hostRequests.delete(id);
    return true;
  }

  /** The answer to `tasks/result` is the final answer of the task's original request. */
  #onTaskResult(request: RequestEvent, id: JsonRpcId, outcome: ResponseOutcome, response: unknown): ServerResponseRuling {
    const taskId = request.params?.taskId;
    const task = typeof taskId === 'string' ? this.#serverTasks.get(taskId) : undefined;
    if (outcome === 'url-required') {
      // The task ended asking for URL elicitations: its original is what the host would send again.
      if (task === undefined) return { ruling: 'url-required', original: request };
      this.#serverTasks.delete(taskId as string);
      if (task.lineage !== null) this.#nested.delete(task.lineage.originalId);
      return { ruling: 'url-required', original: task.original };
    }
    if (task === undefined) return PASS;
    this.#serverTasks.delete(taskId as string);
    const lineage = task.lineage;
    if (lineage === null) return PASS;
    this.#nested.delete(lineage.originalId);
    if (lineage.consentReceiptIds.length === 0 || lineage.refused) return PASS;
    return this.#accept(lineage, id, response, 0);
  }

  /** A completion notice: delivered once, for a known pending id of this generation, after consent. */
  notice(elicitationId: string): NoticeRuling {
    const entry = this.#flows.get(elicitationId);
    if (entry === undefined) return drop('unknown');
    if (entry.record.sessionGeneration !== this.#generation) return drop('stale');
    const knownPending = entry.notice === 'pending' && entry.record.expiresAt > this.#deps.clock();
    // A notice for a URL the user has not yet agreed to open proves nothing: drop it, keep the id
    // pending. (Consent to a -32042 entry is seen only when the host records it through the guard.)
    if (knownPending && entry.answeredOnWire && BEFORE_CONSENT.has(entry.flow.state)) return drop('before-consent');
    if (entry.notice === 'completed') return drop('duplicate');
    if (entry.notice === 'finished') return drop('finished');
    if (!knownPending) return drop('expired');
    entry.notice = 'completed';
    this.#expire(entry);
    let advanced = false;
    if (entry.flow.state === 'OUT_OF_BAND_PENDING') {
      this.#move(entry, 'COMPLETION_NOTIFIED', 'completion-notice');
      this.#verify(entry, 'notice-verified');
      advanced = true;
    }
    // The invariant counter: only a known pending id may move anything (checked, not assumed).
    if (noticeAdvancedUnknown(knownPending, true, advanced)) this.counters.completionNoticesAdvancingUnknown += 1;
    return DELIVER;
  }

  // ---------------------------------------------------------------- the user, through the guard

  /**
   * The user's decision, before anything is opened. Resolves once the consent receipt is durable;
   * for `accept` it returns the ticket `opened` requires.
   */
  consent(elicitationId: string, decision: ConsentDecision, shown?: ShownToUser): Promise<OpenTicket | null> {
    let receipt: ConsentReceipt;
    let entry: FlowEntry<A>;
    try {
      entry = this.#require(elicitationId);
      if (entry.consent !== null)
        throw new GuardError(
          GuardCode.illegalTransition,
          `elicitation ${entry.record.id} already has a consent decision (${entry.consent.decision})`,
        );
      receipt = this.#consent(entry, decision, shown ?? this.#shown(entry));
    } catch (error) {
      return Promise.reject(error);
    } finally {
      if (decision !== 'accept') this.#finishNotice(elicitationId);
    }
    // Rejects when the receipt could not be written: then nothing may be opened.
    return entry.consentDurable.then(() => (decision !== 'accept' || entry.nonce === null ? null : { receipt, nonce: entry.nonce }));
  }

  /** Opens the URL of an accepted flow, once, with its ticket. Never before a durable consent receipt. */
  async opened(ticket: OpenTicket, opener: Opener): Promise<void> {
    const entry = [...this.#flows.values()].find((e) => e.consent?.id === ticket.receipt.id);
    if (entry === undefined) throw new GuardError(GuardCode.unknownNavigation, 'no flow has this consent receipt');
    if (entry.consent?.decision !== 'accept') throw new GuardError(GuardCode.illegalTransition, 'the user did not accept this navigation');
    if (entry.opened) throw new GuardError(GuardCode.illegalTransition, 'this navigation was already opened');
    if (this.#revoked || entry.nonce === null)
      throw new GuardError(GuardCode.issuingStopped, 'URL elicitations are stopped: pending navigations were revoked');
    if (!matchesStateNonce(entry.record, ticket.nonce))
      throw new GuardError(GuardCode.illegalTransition, 'the ticket does not open this navigation');
    await entry.consentDurable;
    entry.opened = true;
    entry.nonce = null;
    try {
      await opener(entry.url);
    } catch (error) {
      if (entry.flow.state === 'NAVIGATION_ACCEPTED') this.#move(entry, 'CANCELLED', 'open-failed');
      if (entry.lineage !== null) entry.lineage.refused = true;
      throw error;
    }
    if (entry.flow.state === 'NAVIGATION_ACCEPTED') this.#move(entry, 'OUT_OF_BAND_PENDING', 'navigation-opened');
  }

  /** The user says the out-of-band step is done (the spec's manual control). */
  confirm(elicitationId: string): BookFlowView<A> {
    const entry = this.#require(elicitationId);
    this.#expire(entry);
    if (entry.flow.state === 'EXPIRED') this.#move(entry, 'USER_RETRY', 'manual-recovery');
    this.#verify(entry, 'user-confirmed');
    return this.#view(entry);
  }

  /** The user takes up a stalled flow by hand: pending or expired → USER_RETRY. */
  retry(elicitationId: string): BookFlowView<A> {
    const entry = this.#require(elicitationId);
    this.#expire(entry);
    this.#move(entry, 'USER_RETRY', 'manual-recovery');
    return this.#view(entry);
  }

  /** The user gives up: the flow is cancelled, and its lineage will never be retried. */
  cancel(elicitationId: string): BookFlowView<A> {
    const entry = this.#require(elicitationId);
    this.#expire(entry);
    if (entry.flow.state === 'OUT_OF_BAND_PENDING' || entry.flow.state === 'EXPIRED') this.#move(entry, 'USER_RETRY', 'manual-recovery');
    this.#move(entry, 'CANCELLED', 'user-cancelled');
    if (entry.lineage !== null) entry.lineage.refused = true;
    entry.nonce = null;
    if (entry.notice === 'pending') entry.notice = 'finished';
    return this.#view(entry);
  }

  /** Moves every pending navigation whose time to live ran out to EXPIRED (also done lazily on every read). */
  expired(): void {
    for (const entry of this.#flows.values()) this.#expire(entry);
  }

  // ---------------------------------------------------------------- reading

  /** Flows that are not finished (expired ones included: they wait for manual recovery). */
  pending(): BookFlowView<A>[] {
    const views: BookFlowView<A>[] = [];
    for (const entry of this.#flows.values()) {
      this.#expire(entry);
      // A flow without an original operation ends at REQUIREMENT_VERIFIED: nothing waits for it.
      const done = entry.flow.state === 'REQUIREMENT_VERIFIED' && entry.lineage === null;
      if (LIVE.has(entry.flow.state) && !done) views.push(this.#view(entry));
    }
    return views;
  }

  view(elicitationId: string): BookFlowView<A> | null {
    const entry = this.#flows.get(elicitationId);
    return entry === undefined ? null : this.#view(entry);
  }

  /** Resolves when every store write issued so far is done. */
  async flush(): Promise<void> {
    while (this.#writes.size > 0) await Promise.all([...this.#writes]);
  }

  // ---------------------------------------------------------------- lineages

  /**
   * The nested lineage a URL elicitation belongs to, by the strongest evidence: the task its
   * related-task `_meta` names (an unknown task binds nothing); else the only request in flight of
   * a method that can elicit. When several could, nothing is bound (binding a guess could refuse
   * the wrong request), but a repeat of any of them is refused while they are in flight.
   */
  #attribute(relatedTaskId: string | undefined): Lineage | null {
    if (relatedTaskId !== undefined) {
      const task = this.#serverTasks.get(relatedTaskId);
      if (task === undefined) return null;
      task.lineage ??= this.#newNested(task.original);
      return task.lineage;
    }
    let only: RequestEvent | null = null;
    let candidates = 0;
    for (const entry of this.#hostRequests.values()) {
      if (!ELICITING_METHODS.has(requestOf(entry).method)) continue;
      candidates += 1;
      only = requestOf(entry);
    }
    if (candidates === 1 && only !== null) return this.#nested.get(only.id) ?? this.#newNested(only);
    if (candidates > 1) {
      for (const entry of this.#hostRequests.values()) {
        const request = requestOf(entry);
        if (ELICITING_METHODS.has(request.method)) this.#ambiguous.put(request.id, requestDigest(request.method, request.params));
      }
    }
    return null;
  }

  #newNested(original: RequestEvent): Lineage {
    const digest = requestDigest(original.method, original.params);
    const lineage = createLineage(
      'nested',
      { sessionId: this.#sessionId, generation: this.#generation },
      original.id,
      digest,
      this.#deps.clock() + this.#ttlMs,
    );
    this.#nested.set(original.id, lineage);
    return lineage;
  }

  /** A nested original is in flight while its request is unanswered or the task it created still runs. */
  #inFlight(lineage: Lineage): boolean {
    if (this.#hostRequests.has(lineage.originalId)) return true;
    for (const task of this.#serverTasks.values()) if (task.lineage === lineage && task.running) return true;
    return false;
  }

  /** How far the requirements of an error lineage got (see `RequirementProgress`). */
  #progress(lineage: Lineage): RequirementProgress {
    let seen = false;
    let verified = true;
    for (const entry of this.#flowsOf(lineage)) {
      if (entry.consent !== null) seen = true;
      if (!VERIFIED.has(entry.flow.state)) verified = false;
    }
    if (!seen) return 'unseen';
    return verified ? 'verified' : 'pending';
  }

  *#flowsOf(lineage: Lineage): Iterable<FlowEntry<A>> {
    for (const id of lineage.elicitations) {
      const entry = this.#flows.get(id);
      if (entry !== undefined && entry.lineage === lineage) yield entry;
    }
  }

  /**
   * The final answer to an original operation: accepted once through `acceptOriginalOperation`;
   * with a store, delivered only after its business receipt is durable.
   */
  #accept(lineage: Lineage, id: JsonRpcId, response: unknown, retryGeneration: number): ServerResponseRuling {
    const acceptance = acceptOriginalOperation(
      lineage,
      response as { id: JsonRpcId; jsonrpc: '2.0'; result: Record<string, unknown> },
      retryGeneration,
      this.#deps,
    );
    if (!acceptance.accepted) return { ruling: 'withhold', reason: acceptance.reason };
    this.#accepted.put(id, true);
    const rules = LINEAGE_RULES[lineage.kind];
    for (const entry of this.#flowsOf(lineage)) {
      if (rules.finalAnswerVerifies && AWAITING.has(entry.flow.state)) this.#verify(entry, 'final-response');
      if (entry.flow.state === rules.onAccepted.from) this.#move(entry, rules.onAccepted.to, rules.onAccepted.trigger);
    }
    const receipt = acceptance.receipt;
    this.#onNote({ receipt });
    const store = this.#store;
    if (store === null) {
      this.#count(lineage);
      return { ruling: 'accept', until: null };
    }
    const outcome = store.acceptBusinessReceipt(receipt);
    this.#track(
      outcome.then(
        () => undefined,
        (error: unknown) => this.#onWriteError(error),
      ),
    );
    const until = outcome.then(
      ({ accepted, endedFlow }): AcceptOutcome => {
        if (!accepted && endedFlow !== undefined) {
          // Another process (the CLI, the query page, another proxy) ended a flow this operation
          // rests on: the ledger's word holds, and the operation is not retried either.
          lineage.refused = true;
          return {
            accepted: false,
            reason: `flow ${endedFlow.navigationId} of this operation is ${endedFlow.state} in the ledger`,
            code: 'E_RETRY_NOT_ELIGIBLE',
          };
        }
        if (!accepted)
          return {
            accepted: false,
            reason: 'another guard already accepted a final answer for this operation',
            code: 'E_ALREADY_ACCEPTED',
          };
        this.#count(lineage);
        return { accepted: true };
      },
      (): AcceptOutcome => ({
        accepted: false,
        reason: 'the business receipt could not be written (the ledger is unavailable), so the answer is not accepted',
        code: 'E_LEDGER_UNAVAILABLE',
      }),
    );
    return { ruling: 'accept', until };
  }

  #count(lineage: Lineage): void {
    this.counters.originalOperationsAccepted += 1;
    this.#tally.record(lineageKeyString(lineage.key));
    this.counters.maxAcceptancesPerLineage = this.#tally.max;
  }

  // ---------------------------------------------------------------- flows

  #present(event: PresentedEvent<A>, lineage: Lineage | null, requestId: JsonRpcId | null): void {
    const { record, stateNonce } = createNavigation(
      {
        elicitationId: event.elicitationId,
        server: event.server,
        subject: event.subject,
        originalRequestDigest: lineage?.digest ?? null,
        url: event.url,
        redirectPolicy: this.#policy.url.redirectHosts.length > 0 ? this.#policy.url.redirectHosts : 'any',
        purpose: event.message,
        ttlMs: this.#ttlMs,
        sessionGeneration: this.#generation,
      },
      this.#deps,
    );
    // The same id sent again in this generation keeps its notice state (a notice is delivered once).
    const known = this.#flows.get(event.elicitationId);
    const notice = known !== undefined && known.record.sessionGeneration === this.#generation ? known.notice : 'pending';
    const entry: FlowEntry<A> = {
      record,
      flow: createFlow(record.id, record.createdAt),
      nonce: this.#revoked ? null : stateNonce,
      url: event.url,
      message: event.message,
      analysis: event.analysis,
      server: event.server,
      lineage,
      answeredOnWire: requestId !== null,
      requestId,
      consent: null,
      consentDurable: Promise.resolve(),
      opened: false,
      notice,
    };
    this.#flows.delete(event.elicitationId);
    this.#flows.put(event.elicitationId, entry);
    lineage?.elicitations.add(event.elicitationId);
    this.#write((store) => store.putNavigation(record));
    this.#move(entry, 'USER_REVIEW', 'presented');
  }

  /** The host answered on the wire: for a host that draws its own UI (the proxy), that answer is its consent. */
  #onWireAnswer(entry: FlowEntry<A>, action: unknown): void {
    if (entry.flow.state === 'CANCELLED' || entry.flow.state === 'DECLINED') return;
    const decision: ConsentDecision = action === 'accept' ? 'accept' : action === 'decline' ? 'decline' : 'cancel';
    if (entry.consent === null) this.#consent(entry, decision, this.#shown(entry));
    // The host opens the URL itself when it answers accept without the guard's opener.
    if (decision === 'accept' && entry.flow.state === 'NAVIGATION_ACCEPTED') {
      entry.nonce = null;
      this.#move(entry, 'OUT_OF_BAND_PENDING', 'navigation-opened');
    }
  }

  #finishNotice(elicitationId: string): void {
    const entry = this.#flows.get(elicitationId);
    if (entry !== undefined && entry.notice === 'pending') entry.notice = 'finished';
  }

  #shown(entry: FlowEntry<A>): ShownToUser {
    const analysis = entry.analysis as { display?: unknown; findings?: ShownToUser['findings'] };
    return { display: analysis.display, findings: analysis.findings ?? [], message: entry.message };
  }

  #consent(entry: FlowEntry<A>, decision: ConsentDecision, shown: ShownToUser): ConsentReceipt {
    const receipt = createConsentReceipt({ navigationId: entry.record.id, shown, decision }, this.#deps);
    entry.consent = receipt;
    entry.lineage?.consentReceiptIds.push(receipt.id);
    entry.consentDurable = this.#writeStrict((store) => store.putConsentReceipt(receipt));
    this.#onNote({ receipt });
    if (decision === 'accept') this.#move(entry, 'NAVIGATION_ACCEPTED', 'user-accepted');
    else {
      this.#move(entry, decision === 'decline' ? 'DECLINED' : 'CANCELLED', decision === 'decline' ? 'user-declined' : 'user-cancelled');
      entry.nonce = null;
      if (entry.lineage !== null) entry.lineage.refused = true;
    }
    return receipt;
  }

  #verify(entry: FlowEntry<A>, trigger: 'notice-verified' | 'user-confirmed' | 'final-response'): void {
    this.#move(entry, 'REQUIREMENT_VERIFIED', trigger);
    if (entry.lineage === null) return;
    const next = LINEAGE_RULES[entry.lineage.kind].afterVerified;
    this.#move(entry, next.to, next.trigger);
  }

  #expire(entry: FlowEntry<A>): void {
    if (entry.flow.state === 'OUT_OF_BAND_PENDING' && entry.record.expiresAt <= this.#deps.clock())
      this.#move(entry, 'EXPIRED', 'ttl-expired');
  }

  // Moves along the table or throws E_ILLEGAL_TRANSITION (the caller records it).
  #move(entry: FlowEntry<A>, to: FlowState, trigger: FlowTrigger): void {
    const from = entry.flow.state;
    entry.flow = transition(entry.flow, to, trigger, this.#deps.clock());
    const at = entry.flow.updatedAt;
    this.#write((store) => store.updateFlowState(entry.record.id, from, to, trigger, at));
    this.#onNote({ navigationId: entry.record.id, from, to, trigger });
  }

  #require(elicitationId: string): FlowEntry<A> {
    const entry = this.#flows.get(elicitationId);
    if (entry === undefined)
      throw new GuardError(
        GuardCode.unknownNavigation,
        `no URL elicitation with id ${JSON.stringify(elicitationId).slice(0, 80)} in this session`,
      );
    return entry;
  }

  #view(entry: FlowEntry<A>): BookFlowView<A> {
    return {
      navigationId: entry.record.id,
      elicitationId: entry.record.elicitationId,
      state: entry.flow.state,
      lineage: entry.lineage?.kind ?? null,
      server: entry.server,
      message: entry.message,
      url: entry.url,
      analysis: entry.analysis,
      createdAt: entry.record.createdAt,
      expiresAt: entry.record.expiresAt,
      consentReceiptId: entry.consent?.id ?? null,
    };
  }

  // ---------------------------------------------------------------- the store

  /**
   * Issues a write and returns its own outcome. Writes are not chained here: the store applies
   * them in call order (the SQLite ledger commits the writes of one event-loop turn together).
   */
  #writeStrict(op: (store: FlowStore) => Promise<unknown>): Promise<void> {
    const store = this.#store;
    if (store === null) return Promise.resolve();
    const outcome = op(store).then(
      () => undefined,
      (error: unknown) => {
        throw GuardError.is(error)
          ? error
          : new GuardError(GuardCode.ledgerUnavailable, `ledger write failed: ${(error as Error)?.message ?? String(error)}`);
      },
    );
    this.#track(outcome.catch((error: unknown) => this.#onWriteError(error)));
    return outcome;
  }

  #write(op: (store: FlowStore) => Promise<unknown>): void {
    const store = this.#store;
    if (store === null) return;
    this.#track(
      op(store).then(
        () => undefined,
        (error: unknown) => this.#onWriteError(error),
      ),
    );
  }

  #track(write: Promise<void>): void {
    this.#writes.add(write);
    void write.then(() => this.#writes.delete(write));
  }
}
