import { Bench, type Fn } from 'tinybench';

export interface PairResult {
  readonly name: string;
  /** Median latency per operation in microseconds. */
  readonly baselineUs: number;
  readonly candidateUs: number;
  /** candidate / baseline: the cost of the candidate relative to the baseline in the same run. */
  readonly ratio: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

async function p50(bench: Bench, taskName: string): Promise<number> {
  const task = bench.getTask(taskName);
  const result = task?.result;
  if (result === undefined || !('latency' in result)) throw new Error(`benchmark task ${taskName} did not complete (${result?.state ?? 'missing'})`);
  return result.latency.p50 ?? result.latency.mean;
}

/**
 * Measures a candidate against a baseline in the same process, in alternating rounds (A,B then
 * B,A) so drift and warm-up do not favour either side; reports medians over the rounds.
 */
export async function comparePair(name: string, baseline: Fn, candidate: Fn, options: { rounds?: number; timeMs?: number } = {}): Promise<PairResult> {
  const rounds = options.rounds ?? 3;
  const baselineTimes: number[] = [];
  const candidateTimes: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const bench = new Bench({ time: options.timeMs ?? 700, warmupTime: 150 });
    if (round % 2 === 0) bench.add('baseline', baseline).add('candidate', candidate);
    else bench.add('candidate', candidate).add('baseline', baseline);
    await bench.run();
    const b = await p50(bench, 'baseline');
    const c = await p50(bench, 'candidate');
    baselineTimes.push(b * 1000);
    candidateTimes.push(c * 1000);
    ratios.push(c / b);
  }
  return { name, baselineUs: median(baselineTimes), candidateUs: median(candidateTimes), ratio: median(ratios) };
}

export function printPairs(title: string, results: readonly PairResult[]): void {
  console.log(`\n${title}`);
  console.table(
    results.map((r) => ({
      case: r.name,
      'baseline µs/op': r.baselineUs.toFixed(2),
      'candidate µs/op': r.candidateUs.toFixed(2),
      ratio: `${r.ratio.toFixed(3)}×`,
    })),
  );
}
