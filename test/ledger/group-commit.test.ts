import { describe, expect, it } from 'vitest';
import { GroupCommitter, type CommitGroup, type Settled } from '../../src/ledger/group-commit.js';

/** A store that runs each write and logs every transaction; `fail` makes the next transaction fail as a whole. */
function fakeStore(log: string[]) {
  const store = { fail: null as Error | null };
  const commit: CommitGroup = (writes) => {
    log.push(`commit ${writes.length}`);
    if (store.fail !== null) {
      const error = store.fail;
      store.fail = null;
      throw error;
    }
    return writes.map((write): Settled => {
      try {
        return { ok: true, value: write() };
      } catch (error) {
        return { ok: false, error };
      }
    });
  };
  return { store, commit };
}

describe('GroupCommitter', () => {
  it('writes everything submitted in one turn as one transaction, in order, and answers each caller with its own result', async () => {
    const log: string[] = [];
    const { commit } = fakeStore(log);
    const committer = new GroupCommitter(commit, 100);
    const ran: number[] = [];
    const answers = await Promise.all(
      [1, 2, 3, 4].map((n) =>
        committer.submit(() => {
          ran.push(n);
          return n * 10;
        }),
      ),
    );
    expect(answers).toEqual([10, 20, 30, 40]);
    expect(ran).toEqual([1, 2, 3, 4]);
    expect(log).toEqual(['commit 4']);
    expect(committer.stats()).toEqual({ commits: 1, writes: 4, failures: 0, largestGroup: 4 });
  });

  it('gathers callers that reach it through promise chains of different depths in the same turn', async () => {
    const log: string[] = [];
    const { commit } = fakeStore(log);
    const committer = new GroupCommitter(commit, 100);
    const deep = async (depth: number): Promise<number> => (depth === 0 ? committer.submit(() => depth) : deep(depth - 1));
    const direct = committer.submit(() => 'direct');
    const nested = [1, 5, 20].map(async (depth) => {
      await Promise.resolve();
      return deep(depth);
    });
    await Promise.all([direct, ...nested]);
    expect(log).toEqual(['commit 4']);
  });

  it('does not hold a lone caller back: each awaited call is its own transaction', async () => {
    const log: string[] = [];
    const { commit } = fakeStore(log);
    const committer = new GroupCommitter(commit, 100);
    for (let i = 0; i < 3; i++) expect(await committer.submit(() => i)).toBe(i);
    expect(log).toEqual(['commit 1', 'commit 1', 'commit 1']);
  });

  it('bounds a transaction, and answers the first group before writing the next', async () => {
    const log: string[] = [];
    const { commit } = fakeStore(log);
    const committer = new GroupCommitter(commit, 10);
    const calls = Array.from({ length: 25 }, (_, i) => committer.submit(() => i).then((value) => log.push(`answer ${value}`)));
    await Promise.all(calls);
    const expected: string[] = [];
    for (const [start, size] of [
      [0, 10],
      [10, 10],
      [20, 5],
    ] as const) {
      expected.push(`commit ${size}`);
      for (let i = start; i < start + size; i++) expected.push(`answer ${i}`);
    }
    expect(log).toEqual(expected);
    expect(committer.stats()).toEqual({ commits: 3, writes: 25, failures: 0, largestGroup: 10 });
  });

  it('puts a write submitted while a group is being answered into the next transaction', async () => {
    const log: string[] = [];
    const { commit } = fakeStore(log);
    const committer = new GroupCommitter(commit, 100);
    const follow = await Promise.all([1, 2].map((n) => committer.submit(() => n).then((v) => committer.submit(() => v + 100))));
    expect(follow).toEqual([101, 102]);
    expect(log).toEqual(['commit 2', 'commit 2']);
  });

  it('rejects only the caller whose own write failed', async () => {
    const log: string[] = [];
    const { commit } = fakeStore(log);
    const committer = new GroupCommitter(commit, 100);
    const results = await Promise.allSettled([
      committer.submit(() => 'a'),
      committer.submit(() => {
        throw new Error('own failure');
      }),
      committer.submit(() => 'c'),
    ]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual(['a', 'own failure', 'c']);
    expect(log).toEqual(['commit 3']);
  });

  it('rejects every caller of a transaction that failed as a whole, and goes on with the next group', async () => {
    const log: string[] = [];
    const { store, commit } = fakeStore(log);
    const committer = new GroupCommitter(commit, 100);
    const failure = new Error('disk full');
    store.fail = failure;
    const failed = await Promise.allSettled([committer.submit(() => 1), committer.submit(() => 2)]);
    expect(failed).toEqual([
      { status: 'rejected', reason: failure },
      { status: 'rejected', reason: failure },
    ]);
    expect(await committer.submit(() => 3)).toBe(3);
    expect(committer.stats()).toEqual({ commits: 1, writes: 1, failures: 1, largestGroup: 1 });
  });

  it('drains the queue at once, bounded group by group, for a store about to close', async () => {
    const log: string[] = [];
    const { commit } = fakeStore(log);
    const committer = new GroupCommitter(commit, 4);
    const calls = Array.from({ length: 6 }, (_, i) => committer.submit(() => i));
    committer.drain();
    expect(log).toEqual(['commit 4', 'commit 2']);
    expect(await Promise.all(calls)).toEqual([0, 1, 2, 3, 4, 5]);
    // The flush that was scheduled before the drain finds nothing left to write.
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(['commit 4', 'commit 2']);
  });
});

describe('GroupCommitter with adaptive sizing', () => {
  /** A store whose transactions cost `cost(n)` ms on an injected clock; logs each group's size. */
  function timedStore(cost: (n: number) => number) {
    let time = 0;
    const sizes: number[] = [];
    const commit: CommitGroup = (writes) => {
      sizes.push(writes.length);
      time += cost(writes.length);
      return writes.map((write): Settled => ({ ok: true, value: write() }));
    };
    return { commit, sizes, now: () => time };
  }
  // An fsync of 2 ms shared by the group, 0.01 ms per write, and past 64 writes a spill that costs 0.05 ms per extra write.
  const spilling = (n: number) => 2 + 0.01 * n + (n > 64 ? 0.05 * (n - 64) : 0);
  const burst = (committer: GroupCommitter, n: number) => Promise.all(Array.from({ length: n }, (_, i) => committer.submit(() => i)));

  it('climbs from a small start to the size with the lowest time per write and stays there', async () => {
    const { commit, sizes, now } = timedStore(spilling);
    const committer = new GroupCommitter(commit, 256, { initial: 16, min: 8, now });
    await burst(committer, 20_000);
    expect(committer.groupSize()).toBe(64);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(256);
    // After settling, most groups are cut at the best size; probes are the exception.
    const late = sizes.slice(-100);
    expect(late.filter((n) => n === 64).length).toBeGreaterThan(80);
  });

  it('comes down from a start that is too large', async () => {
    const { commit, now } = timedStore(spilling);
    const committer = new GroupCommitter(commit, 256, { initial: 256, min: 8, now });
    await burst(committer, 20_000);
    expect(committer.groupSize()).toBe(64);
  });

  it('keeps to its bounds and does not move on noise-free flat costs', async () => {
    const { commit, sizes, now } = timedStore((n) => 0.04 * n);
    const committer = new GroupCommitter(commit, 100, { initial: 64, min: 32, now });
    await burst(committer, 10_000);
    expect(committer.groupSize()).toBe(64);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(100);
    expect(Math.min(...sizes.slice(0, -1))).toBeGreaterThanOrEqual(32);
  });

  it('learns nothing from groups that were not cut (the queue was smaller than the size)', async () => {
    const { commit, now } = timedStore(spilling);
    const committer = new GroupCommitter(commit, 256, { initial: 16, min: 8, now });
    for (let i = 0; i < 200; i++) await burst(committer, 10);
    expect(committer.groupSize()).toBe(16);
  });

  it('cuts at maxGroupSize when not adaptive', async () => {
    const { commit, sizes } = timedStore(spilling);
    const committer = new GroupCommitter(commit, 50);
    await burst(committer, 1_000);
    expect(committer.groupSize()).toBe(50);
    expect(new Set(sizes)).toEqual(new Set([50]));
  });
});
