/**
 * Group commit for a synchronous store. A commit is an fsync, and an fsync costs the same for one
 * write as for a hundred, so writes are not run when they are submitted: they are queued, and the
 * queue is written on `setImmediate`, as one transaction. Every write submitted during the same
 * event-loop turn (the same I/O callback and every promise chain it sets off) lands in one group.
 * A lone writer waits for no timer and no other writer: its group is written at the end of the turn.
 *
 * Each caller's promise settles only after the transaction holding its write has returned from
 * COMMIT, with its own answer. A write that fails on its own (the store reports it as
 * `{ ok: false }`) fails alone; when the transaction fails as a whole, every caller in it is
 * rejected with that error. No write is retried: a failure of the whole transaction comes from the
 * store (a lock held too long, I/O, a full disk), and retrying each write alone would meet it again
 * once per write.
 */

/** One write's answer inside a group that committed. */
export type Settled = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown };

/**
 * Runs the writes, in order, in one transaction and returns one answer per write, in the same
 * order. Throws when the transaction as a whole failed; then nothing of it may be stored.
 */
export type CommitGroup = (writes: readonly (() => unknown)[]) => readonly Settled[];

export interface GroupCommitStats {
  /** Transactions that committed. */
  readonly commits: number;
  /** Writes those transactions carried, whatever each write's own answer was. */
  readonly writes: number;
  /** Transactions that failed as a whole; every caller in them was rejected. */
  readonly failures: number;
  /** The most writes one transaction has carried. */
  readonly largestGroup: number;
}

interface Queued {
  readonly write: () => unknown;
  readonly settle: (answer: Settled) => void;
}

export class GroupCommitter {
  readonly #commitGroup: CommitGroup;
  readonly #maxGroupSize: number;
  #queue: Queued[] = [];
  #scheduled = false;
  #commits = 0;
  #writes = 0;
  #failures = 0;
  #largestGroup = 0;

  /** `maxGroupSize` bounds one transaction, so a burst is written as several and no caller waits behind all of it. */
  constructor(commitGroup: CommitGroup, maxGroupSize: number) {
    this.#commitGroup = commitGroup;
    this.#maxGroupSize = maxGroupSize;
  }

  /** Queues `write` for the next group; resolves with its result once that group has committed. */
  submit<R>(write: () => R): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.#queue.push({ write, settle: (answer) => (answer.ok ? resolve(answer.value as R) : reject(answer.error)) });
      this.#schedule();
    });
  }

  /** Writes everything queued now, group by group (used before the store is closed). */
  drain(): void {
    while (this.#queue.length > 0) this.#commitNext();
  }

  stats(): GroupCommitStats {
    return Object.freeze({ commits: this.#commits, writes: this.#writes, failures: this.#failures, largestGroup: this.#largestGroup });
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(this.#flush);
  }

  readonly #flush = (): void => {
    this.#scheduled = false;
    this.#commitNext();
    // What is left over the bound goes in the next turn, after the first group's callers have been answered.
    if (this.#queue.length > 0) this.#schedule();
  };

  #commitNext(): void {
    let group: Queued[];
    if (this.#queue.length <= this.#maxGroupSize) {
      group = this.#queue;
      this.#queue = [];
    } else {
      group = this.#queue.splice(0, this.#maxGroupSize);
    }
    if (group.length === 0) return;
    let answers: readonly Settled[];
    try {
      answers = this.#commitGroup(group.map((q) => q.write));
    } catch (error) {
      this.#failures++;
      for (const q of group) q.settle({ ok: false, error });
      return;
    }
    this.#commits++;
    this.#writes += group.length;
    this.#largestGroup = Math.max(this.#largestGroup, group.length);
    group.forEach((q, i) => q.settle(answers[i] ?? { ok: false, error: new Error('the store answered fewer writes than it was given') }));
  }
}
