/**
 * "Completion reconciliation p99": N URL flows through one guard on simulated time. The browser
 * step ends at a random time; the server's completion notice is lost with probability 0.3; when it
 * is lost (or arrives too late to count), the user confirms by hand through the host's
 * "I have finished" control, which the host UI refreshes every few seconds. Measured: from the end
 * of the browser step to the guard's REQUIREMENT_VERIFIED, read from the guard's own events.
 */
import { logNormal, percentile, seededRandom } from './random.js';
import { notice, openedFlow, simulatedGuard, type SimulatedGuard } from './sim.js';
import type { GateLine } from './types.js';

export interface ReconcileParams {
  readonly flows: number;
  readonly seed: number;
  readonly noticeLoss: number;
  /** Mean time between new flows. */
  readonly arrivalMeanMs: number;
  /** How long the browser step takes (log-normal median and shape). */
  readonly browserMedianMs: number;
  readonly browserSigma: number;
  /** Network and server delay of a notice that is not lost. */
  readonly noticeDelayMaxMs: number;
  /** When the user notices the browser step is done and comes back to the host (log-normal). */
  readonly userMedianMs: number;
  readonly userSigma: number;
  /** The host UI's poll: the manual control acts on the first tick after the user came back. */
  readonly uiPollMs: number;
  readonly thresholdMs: number;
}

export const DEFAULT_RECONCILE: ReconcileParams = {
  flows: 2000,
  seed: 7,
  noticeLoss: 0.3,
  arrivalMeanMs: 3000,
  browserMedianMs: 45_000,
  browserSigma: 0.6,
  noticeDelayMaxMs: 1500,
  // Median 12 s, p99 about 60 s: users come back within about a minute.
  userMedianMs: 12_000,
  userSigma: 0.7,
  uiPollMs: 5000,
  thresholdMs: 120_000,
};

type Action = (sim: SimulatedGuard) => Promise<void> | void;

/** A binary min-heap of timed actions; ties run in scheduling order. */
class Agenda {
  readonly #heap: { at: number; order: number; run: Action }[] = [];
  #order = 0;

  /** Times are whole milliseconds: the guard's clock reads integers. */
  at(time: number, run: Action): void {
    const heap = this.#heap;
    const at = Math.ceil(time);
    heap.push({ at, order: this.#order++, run });
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.#less(heap[parent]!, heap[i]!)) break;
      [heap[parent], heap[i]] = [heap[i]!, heap[parent]!];
      i = parent;
    }
  }

  next(): { at: number; run: Action } | undefined {
    const heap = this.#heap;
    const top = heap[0];
    const last = heap.pop();
    if (top === undefined || last === undefined || heap.length === 0) return top;
    heap[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && this.#less(heap[l]!, heap[m]!)) m = l;
      if (r < heap.length && this.#less(heap[r]!, heap[m]!)) m = r;
      if (m === i) break;
      [heap[m], heap[i]] = [heap[i]!, heap[m]!];
      i = m;
    }
    return top;
  }

  #less(a: { at: number; order: number }, b: { at: number; order: number }): boolean {
    return a.at < b.at || (a.at === b.at && a.order < b.order);
  }
}

export interface ReconcileResult {
  readonly flows: number;
  readonly lost: number;
  readonly byHand: number;
  readonly unverified: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

export async function simulateReconciliation(params: ReconcileParams = DEFAULT_RECONCILE): Promise<ReconcileResult> {
  const random = seededRandom(params.seed);
  const sim = simulatedGuard(params.seed);
  const agenda = new Agenda();
  const doneAt = new Map<string, number>();
  const navigationToFlow = new Map<string, string>();
  let lost = 0;
  let byHand = 0;

  const confirmByHand = (id: string, from: number, openedAt: number): void => {
    const back = from + logNormal(random, params.userMedianMs, params.userSigma);
    // The control is drawn on the UI's poll ticks, counted from when the URL was opened.
    const tick = openedAt + Math.ceil((back - openedAt) / params.uiPollMs) * params.uiPollMs;
    agenda.at(tick, ({ guard }) => {
      const state = guard.flow(id)?.state;
      if (state === 'OUT_OF_BAND_PENDING' || state === 'EXPIRED' || state === 'USER_RETRY') {
        byHand++;
        guard.confirmFlow(id);
      }
    });
  };

  let arrival = sim.now;
  for (let i = 0; i < params.flows; i++) {
    arrival += -Math.log(Math.max(random(), Number.EPSILON)) * params.arrivalMeanMs;
    const id = `flow-${i}`;
    const browserDone = Math.ceil(arrival + logNormal(random, params.browserMedianMs, params.browserSigma));
    const isLost = random() < params.noticeLoss;
    const noticeAt = browserDone + random() * params.noticeDelayMaxMs;
    const openedAt = arrival;
    agenda.at(arrival, async (s) => {
      await openedFlow(s, 100_000 + i, id, `https://accounts.example.com/connect/${i}`);
      // Finished flows are forgotten once the session's table is full; the mapping is kept here.
      const view = s.guard.flow(id);
      if (view !== null) navigationToFlow.set(view.navigationId, id);
    });
    agenda.at(browserDone, () => void doneAt.set(id, browserDone));
    if (isLost) {
      lost++;
      confirmByHand(id, browserDone, openedAt);
    } else {
      agenda.at(noticeAt, (s) => {
        notice(s, id);
        // A notice that came too late to count (the flow expired) leaves the user to confirm.
        const state = s.guard.flow(id)?.state;
        if (state === 'OUT_OF_BAND_PENDING' || state === 'EXPIRED') confirmByHand(id, browserDone, openedAt);
      });
    }
  }

  for (let step = agenda.next(); step !== undefined; step = agenda.next()) {
    sim.now = Math.max(sim.now, step.at);
    await step.run(sim);
  }
  await sim.guard.flush();

  const latencies: number[] = [];
  const verified = new Set<string>();
  for (const event of sim.events) {
    if (event.type !== 'flow.transition' || event.to !== 'REQUIREMENT_VERIFIED') continue;
    const id = navigationToFlow.get(event.navigation);
    const done = id === undefined ? undefined : doneAt.get(id);
    if (id === undefined || done === undefined || verified.has(id)) continue;
    verified.add(id);
    latencies.push(event.at - done);
  }
  return {
    flows: params.flows,
    lost,
    byHand,
    unverified: params.flows - verified.size,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    maxMs: latencies.reduce((m, v) => Math.max(m, v), 0),
  };
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

export async function reconcileLine(params: ReconcileParams = DEFAULT_RECONCILE): Promise<GateLine> {
  const r = await simulateReconciliation(params);
  return {
    name: 'completion reconciliation p99 (lost notices)',
    measured: `p99 ${seconds(r.p99Ms)} (p50 ${seconds(r.p50Ms)})`,
    threshold: `< ${seconds(params.thresholdMs)}`,
    pass: r.unverified === 0 && r.p99Ms < params.thresholdMs,
    notes: [
      `${r.flows} flows (seed ${params.seed}), ${r.lost} notices lost (${params.noticeLoss * 100} %), ${r.byHand} confirmed ` +
        `by hand, ${r.unverified} never verified, max ${seconds(r.maxMs)}`,
      `user back after log-normal(median ${seconds(params.userMedianMs)}, σ ${params.userSigma}), UI poll ` +
        `every ${seconds(params.uiPollMs)}, notices delayed up to ${seconds(params.noticeDelayMaxMs)}`,
    ],
  };
}
