/**
 * Pending connect flows, server side. A flow is bound to the verified subject it was issued for;
 * each opening of its connect page starts a fresh attempt with its own state nonce (kept only as a
 * digest) and PKCE verifier. States are single use: a redeemed or superseded state is remembered as
 * a tombstone until the flow would have expired, so a replay is told apart from a forgery.
 */
import type { NavigationRecord } from '../flow/records.js';

/** One trip to the provider: the navigation record (with the state digest) and its PKCE verifier. */
export interface ConnectAttempt {
  readonly navigation: NavigationRecord;
  /** The PKCE code verifier. It never leaves the server; only its S256 challenge is sent. */
  readonly codeVerifier: string;
}

export type ConnectFlowStatus = 'pending' | 'completed';

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
}

export type StateLookup =
  | { readonly kind: 'live'; readonly flow: ConnectFlow }
  | { readonly kind: 'used' }
  | { readonly kind: 'unknown' };

/** The connect service's state. Implementations must make `takeState` atomic: one caller wins. */
export interface ConnectFlowStore {
  add(flow: ConnectFlow): void;
  get(id: string): ConnectFlow | null;
  /** Replaces the flow's attempt; the previous attempt's state becomes a tombstone. */
  startAttempt(id: string, attempt: ConnectAttempt): void;
  /** Finds the flow whose live attempt has this state digest and retires the state, at most once. */
  takeState(stateDigest: string): StateLookup;
  /** Looks a state digest up without retiring it. */
  peekState(stateDigest: string): StateLookup;
  /** pending → completed; false when the flow was not pending (someone else completed it). */
  complete(id: string): boolean;
  /** Drops flows and tombstones whose time is up; returns how many flows were dropped. */
  sweep(now: number): number;
  readonly size: number;
}

/** A bounded in-memory store: one process, lost on restart (the user then opens the link again). */
export class MemoryConnectFlowStore implements ConnectFlowStore {
  readonly #flows = new Map<string, ConnectFlow>();
  readonly #liveStates = new Map<string, string>();
  readonly #usedStates = new Map<string, number>();
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

  startAttempt(id: string, attempt: ConnectAttempt): void {
    const flow = this.#flows.get(id);
    if (flow === undefined) throw new Error('no connect flow with this id');
    if (flow.attempt !== null) this.#retire(flow.attempt.navigation.stateNonceDigest, flow.expiresAt);
    this.#flows.set(id, Object.freeze({ ...flow, attempt }));
    this.#liveStates.set(attempt.navigation.stateNonceDigest, id);
  }

  takeState(stateDigest: string): StateLookup {
    const found = this.peekState(stateDigest);
    if (found.kind === 'live') this.#retire(stateDigest, found.flow.expiresAt);
    return found;
  }

  peekState(stateDigest: string): StateLookup {
    const id = this.#liveStates.get(stateDigest);
    const flow = id === undefined ? undefined : this.#flows.get(id);
    if (flow !== undefined) return { kind: 'live', flow };
    return this.#usedStates.has(stateDigest) ? { kind: 'used' } : { kind: 'unknown' };
  }

  complete(id: string): boolean {
    const flow = this.#flows.get(id);
    if (flow === undefined || flow.status !== 'pending') return false;
    this.#flows.set(id, Object.freeze({ ...flow, status: 'completed' }));
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
    for (const [digest, until] of this.#usedStates) if (until <= now) this.#usedStates.delete(digest);
    return dropped;
  }

  #retire(stateDigest: string, until: number): void {
    this.#liveStates.delete(stateDigest);
    this.#usedStates.set(stateDigest, until);
  }
}
