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

/**
 * Lets the group size follow what the store is fastest at. Bigger groups share one fsync among
 * more writes, but past some size a transaction costs more per write (its dirty pages outgrow the
 * page cache and spill, the lock is held longer); where that is depends on the disk, the page
 * cache and the file. So the committer measures: it times every group that was cut at the current
 * size (the queue held more), keeps a moving average of the time per write for each size it has
 * tried, probes the size twice and half as large now and then, and settles on the cheapest.
 */
export interface AdaptiveSizing {
  /** The size to start from. */
  readonly initial: number;
  /** Never below this. */
  readonly min: number;
  /** A clock in milliseconds (injected so tests can give each group a cost). */
  readonly now: () => number;
}

/** Full groups between two probes of a neighbouring size. */
const PROBE_EVERY = 8;
/** Weight of the newest group in a size's moving average. */
const EMA_WEIGHT = 0.25;

interface Queued {
  readonly write: () => unknown;
  readonly settle: (answer: Settled) => void;
}

export class GroupCommitter {
  readonly #commitGroup: CommitGroup;
  readonly #maxGroupSize: number;
  readonly #sizing: AdaptiveSizing | null;
  /** The size groups are cut at now (≤ #maxGroupSize). */
  #target: number;
  /** Moving average of milliseconds per write, by group size, over groups cut at that size. */
  readonly #costPerWrite = new Map<number, number>();
  #fullGroups = 0;
  /** The size to return to after a probe group. */
  #settled: number;
  #queue: Queued[] = [];
  #scheduled = false;
  #commits = 0;
  #writes = 0;
  #failures = 0;
  #largestGroup = 0;

  /**
   * `maxGroupSize` bounds one transaction, so a burst is written as several and no caller waits
   * behind all of it. With `sizing`, groups are cut at a measured size within [min, maxGroupSize].
   */
  constructor(commitGroup: CommitGroup, maxGroupSize: number, sizing: AdaptiveSizing | null = null) {
    this.#commitGroup = commitGroup;
    this.#maxGroupSize = maxGroupSize;
    this.#sizing = sizing;
    this.#target = sizing === null ? maxGroupSize : clamp(sizing.initial, Math.min(sizing.min, maxGroupSize), maxGroupSize);
    this.#settled = this.#target;
  }

  /** The size groups are cut at now: `maxGroupSize`, or the measured size when adaptive. */
  groupSize(): number {
    return this.#target;
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
    const size = this.#target;
    const full = this.#queue.length > size;
    if (!full) {
      group = this.#queue;
      this.#queue = [];
    } else {
      group = this.#queue.splice(0, size);
    }
    if (group.length === 0) return;
    let answers: readonly Settled[];
    const started = this.#sizing?.now() ?? 0;
    try {
      answers = this.#commitGroup(group.map((q) => q.write));
    } catch (error) {
      this.#failures++;
      for (const q of group) q.settle({ ok: false, error });
      return;
    }
    if (full && this.#sizing !== null) this.#learn(size, (this.#sizing.now() - started) / size);
    this.#commits++;
    this.#writes += group.length;
    this.#largestGroup = Math.max(this.#largestGroup, group.length);
    group.forEach((q, i) => q.settle(answers[i] ?? { ok: false, error: new Error('the store answered fewer writes than it was given') }));
  }

  /** Records the cost of a full group and picks the size of the next one. */
  #learn(size: number, msPerWrite: number): void {
    const sizing = this.#sizing!;
    const before = this.#costPerWrite.get(size);
    this.#costPerWrite.set(size, before === undefined ? msPerWrite : before + EMA_WEIGHT * (msPerWrite - before));
    if (size !== this.#settled) {
      // That was a probe: settle on whichever of the sizes tried around the settled one is cheapest.
      this.#settled = this.#cheapestAround(this.#settled, sizing.min);
      this.#target = this.#settled;
      return;
    }
    this.#fullGroups++;
    if (this.#fullGroups % PROBE_EVERY !== 0) return;
    // Probe a neighbour: alternately the size twice and half as large, where the bounds allow.
    const up = Math.min(size * 2, this.#maxGroupSize);
    const down = Math.max(size >> 1, Math.min(sizing.min, this.#maxGroupSize), 1);
    const probe = (this.#fullGroups / PROBE_EVERY) % 2 === 1 ? (up !== size ? up : down) : down !== size ? down : up;
    if (probe !== size) this.#target = probe;
  }

  #cheapestAround(size: number, min: number): number {
    let best = size;
    let bestCost = this.#costPerWrite.get(size) ?? Number.POSITIVE_INFINITY;
    for (const candidate of [Math.min(size * 2, this.#maxGroupSize), Math.max(size >> 1, Math.min(min, this.#maxGroupSize), 1)]) {
      const cost = this.#costPerWrite.get(candidate);
      // A neighbour has to be clearly cheaper (5 %) to move: noise alone should not make the size wander.
      if (cost !== undefined && cost < bestCost * 0.95) {
        best = candidate;
        bestCost = cost;
      }
    }
    return best;
  }
}

function clamp(value: number, min: number, max: number): number {
  return Math.max(min, Math.min(max, value));
}
