/**
 * The URL-mode flows of one guard: each URL elicitation's navigation record, its place in the
 * lifecycle table, its consent receipt, and the lineage it belongs to. State lives here, in memory
 * and bounded; every record, move and receipt is also written, in order, to the ledger.
 *
 * Ledger writes are issued in order and do not hold up messages, except where durability is the
 * point: a consent receipt is durable before anything is opened, and a business receipt is
 * durable before the answer it accepts is delivered.
 */
import type { ServerIdentity } from '../audit/events.js';
import { createConsentReceipt, createNavigation, matchesStateNonce, type BusinessReceipt, type ConsentDecision, type ConsentReceipt, type NavigationRecord, type RecordDeps, type ShownToUser } from '../flow/records.js';
import { createFlow, transition, type Flow, type FlowState, type FlowTrigger } from '../flow/states.js';
import type { Ledger } from '../ledger/types.js';
import type { Lineage, RequirementProgress } from '../lineage/lineage.js';
import type { Policy } from '../policy/policy.js';
import { GuardCode, GuardError } from '../protocol/errors.js';
import type { UrlAnalysis } from '../url/types.js';

/** What a host sees of a URL-mode flow. The URL is held in memory only, never written to the ledger. */
export interface FlowView {
  readonly navigationId: string;
  readonly elicitationId: string;
  readonly state: FlowState;
  readonly lineage: 'nested' | 'error-retry' | 'input-required' | null;
  readonly server: ServerIdentity;
  readonly message: string;
  readonly url: string;
  readonly analysis: UrlAnalysis;
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

interface Entry {
  readonly record: NavigationRecord;
  flow: Flow;
  /** The state nonce, until it is used or revoked. */
  nonce: string | null;
  readonly url: string;
  readonly message: string;
  readonly analysis: UrlAnalysis;
  readonly server: ServerIdentity;
  readonly lineage: Lineage | null;
  consent: ConsentReceipt | null;
  /** Settles when the consent receipt is in the ledger; rejects when it could not be written. */
  consentDurable: Promise<void>;
  opened: boolean;
}

const LIVE: ReadonlySet<FlowState> = new Set(['CREATED', 'USER_REVIEW', 'NAVIGATION_ACCEPTED', 'OUT_OF_BAND_PENDING', 'COMPLETION_NOTIFIED', 'EXPIRED', 'USER_RETRY', 'REQUIREMENT_VERIFIED', 'ERROR_RETRY_ELIGIBLE', 'OPTIONAL_CLIENT_RETRY', 'NESTED_SERVER_CONTINUES']);

const VERIFIED: ReadonlySet<FlowState> = new Set(['REQUIREMENT_VERIFIED', 'ERROR_RETRY_ELIGIBLE', 'OPTIONAL_CLIENT_RETRY', 'RETRY_RESPONSE_ACCEPTED']);

export type FlowNote = { readonly navigationId: string; readonly from: FlowState; readonly to: FlowState; readonly trigger: FlowTrigger } | { readonly receipt: ConsentReceipt | BusinessReceipt };

export class FlowBook {
  readonly #entries = new Map<string, Entry>();
  readonly #policy: Policy;
  readonly #deps: RecordDeps;
  readonly #ledger: Ledger | null;
  readonly #onWriteError: (error: unknown) => void;
  readonly #onNote: (note: FlowNote) => void;
  /** Ledger writes not yet settled (each one already handles its own failure). */
  readonly #inFlight = new Set<Promise<void>>();
  #revoked = false;

  constructor(options: { policy: Policy; deps: RecordDeps; ledger: Ledger | null; onWriteError: (error: unknown) => void; onNote: (note: FlowNote) => void }) {
    this.#policy = options.policy;
    this.#deps = options.deps;
    this.#ledger = options.ledger;
    this.#onWriteError = options.onWriteError;
    this.#onNote = options.onNote;
  }

  /** A URL elicitation is about to reach the user: record it and put it in review. */
  present(input: { elicitationId: string; url: string; message: string; analysis: UrlAnalysis; server: ServerIdentity; subject: string | null; generation: number; lineage: Lineage | null }): Entry {
    const { record, stateNonce } = createNavigation(
      {
        elicitationId: input.elicitationId,
        server: input.server,
        subject: input.subject,
        originalRequestDigest: input.lineage?.digest ?? null,
        url: input.url,
        redirectPolicy: this.#policy.url.redirectHosts.length > 0 ? this.#policy.url.redirectHosts : 'any',
        purpose: input.message,
        ttlMs: this.#policy.completion.ttlSeconds * 1000,
        sessionGeneration: input.generation,
      },
      this.#deps,
    );
    const entry: Entry = { record, flow: createFlow(record.id, record.createdAt), nonce: this.#revoked ? null : stateNonce, url: input.url, message: input.message, analysis: input.analysis, server: input.server, lineage: input.lineage, consent: null, consentDurable: Promise.resolve(), opened: false };
    this.#entries.delete(input.elicitationId);
    this.#entries.set(input.elicitationId, entry);
    this.#evict();
    input.lineage?.elicitations.add(input.elicitationId);
    this.#write((ledger) => ledger.putNavigation(record));
    this.#move(entry, 'USER_REVIEW', 'presented');
    return entry;
  }

  get(elicitationId: string): Entry | undefined {
    return this.#entries.get(elicitationId);
  }

  /**
   * Records the user's decision before anything is opened. Resolves once the consent receipt is
   * durable; for `accept` it returns the ticket that `open` requires.
   */
  async recordConsent(elicitationId: string, decision: ConsentDecision, shown?: ShownToUser): Promise<OpenTicket | null> {
    const entry = this.#require(elicitationId);
    if (entry.consent !== null) throw new GuardError(GuardCode.illegalTransition, `elicitation ${entry.record.id} already has a consent decision (${entry.consent.decision})`);
    const receipt = this.#consent(entry, decision, shown ?? { display: entry.analysis.display, findings: entry.analysis.findings, message: entry.message });
    // Rejects when the receipt could not be written: then nothing may be opened.
    await entry.consentDurable;
    if (decision !== 'accept' || entry.nonce === null) return null;
    return { receipt, nonce: entry.nonce };
  }

  /** Opens the URL of an accepted flow, once, with its ticket. Never before a durable consent receipt. */
  async open(ticket: OpenTicket, opener: Opener): Promise<void> {
    const entry = [...this.#entries.values()].find((e) => e.consent?.id === ticket.receipt.id);
    if (entry === undefined) throw new GuardError(GuardCode.unknownNavigation, 'no flow has this consent receipt');
    if (entry.consent?.decision !== 'accept') throw new GuardError(GuardCode.illegalTransition, 'the user did not accept this navigation');
    if (entry.opened) throw new GuardError(GuardCode.illegalTransition, 'this navigation was already opened');
    if (this.#revoked || entry.nonce === null) throw new GuardError(GuardCode.issuingStopped, 'URL elicitations are stopped: pending navigations were revoked');
    if (!matchesStateNonce(entry.record, ticket.nonce)) throw new GuardError(GuardCode.illegalTransition, 'the ticket does not open this navigation');
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

  /** The host answered the `elicitation/create` on the wire. */
  onAnswer(elicitationId: string, action: unknown): void {
    const entry = this.#entries.get(elicitationId);
    if (entry === undefined) return;
    // Already decided through the guard (the handler, or a manual control): the wire answer adds nothing.
    if (entry.flow.state === 'CANCELLED' || entry.flow.state === 'DECLINED') return;
    const decision: ConsentDecision = action === 'accept' ? 'accept' : action === 'decline' ? 'decline' : 'cancel';
    // A host that draws its own UI (the proxy) answers on the wire only: the answer is its consent.
    if (entry.consent === null) this.#consent(entry, decision, { display: entry.analysis.display, findings: entry.analysis.findings, message: entry.message });
    // The host opens the URL itself when it answers accept without the guard's opener.
    if (decision === 'accept' && entry.flow.state === 'NAVIGATION_ACCEPTED') {
      entry.nonce = null;
      this.#move(entry, 'OUT_OF_BAND_PENDING', 'navigation-opened');
    }
  }

  /** A completion notice for a known id: the requirement is met (a hint: it never accepts the original). */
  onNotice(elicitationId: string): 'advanced' | 'before-consent' | 'ignored' {
    const entry = this.#entries.get(elicitationId);
    if (entry === undefined) return 'ignored';
    this.#expire(entry);
    const state = entry.flow.state;
    if (state === 'USER_REVIEW' || state === 'NAVIGATION_ACCEPTED' || state === 'CREATED') return 'before-consent';
    if (state !== 'OUT_OF_BAND_PENDING') return 'ignored';
    this.#move(entry, 'COMPLETION_NOTIFIED', 'completion-notice');
    this.#verify(entry, 'notice-verified');
    return 'advanced';
  }

  /** The user says the out-of-band step is done (the spec's manual control). */
  confirm(elicitationId: string): FlowView {
    const entry = this.#require(elicitationId);
    this.#expire(entry);
    if (entry.flow.state === 'EXPIRED') this.#move(entry, 'USER_RETRY', 'manual-recovery');
    this.#verify(entry, 'user-confirmed');
    return this.#view(entry);
  }

  /** The user takes up a stalled flow by hand: pending or expired → USER_RETRY. */
  retry(elicitationId: string): FlowView {
    const entry = this.#require(elicitationId);
    this.#expire(entry);
    this.#move(entry, 'USER_RETRY', 'manual-recovery');
    return this.#view(entry);
  }

  /** The user gives up: the flow is cancelled, and its lineage will never be retried. */
  cancel(elicitationId: string): FlowView {
    const entry = this.#require(elicitationId);
    this.#expire(entry);
    if (entry.flow.state === 'OUT_OF_BAND_PENDING' || entry.flow.state === 'EXPIRED') this.#move(entry, 'USER_RETRY', 'manual-recovery');
    this.#move(entry, 'CANCELLED', 'user-cancelled');
    if (entry.lineage !== null) entry.lineage.refused = true;
    entry.nonce = null;
    return this.#view(entry);
  }

  /** The server answered the nested original, or the retry after `-32042`: move its flows to the end. */
  settleLineage(lineage: Lineage, accepted: boolean): void {
    for (const id of lineage.elicitations) {
      const entry = this.#entries.get(id);
      if (entry === undefined) continue;
      if (lineage.kind !== 'error-retry') {
        if (['OUT_OF_BAND_PENDING', 'COMPLETION_NOTIFIED', 'USER_RETRY'].includes(entry.flow.state)) this.#verify(entry, 'final-response');
        if (accepted && entry.flow.state === 'NESTED_SERVER_CONTINUES') this.#move(entry, 'ORIGINAL_RESPONSE_ACCEPTED', 'final-response');
      } else if (accepted && entry.flow.state === 'OPTIONAL_CLIENT_RETRY') {
        this.#move(entry, 'RETRY_RESPONSE_ACCEPTED', 'retry-response');
      }
    }
  }

  /** How far the requirements of an error lineage got (see `RequirementProgress`). */
  progress(lineage: Lineage): RequirementProgress {
    let seen = false;
    let verified = true;
    for (const id of lineage.elicitations) {
      const entry = this.#entries.get(id);
      if (entry === undefined) continue;
      if (entry.consent !== null) seen = true;
      if (!VERIFIED.has(entry.flow.state)) verified = false;
    }
    if (!seen) return 'unseen';
    return verified ? 'verified' : 'pending';
  }

  /** The host sent the retry of an error lineage. */
  onRetry(lineage: Lineage): void {
    for (const id of lineage.elicitations) {
      const entry = this.#entries.get(id);
      if (entry !== undefined && entry.flow.state === 'ERROR_RETRY_ELIGIBLE') this.#move(entry, 'OPTIONAL_CLIENT_RETRY', 'client-retry');
    }
  }

  /** The server withdrew the elicitation (`notifications/cancelled`) while the user was reviewing it. */
  serverCancelled(elicitationId: string): void {
    const entry = this.#entries.get(elicitationId);
    if (entry === undefined || entry.flow.state !== 'USER_REVIEW') return;
    this.#move(entry, 'CANCELLED', 'server-cancelled');
    entry.nonce = null;
  }

  /** Rollback: pending nonces are revoked; flows stay as they are, neither failed nor succeeded. */
  revokeAll(): void {
    this.#revoked = true;
    for (const entry of this.#entries.values()) entry.nonce = null;
  }

  pending(): FlowView[] {
    const views: FlowView[] = [];
    for (const entry of this.#entries.values()) {
      this.#expire(entry);
      // A flow without an original operation ends at REQUIREMENT_VERIFIED: nothing waits for it.
      const done = entry.flow.state === 'REQUIREMENT_VERIFIED' && entry.lineage === null;
      if (LIVE.has(entry.flow.state) && !done) views.push(this.#view(entry));
    }
    return views;
  }

  view(elicitationId: string): FlowView | null {
    const entry = this.#entries.get(elicitationId);
    return entry === undefined ? null : this.#view(entry);
  }

  /** Writes a business receipt and resolves with the ledger's word on it (durable, at most once per lineage). */
  acceptBusiness(receipt: BusinessReceipt): Promise<boolean> {
    this.#onNote({ receipt });
    const ledger = this.#ledger;
    if (ledger === null) return Promise.resolve(true);
    const outcome = ledger.acceptBusinessReceipt(receipt).then((o) => o.accepted);
    this.#track(outcome.then(
      () => undefined,
      (error: unknown) => this.#onWriteError(error),
    ));
    return outcome;
  }

  /** Resolves when every write issued so far is done. */
  async flush(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight]);
  }

  #consent(entry: Entry, decision: ConsentDecision, shown: ShownToUser): ConsentReceipt {
    const receipt = createConsentReceipt({ navigationId: entry.record.id, shown, decision }, this.#deps);
    entry.consent = receipt;
    entry.lineage?.consentReceiptIds.push(receipt.id);
    entry.consentDurable = this.#writeStrict((ledger) => ledger.putConsentReceipt(receipt));
    this.#onNote({ receipt });
    if (decision === 'accept') this.#move(entry, 'NAVIGATION_ACCEPTED', 'user-accepted');
    else {
      this.#move(entry, decision === 'decline' ? 'DECLINED' : 'CANCELLED', decision === 'decline' ? 'user-declined' : 'user-cancelled');
      entry.nonce = null;
      if (entry.lineage !== null) entry.lineage.refused = true;
    }
    return receipt;
  }

  #verify(entry: Entry, trigger: 'notice-verified' | 'user-confirmed' | 'final-response'): void {
    this.#move(entry, 'REQUIREMENT_VERIFIED', trigger);
    const lineage = entry.lineage;
    if (lineage === null) return;
    // The input-required chain (2026-07-28) continues like a nested one: the server answers the retry itself.
    if (lineage.kind !== 'error-retry') this.#move(entry, 'NESTED_SERVER_CONTINUES', 'nested-lineage');
    else this.#move(entry, 'ERROR_RETRY_ELIGIBLE', 'error-lineage');
  }

  #expire(entry: Entry): void {
    if (entry.flow.state === 'OUT_OF_BAND_PENDING' && entry.record.expiresAt <= this.#deps.clock()) this.#move(entry, 'EXPIRED', 'ttl-expired');
  }

  // Moves along the table or throws E_ILLEGAL_TRANSITION (the caller records it).
  #move(entry: Entry, to: FlowState, trigger: FlowTrigger): void {
    const from = entry.flow.state;
    entry.flow = transition(entry.flow, to, trigger, this.#deps.clock());
    const at = entry.flow.updatedAt;
    this.#write((ledger) => ledger.updateFlowState(entry.record.id, from, to, trigger, at));
    this.#onNote({ navigationId: entry.record.id, from, to, trigger });
  }

  #require(elicitationId: string): Entry {
    const entry = this.#entries.get(elicitationId);
    if (entry === undefined) throw new GuardError(GuardCode.unknownNavigation, `no URL elicitation with id ${JSON.stringify(elicitationId).slice(0, 80)} in this session`);
    return entry;
  }

  #view(entry: Entry): FlowView {
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

  #evict(): void {
    const max = this.#policy.completion.maxPending;
    for (const [id] of this.#entries) {
      if (this.#entries.size <= max) break;
      this.#entries.delete(id);
    }
  }

  /**
   * Issues a write and returns its own outcome. Writes are not chained here: the ledger applies
   * them in call order (the SQLite ledger commits the writes of one event-loop turn together).
   */
  #writeStrict(op: (ledger: Ledger) => Promise<unknown>): Promise<void> {
    const ledger = this.#ledger;
    if (ledger === null) return Promise.resolve();
    const outcome = op(ledger).then(
      () => undefined,
      (error: unknown) => {
        throw GuardError.is(error) ? error : new GuardError(GuardCode.ledgerUnavailable, `ledger write failed: ${(error as Error)?.message ?? String(error)}`);
      },
    );
    this.#track(outcome.catch((error: unknown) => this.#onWriteError(error)));
    return outcome;
  }

  #write(op: (ledger: Ledger) => Promise<unknown>): void {
    const ledger = this.#ledger;
    if (ledger === null) return;
    this.#track(op(ledger).then(
      () => undefined,
      (error: unknown) => this.#onWriteError(error),
    ));
  }

  #track(write: Promise<void>): void {
    this.#inFlight.add(write);
    void write.then(() => this.#inFlight.delete(write));
  }
}
