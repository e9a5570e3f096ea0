/**
 * Capability leases: when a user finishes the URL elicitation a `-32042` asked for, the server
 * grants a short lease for exactly that (subject, operation). The retry consumes it once. A retry
 * by another subject, for another operation, after the lease expired, or a second time finds no
 * lease, so the requirement one user satisfied never unlocks another user's call.
 */

import { randomBytes } from 'node:crypto';
import { GuardCode, GuardError } from '../protocol/errors.js';

export interface LeaseBookOptions {
  /** Milliseconds since the epoch; injected so expiry is testable. */
  readonly clock?: () => number;
  /** Cap on live leases; past it expired ones go first, then the oldest. Default 10 000. */
  readonly maxLeases?: number;
  /** Lease id source; injected for tests. Default 128 random bits, base64url. */
  readonly newId?: () => string;
}

interface Lease {
  readonly subject: string;
  readonly operationDigest: string;
  readonly expiresAt: number;
}

function nonEmpty(value: unknown, what: string): string {
  if (typeof value !== 'string' || value.length === 0) throw new GuardError(GuardCode.input, `${what} must be a non-empty string`);
  return value;
}

function pairKey(subject: string, operationDigest: string): string {
  return JSON.stringify([subject, operationDigest]);
}

/**
 * Single-use, subject- and operation-bound, expiring leases.
 *
 * @example
 *   const leases = new LeaseBook();
 *   // in the OAuth callback, once the user is verified as `subject`:
 *   const id = leases.grant(subject, requestDigest('tools/call', params), 5 * 60_000);
 *   // in the retried tools/call (the client never sees `id`):
 *   if (!leases.consumeFor(subject, requestDigest('tools/call', params))) throw urlElicitationRequired(...);
 */
export class LeaseBook {
  readonly #clock: () => number;
  readonly #maxLeases: number;
  readonly #newId: () => string;
  readonly #leases = new Map<string, Lease>();
  // (subject, operation) → lease ids, so a retry can be matched without the client ever holding a lease id.
  readonly #byPair = new Map<string, Set<string>>();

  constructor(options: LeaseBookOptions = {}) {
    const max = options.maxLeases ?? 10_000;
    if (!Number.isSafeInteger(max) || max <= 0) throw new GuardError(GuardCode.input, 'maxLeases must be a positive integer');
    this.#clock = options.clock ?? Date.now;
    this.#maxLeases = max;
    this.#newId = options.newId ?? (() => randomBytes(16).toString('base64url'));
  }

  /** How many leases are live (granted, unexpired, unused). */
  get size(): number {
    this.#sweep(this.#clock());
    return this.#leases.size;
  }

  /** Grants a lease valid for `ttlMs` and returns its id. */
  grant(subject: string, operationDigest: string, ttlMs: number): string {
    nonEmpty(subject, 'subject');
    nonEmpty(operationDigest, 'operationDigest');
    if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0) throw new GuardError(GuardCode.input, 'ttlMs must be a positive integer');
    const now = this.#clock();
    if (this.#leases.size >= this.#maxLeases) this.#sweep(now);
    while (this.#leases.size >= this.#maxLeases) {
      const oldest = this.#leases.keys().next();
      if (oldest.done) break;
      this.#delete(oldest.value);
    }
    const id = nonEmpty(this.#newId(), 'a new lease id');
    if (this.#leases.has(id)) throw new GuardError(GuardCode.internal, 'the lease id source repeated an id');
    this.#leases.set(id, { subject, operationDigest, expiresAt: now + ttlMs });
    const key = pairKey(subject, operationDigest);
    const ids = this.#byPair.get(key);
    if (ids === undefined) this.#byPair.set(key, new Set([id]));
    else ids.add(id);
    return id;
  }

  /**
   * True exactly once for a live lease granted to this subject for this operation. A mismatched
   * subject or operation leaves the lease in place, so someone who learns a lease id cannot burn it.
   */
  consume(leaseId: string, subject: string, operationDigest: string): boolean {
    const lease = this.#leases.get(leaseId);
    if (lease === undefined) return false;
    if (lease.expiresAt <= this.#clock()) {
      this.#delete(leaseId);
      return false;
    }
    if (lease.subject !== subject || lease.operationDigest !== operationDigest) return false;
    this.#delete(leaseId);
    return true;
  }

  /**
   * Consumes one live lease granted to this subject for this operation, whichever its id: for a
   * retry, where the server knows who is calling and what, but the client holds no lease id.
   */
  consumeFor(subject: string, operationDigest: string): boolean {
    const ids = this.#byPair.get(pairKey(subject, operationDigest));
    if (ids === undefined) return false;
    for (const id of [...ids]) if (this.consume(id, subject, operationDigest)) return true;
    return false;
  }

  /** Drops a lease unused (e.g. the user cancelled). True if it was live. */
  revoke(leaseId: string): boolean {
    return this.#delete(leaseId);
  }

  #delete(leaseId: string): boolean {
    const lease = this.#leases.get(leaseId);
    if (lease === undefined) return false;
    this.#leases.delete(leaseId);
    const key = pairKey(lease.subject, lease.operationDigest);
    const ids = this.#byPair.get(key);
    ids?.delete(leaseId);
    if (ids?.size === 0) this.#byPair.delete(key);
    return true;
  }

  // TTLs differ per lease, so expired leases may sit anywhere: a full scan, run only when needed.
  #sweep(now: number): void {
    for (const [id, lease] of this.#leases) if (lease.expiresAt <= now) this.#delete(id);
  }
}
