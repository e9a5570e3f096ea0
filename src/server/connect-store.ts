/**
 * Pending connect flows, server side. A flow is bound to the verified subject it was issued for;
 * each opening of its connect page starts a fresh attempt with its own state nonce (kept only as a
 * digest), PKCE verifier and browser binding (the digest of a cookie set in the browser that opened
 * the page). States are single use: a redeemed, refused or superseded state is remembered as a
 * tombstone until the flow would have expired, so a replay is told apart from a forgery.
 *
 * A flow ends once: `completed` (a token was stored) or `retired` (a callback for it was refused;
 * the reason is kept). A retired flow never binds anything; the user starts a new one.
 */
import type { NavigationRecord } from '../flow/records.js';
import type { ConnectCode } from './connect-audit.js';

/** A value or a promise of it: the memory store answers at once, database stores asynchronously. */
export type Awaitable<T> = T | Promise<T>;

/** One trip to the provider: the navigation record (with the state digest), its PKCE verifier and browser binding. */
export interface ConnectAttempt {
  readonly navigation: NavigationRecord;
  /** The PKCE code verifier. It never leaves the server; only its S256 challenge is sent. */
  readonly codeVerifier: string;
  /**
   * sha256 (hex) of the browser-binding cookie set on the connect page that started this attempt.
   * The callback is honoured only in a browser that presents the cookie.
   */
  readonly browserBindingDigest: string;
}

export type ConnectFlowStatus = 'pending' | 'completed' | 'retired';

export interface ConnectFlow {
  /** The opaque id in the connect URL. */
  readonly id: string;
  readonly elicitationId: string;
  /** The verified MCP user subject the flow was issued for. */
  readonly subject: string;
  /** Where the completion notice goes (the initiating MCP session); delivery only, never identity. */
  readonly session: string | null;
  readonly purpose: string;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly status: ConnectFlowStatus;
  readonly attempt: ConnectAttempt | null;
  /** Why a callback for this flow was refused, when it was (`status` is then `retired`). */
  readonly retiredReason: ConnectCode | null;
  readonly endedAt: number | null;
}

export type StateLookup =
  | { readonly kind: 'live'; readonly flow: ConnectFlow }
  /** The state was redeemed, refused or superseded; `flowId` is the flow it belonged to, if still kept. */
  | { readonly kind: 'used'; readonly flowId: string | null }
  | { readonly kind: 'unknown' };

/**
 * The connect service's state. Implementations must make `takeState`, `complete` and `retire`
 * atomic (one caller wins, also across processes sharing a database) and keep every field of
 * `ConnectFlow` and `ConnectAttempt` as given. `MemoryConnectFlowStore` is the reference; the
 * SQLite and PostgreSQL stores pass the same contract tests.
 */
export interface ConnectFlowStore {
  add(flow: ConnectFlow): Awaitable<void>;
  get(id: string): Awaitable<ConnectFlow | null>;
  /**
   * Replaces a pending flow's attempt; the previous attempt's state becomes a tombstone. False (and
   * nothing changes) when the flow is unknown or no longer pending.
   */
  startAttempt(id: string, attempt: ConnectAttempt): Awaitable<boolean>;
  /**
   * Finds the flow whose live attempt has this state digest and retires the state, at most once.
   * The live result carries the attempt; the stored flow keeps none afterwards (`attempt: null`),
   * so the PKCE verifier does not outlive its one use.
   */
  takeState(stateDigest: string): Awaitable<StateLookup>;
  /** pending → completed; false when the flow was not pending (completed or retired by someone else). */
  complete(id: string, at: number): Awaitable<boolean>;
  /**
   * pending (or completed, when storing its token failed) → retired with `reason`; the live state,
   * if any, becomes a tombstone and the attempt is dropped. False when the flow is unknown or
   * already retired.
   */
  retire(id: string, reason: ConnectCode, at: number): Awaitable<boolean>;
  /** Drops flows and tombstones whose time is up; returns how many flows were dropped. */
  sweep(now: number): Awaitable<number>;
}

/** A bounded in-memory store: one process, lost on restart (the user then opens the link again). */
export class MemoryConnectFlowStore implements ConnectFlowStore {
  readonly #flows = new Map<string, ConnectFlow>();
  readonly #liveStates = new Map<string, string>();
  readonly #usedStates = new Map<string, { readonly until: number; readonly flowId: string }>();
  readonly #capacity: number;

  constructor(capacity = 10_000) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new RangeError('capacity must be a positive integer');
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#flows.size;
  }

  add(flow: ConnectFlow): void {
    if (this.#flows.has(flow.id)) throw new Error('a connect flow with this id exists');
    if (this.#flows.size >= this.#capacity) throw new RangeError('the connect flow store is full');
    this.#flows.set(flow.id, Object.freeze({ ...flow }));
  }

  get(id: string): ConnectFlow | null {
    return this.#flows.get(id) ?? null;
  }

  startAttempt(id: string, attempt: ConnectAttempt): boolean {
    const flow = this.#flows.get(id);
    if (flow === undefined || flow.status !== 'pending') return false;
    if (flow.attempt !== null) this.#retireState(flow.attempt.navigation.stateNonceDigest, flow);
    this.#flows.set(id, Object.freeze({ ...flow, attempt }));
    this.#liveStates.set(attempt.navigation.stateNonceDigest, id);
    return true;
  }

  takeState(stateDigest: string): StateLookup {
    const id = this.#liveStates.get(stateDigest);
    const flow = id === undefined ? undefined : this.#flows.get(id);
    if (flow !== undefined) {
      this.#retireState(stateDigest, flow);
      // The attempt (its PKCE verifier) goes to the caller only; the store keeps no copy.
      this.#flows.set(flow.id, Object.freeze({ ...flow, attempt: null }));
      return { kind: 'live', flow };
    }
    const used = this.#usedStates.get(stateDigest);
    return used === undefined ? { kind: 'unknown' } : { kind: 'used', flowId: this.#flows.has(used.flowId) ? used.flowId : null };
  }

  complete(id: string, at: number): boolean {
    const flow = this.#flows.get(id);
    if (flow === undefined || flow.status !== 'pending') return false;
    this.#flows.set(id, Object.freeze({ ...flow, status: 'completed', endedAt: at }));
    return true;
  }

  retire(id: string, reason: ConnectCode, at: number): boolean {
    const flow = this.#flows.get(id);
    if (flow === undefined || flow.status === 'retired') return false;
    if (flow.attempt !== null && this.#liveStates.get(flow.attempt.navigation.stateNonceDigest) === id)
      this.#retireState(flow.attempt.navigation.stateNonceDigest, flow);
    this.#flows.set(id, Object.freeze({ ...flow, status: 'retired', retiredReason: reason, endedAt: at, attempt: null }));
    return true;
  }

  sweep(now: number): number {
    let dropped = 0;
    for (const [id, flow] of this.#flows) {
      if (flow.expiresAt > now) continue;
      if (flow.attempt !== null) this.#liveStates.delete(flow.attempt.navigation.stateNonceDigest);
      this.#flows.delete(id);
      dropped += 1;
    }
    for (const [digest, used] of this.#usedStates) if (used.until <= now) this.#usedStates.delete(digest);
    return dropped;
  }

  #retireState(stateDigest: string, flow: ConnectFlow): void {
    this.#liveStates.delete(stateDigest);
    this.#usedStates.set(stateDigest, { until: flow.expiresAt, flowId: flow.id });
  }
}
