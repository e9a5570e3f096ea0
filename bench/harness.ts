import { Bench, type Fn } from 'tinybench';

export interface PairResult {
  readonly name: string;
  /** Median latency per operation in microseconds (median over the runs). */
  readonly baselineUs: number;
  readonly candidateUs: number;
  /** candidate / baseline of the p50 latency: the cost of the candidate relative to the baseline in the same run (median over the runs). */
  readonly ratio: number;
  /** Each run's candidate / baseline ratios of the p50, the mean and the p99 latency. */
  readonly runs?: readonly RunRatios[];
}

export interface RunRatios {
  readonly p50: number;
  readonly mean: number;
  readonly p99: number;
}

/** The spread of one figure over the runs. */
export interface Spread {
  readonly min: number;
  readonly median: number;
  readonly max: number;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function spread(values: readonly number[]): Spread {
  return { min: Math.min(...values), median: median(values), max: Math.max(...values) };
}

/** `1.012× / 1.020× / 1.031×` (min / median / max). */
export function formatSpread(s: Spread, digits = 3, unit = '×'): string {
  return `${s.min.toFixed(digits)}${unit} / ${s.median.toFixed(digits)}${unit} / ${s.max.toFixed(digits)}${unit}`;
}

interface Latency {
  readonly p50: number;
  readonly mean: number;
  readonly p99: number;
}

function latencyOf(bench: Bench, taskName: string): Latency {
  const task = bench.getTask(taskName);
  const result = task?.result;
  if (result === undefined || !('latency' in result))
    throw new Error(`benchmark task ${taskName} did not complete (${result?.state ?? 'missing'})`);
  const l = result.latency;
  return { p50: l.p50 ?? l.mean, mean: l.mean, p99: l.p99 ?? l.max };
}

/**
 * Measures a candidate against a baseline in the same process, in alternating runs (A,B then B,A)
 * so drift and warm-up do not favour either side. Every run gives its own ratios (p50, mean, p99);
 * the result carries all of them, and the medians.
 */
export async function comparePair(
  name: string,
  baseline: Fn,
  candidate: Fn,
  options: { rounds?: number; timeMs?: number } = {},
): Promise<PairResult> {
  const rounds = options.rounds ?? 3;
  const baselineTimes: number[] = [];
  const candidateTimes: number[] = [];
  const runs: RunRatios[] = [];
  for (let round = 0; round < rounds; round++) {
    const bench = new Bench({ time: options.timeMs ?? 700, warmupTime: 150 });
    if (round % 2 === 0) bench.add('baseline', baseline).add('candidate', candidate);
    else bench.add('candidate', candidate).add('baseline', baseline);
    await bench.run();
    const b = latencyOf(bench, 'baseline');
    const c = latencyOf(bench, 'candidate');
    baselineTimes.push(b.p50 * 1000);
    candidateTimes.push(c.p50 * 1000);
    runs.push({ p50: c.p50 / b.p50, mean: c.mean / b.mean, p99: c.p99 / b.p99 });
  }
  return { name, baselineUs: median(baselineTimes), candidateUs: median(candidateTimes), ratio: median(runs.map((r) => r.p50)), runs };
}

export function printPairs(title: string, results: readonly PairResult[]): void {
  console.log(`\n${title}`);
  console.table(
    results.map((r) => {
      const row: Record<string, string> = {
        case: r.name,
        'baseline p50 µs/op': r.baselineUs.toFixed(2),
        'candidate p50 µs/op': r.candidateUs.toFixed(2),
      };
      if (r.runs === undefined) row.ratio = `${r.ratio.toFixed(3)}×`;
      else {
        row['p50 ratio min/med/max'] = formatSpread(spread(r.runs.map((x) => x.p50)));
        row['mean ratio min/med/max'] = formatSpread(spread(r.runs.map((x) => x.mean)));
        row['p99 ratio min/med/max'] = formatSpread(spread(r.runs.map((x) => x.p99)));
      }
      return row;
    }),
  );
}

function percentileOf(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

function latencyFrom(times: number[]): Latency {
  times.sort((a, b) => a - b);
  return { p50: percentileOf(times, 0.5), mean: times.reduce((s, t) => s + t, 0) / times.length, p99: percentileOf(times, 0.99) };
}

/**
 * Like `comparePair`, for operations that are round trips: each run times every call of both sides
 * in small blocks that alternate between them (and which goes first), so a neighbour's load on a
 * shared machine falls on both sides alike instead of on whichever side ran during it.
 */
export async function compareAlternating(
  name: string,
  baseline: () => Promise<unknown>,
  candidate: () => Promise<unknown>,
  options: { rounds?: number; callsPerRound?: number; block?: number; warmup?: number } = {},
): Promise<PairResult> {
  const rounds = options.rounds ?? 3;
  const calls = options.callsPerRound ?? 10_000;
  const block = options.block ?? 200;
  for (let i = 0; i < (options.warmup ?? 1000); i++) {
    await baseline();
    await candidate();
  }
  const baselineTimes: number[] = [];
  const candidateTimes: number[] = [];
  const runs: RunRatios[] = [];
  for (let round = 0; round < rounds; round++) {
    const times: [number[], number[]] = [[], []];
    const sides = [baseline, candidate] as const;
    for (let done = 0, b = 0; done < calls; done += block, b++) {
      for (const side of b % 2 === 0 ? [0, 1] : [1, 0]) {
        const run = sides[side]!;
        const into = times[side]!;
        for (let i = 0; i < block; i++) {
          const t = performance.now();
          await run();
          into.push((performance.now() - t) * 1000);
        }
      }
    }
    const bl = latencyFrom(times[0]);
    const cl = latencyFrom(times[1]);
    baselineTimes.push(bl.p50);
    candidateTimes.push(cl.p50);
    runs.push({ p50: cl.p50 / bl.p50, mean: cl.mean / bl.mean, p99: cl.p99 / bl.p99 });
  }
  return { name, baselineUs: median(baselineTimes), candidateUs: median(candidateTimes), ratio: median(runs.map((r) => r.p50)), runs };
}
