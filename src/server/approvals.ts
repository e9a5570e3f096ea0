/**
 * A manual-approval queue for high-risk confirmations: the operation waits until a second person
 * approves or rejects it, or until it expires. Nobody approves their own request (four eyes).
 */

import { randomBytes } from 'node:crypto';
import { GuardCode, GuardError } from '../protocol/errors.js';
import { findSecret } from '../secrets/index.js';
import { ServerCode } from './errors.js';

export type ApprovalDecision = 'approved' | 'rejected';
export type ApprovalOutcome = ApprovalDecision | 'expired';

export interface ApprovalRequest {
  /** The verified subject asking for the operation. */
  readonly subject: string;
  /** What would run, e.g. a tool name or an operation digest. */
  readonly operation: string;
  /** What the approver reads. Never a secret: a summary holding a secret-shaped value is refused. */
  readonly summary: string;
}

export interface PendingApproval extends ApprovalRequest {
  readonly id: string;
  readonly requestedAt: number;
  readonly expiresAt: number;
}

export interface ApprovalQueue {
  /** Queues a request; settles when it is decided or expires. */
  request(request: ApprovalRequest): Promise<ApprovalOutcome>;
  /** Requests still waiting for a decision, oldest first. */
  pending(): Promise<readonly PendingApproval[]>;
  /**
   * Decides a pending request. Throws `E_UNKNOWN_APPROVAL` if it is not pending (unknown, decided
   * or expired) and `E_SELF_APPROVAL` if the approver is the requester and approves.
   */
  decide(id: string, decision: ApprovalDecision, approver: string): Promise<void>;
}

/** Calls `run` after `delayMs`; returns a function that cancels it. */
export type ApprovalScheduler = (run: () => void, delayMs: number) => () => void;

export interface MemoryApprovalQueueOptions {
  /** How long a request waits before it expires. */
  readonly ttlMs: number;
  /** Milliseconds since the epoch; injected so expiry is testable. */
  readonly clock?: () => number;
  /**
   * Wakes the queue when a request's TTL is up. Default: `setTimeout`, unref'd so a waiting request
   * never keeps the process alive. `null`: no timers; expiry happens on `sweep` and on every call.
   */
  readonly schedule?: ApprovalScheduler | null;
  /** Cap on pending requests; past it `request` rejects with `E_APPROVAL_QUEUE_FULL`. Default 1 000. */
  readonly maxPending?: number;
  /** Request id source; injected for tests. Default 96 random bits, base64url. */
  readonly newId?: () => string;
}

interface Entry {
  readonly info: PendingApproval;
  readonly settle: (outcome: ApprovalOutcome) => void;
  cancelTimer: () => void;
}

const timerScheduler: ApprovalScheduler = (run, delayMs) => {
  const timer = setTimeout(run, delayMs);
  timer.unref();
  return () => clearTimeout(timer);
};

function nonEmpty(value: unknown, what: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw new GuardError(GuardCode.input, `${what} must be a non-empty string`);
  return value;
}

/**
 * An approval queue in process memory.
 *
 * @example
 *   const approvals = new MemoryApprovalQueue({ ttlMs: 15 * 60_000 });
 *   const outcome = await approvals.request({ subject, operation: 'payments.transfer', summary: 'Transfer 500 EUR to ACME' });
 *   if (outcome !== 'approved') return refuse(outcome);
 */
export class MemoryApprovalQueue implements ApprovalQueue {
  readonly #ttlMs: number;
  readonly #clock: () => number;
  readonly #schedule: ApprovalScheduler | null;
  readonly #maxPending: number;
  readonly #newId: () => string;
  readonly #pending = new Map<string, Entry>();

  constructor(options: MemoryApprovalQueueOptions) {
    if (!Number.isSafeInteger(options.ttlMs) || options.ttlMs <= 0)
      throw new GuardError(GuardCode.input, 'ttlMs must be a positive integer');
    const max = options.maxPending ?? 1_000;
    if (!Number.isSafeInteger(max) || max <= 0) throw new GuardError(GuardCode.input, 'maxPending must be a positive integer');
    this.#ttlMs = options.ttlMs;
    this.#clock = options.clock ?? Date.now;
    this.#schedule = options.schedule === undefined ? timerScheduler : options.schedule;
    this.#maxPending = max;
    this.#newId = options.newId ?? (() => randomBytes(12).toString('base64url'));
  }

  async request(request: ApprovalRequest): Promise<ApprovalOutcome> {
    const subject = nonEmpty(request.subject, 'subject');
    const operation = nonEmpty(request.operation, 'operation');
    const summary = nonEmpty(request.summary, 'summary');
    for (const [what, text] of [
      ['operation', operation],
      ['summary', summary],
    ] as const) {
      const match = findSecret(text);
      if (match !== null)
        throw new GuardError(
          GuardCode.secretInContent,
          `the approval ${what} holds a value shaped like a secret (${match.rule}); approvers must never see secrets`,
        );
    }
    const now = this.#clock();
    this.sweep(now);
    if (this.#pending.size >= this.#maxPending)
      throw new GuardError(ServerCode.approvalQueueFull, `the approval queue already holds ${this.#maxPending} pending requests`);
    const id = nonEmpty(this.#newId(), 'a new approval id');
    if (this.#pending.has(id)) throw new GuardError(GuardCode.internal, 'the approval id source repeated an id');
    const info: PendingApproval = Object.freeze({ id, subject, operation, summary, requestedAt: now, expiresAt: now + this.#ttlMs });
    return new Promise<ApprovalOutcome>((resolve) => {
      const entry: Entry = { info, settle: resolve, cancelTimer: () => undefined };
      this.#pending.set(id, entry);
      this.#arm(entry, this.#ttlMs);
    });
  }

  async pending(): Promise<readonly PendingApproval[]> {
    this.sweep();
    return Object.freeze([...this.#pending.values()].map((e) => e.info));
  }

  async decide(id: string, decision: ApprovalDecision, approver: string): Promise<void> {
    nonEmpty(approver, 'approver');
    if (decision !== 'approved' && decision !== 'rejected')
      throw new GuardError(GuardCode.input, 'decision must be "approved" or "rejected"');
    this.sweep();
    const entry = this.#pending.get(id);
    if (entry === undefined)
      throw new GuardError(ServerCode.unknownApproval, 'no pending approval with that id (unknown, already decided or expired)');
    // Rejecting one's own request is a withdrawal and harmless; approving it would defeat the second pair of eyes.
    if (decision === 'approved' && approver === entry.info.subject)
      throw new GuardError(ServerCode.selfApproval, 'an approver cannot approve their own request');
    this.#settle(id, entry, decision);
  }

  /** Expires every request whose TTL is up at `now`. Returns how many expired. */
  sweep(now: number = this.#clock()): number {
    let count = 0;
    for (const [id, entry] of this.#pending) {
      if (entry.info.expiresAt > now) continue;
      this.#settle(id, entry, 'expired');
      count++;
    }
    return count;
  }

  // Timers may fire a little before the clock agrees the TTL is up; then wait out the remainder.
  #arm(entry: Entry, delayMs: number): void {
    if (this.#schedule === null) return;
    entry.cancelTimer = this.#schedule(() => {
      this.sweep();
      if (this.#pending.get(entry.info.id) === entry) this.#arm(entry, Math.max(1, entry.info.expiresAt - this.#clock()));
    }, delayMs);
  }

  #settle(id: string, entry: Entry, outcome: ApprovalOutcome): void {
    this.#pending.delete(id);
    entry.cancelTimer();
    entry.settle(outcome);
  }
}
