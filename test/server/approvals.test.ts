import { describe, expect, it } from 'vitest';
import { GuardCode } from '../../src/protocol/errors.js';
import { MemoryApprovalQueue, type ApprovalOutcome, type ApprovalScheduler } from '../../src/server/approvals.js';
import { ServerCode } from '../../src/server/errors.js';

function manualClock(start = 10_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

/** A scheduler the test fires by hand; records delays and cancellations. */
function manualScheduler(): { schedule: ApprovalScheduler; timers: { run: () => void; delayMs: number; cancelled: boolean }[] } {
  const timers: { run: () => void; delayMs: number; cancelled: boolean }[] = [];
  const schedule: ApprovalScheduler = (run, delayMs) => {
    const timer = { run, delayMs, cancelled: false };
    timers.push(timer);
    return () => void (timer.cancelled = true);
  };
  return { schedule, timers };
}

/** Tracks whether a promise has settled, without awaiting it. */
function track(promise: Promise<ApprovalOutcome>): { outcome: ApprovalOutcome | null } {
  const state: { outcome: ApprovalOutcome | null } = { outcome: null };
  void promise.then((o) => void (state.outcome = o));
  return state;
}

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const transfer = { subject: 'alice', operation: 'payments.transfer', summary: 'Transfer 500 EUR to ACME Ltd' };

describe('MemoryApprovalQueue', () => {
  it('waits for an approver and settles with their decision', async () => {
    const queue = new MemoryApprovalQueue({ ttlMs: 60_000, schedule: null });
    const first = queue.request(transfer);
    const second = queue.request({ ...transfer, summary: 'Transfer 9 EUR to Bob' });
    const pending = await queue.pending();
    expect(pending.map((p) => p.summary)).toEqual(['Transfer 500 EUR to ACME Ltd', 'Transfer 9 EUR to Bob']);
    expect(pending[0]).toMatchObject({ subject: 'alice', operation: 'payments.transfer' });
    await queue.decide(pending[0]!.id, 'approved', 'carol');
    await queue.decide(pending[1]!.id, 'rejected', 'carol');
    expect(await first).toBe('approved');
    expect(await second).toBe('rejected');
    expect(await queue.pending()).toEqual([]);
  });

  it('does not let a requester approve their own request', async () => {
    const queue = new MemoryApprovalQueue({ ttlMs: 60_000, schedule: null });
    const state = track(queue.request(transfer));
    const [item] = await queue.pending();
    await expect(queue.decide(item!.id, 'approved', 'alice')).rejects.toMatchObject({ code: ServerCode.selfApproval });
    await flush();
    expect(state.outcome).toBeNull();
    expect(await queue.pending()).toHaveLength(1);
    // Withdrawing one's own request is allowed.
    await queue.decide(item!.id, 'rejected', 'alice');
    await flush();
    expect(state.outcome).toBe('rejected');
  });

  it('decides each request once', async () => {
    const queue = new MemoryApprovalQueue({ ttlMs: 60_000, schedule: null });
    const outcome = queue.request(transfer);
    const [item] = await queue.pending();
    await queue.decide(item!.id, 'rejected', 'carol');
    await expect(queue.decide(item!.id, 'approved', 'dave')).rejects.toMatchObject({ code: ServerCode.unknownApproval });
    await expect(queue.decide('no-such-id', 'approved', 'dave')).rejects.toMatchObject({ code: ServerCode.unknownApproval });
    expect(await outcome).toBe('rejected');
  });

  it('expires requests after the TTL on sweep, and an expired request cannot be approved', async () => {
    const clock = manualClock();
    const queue = new MemoryApprovalQueue({ ttlMs: 1_000, clock: clock.now, schedule: null });
    const state = track(queue.request(transfer));
    const [item] = await queue.pending();
    expect(item!.expiresAt).toBe(item!.requestedAt + 1_000);
    clock.advance(999);
    expect(queue.sweep()).toBe(0);
    clock.advance(1);
    await expect(queue.decide(item!.id, 'approved', 'carol')).rejects.toMatchObject({ code: ServerCode.unknownApproval });
    await flush();
    expect(state.outcome).toBe('expired');
    expect(queue.sweep()).toBe(0);
  });

  it('sweep(now) expires by the given time', async () => {
    const clock = manualClock();
    const queue = new MemoryApprovalQueue({ ttlMs: 1_000, clock: clock.now, schedule: null });
    const outcome = queue.request(transfer);
    await flush();
    expect(queue.sweep(clock.now() + 1_000)).toBe(1);
    expect(await outcome).toBe('expired');
  });

  it('wakes itself through the scheduler, re-arming when the timer fires before the clock says so', async () => {
    const clock = manualClock();
    const { schedule, timers } = manualScheduler();
    const queue = new MemoryApprovalQueue({ ttlMs: 1_000, clock: clock.now, schedule });
    const state = track(queue.request(transfer));
    await flush();
    expect(timers.map((t) => t.delayMs)).toEqual([1_000]);
    clock.advance(998);
    timers[0]!.run();
    await flush();
    expect(state.outcome).toBeNull();
    expect(timers.map((t) => t.delayMs)).toEqual([1_000, 2]);
    clock.advance(2);
    timers[1]!.run();
    await flush();
    expect(state.outcome).toBe('expired');
  });

  it('cancels the timer of a decided request', async () => {
    const { schedule, timers } = manualScheduler();
    const queue = new MemoryApprovalQueue({ ttlMs: 1_000, schedule });
    const outcome = queue.request(transfer);
    const [item] = await queue.pending();
    await queue.decide(item!.id, 'approved', 'carol');
    expect(await outcome).toBe('approved');
    expect(timers[0]!.cancelled).toBe(true);
  });

  it('refuses new requests past its cap', async () => {
    const queue = new MemoryApprovalQueue({ ttlMs: 60_000, schedule: null, maxPending: 2 });
    void queue.request(transfer);
    void queue.request(transfer);
    await expect(queue.request(transfer)).rejects.toMatchObject({ code: ServerCode.approvalQueueFull });
    expect(await queue.pending()).toHaveLength(2);
  });

  it('refuses a summary that would show an approver a secret', async () => {
    const queue = new MemoryApprovalQueue({ ttlMs: 60_000, schedule: null });
    const key = 'sk_live_FAKEapprovalTEST0123456789';
    const rejection = queue.request({ ...transfer, summary: `rotate key ${key}` });
    await expect(rejection).rejects.toMatchObject({ code: GuardCode.secretInContent });
    await expect(rejection).rejects.not.toThrow(key);
    expect(await queue.pending()).toEqual([]);
  });

  it('rejects malformed requests and decisions', async () => {
    const queue = new MemoryApprovalQueue({ ttlMs: 60_000, schedule: null });
    await expect(queue.request({ ...transfer, subject: '' })).rejects.toMatchObject({ code: GuardCode.input });
    void queue.request(transfer);
    const [item] = await queue.pending();
    await expect(queue.decide(item!.id, 'maybe' as never, 'carol')).rejects.toMatchObject({ code: GuardCode.input });
    await expect(queue.decide(item!.id, 'approved', ' ')).rejects.toMatchObject({ code: GuardCode.input });
    expect(() => new MemoryApprovalQueue({ ttlMs: 0 })).toThrowError(expect.objectContaining({ code: GuardCode.input }));
  });
});
