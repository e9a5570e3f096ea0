/**
 * How many runs a property gets. `FC_RUNS` sets it (the `test:long` script asks for 10,000);
 * `FC_SEED` (with `FC_PATH`) replays a failure that fast-check reported.
 */
import type fc from 'fast-check';

export function runCount(fallback: number): number {
  const raw = Number(process.env.FC_RUNS);
  return Number.isInteger(raw) && raw > 0 ? raw : fallback;
}

export function propertyParameters<T>(fallback: number): fc.Parameters<T> {
  const seed = Number(process.env.FC_SEED);
  const replay: fc.Parameters<T> = Number.isInteger(seed) ? { seed, ...(process.env.FC_PATH ? { path: process.env.FC_PATH } : {}) } : {};
  // fast-check puts the seed, the shrunk path and the counterexample in its failure message.
  return { numRuns: runCount(fallback), ...replay };
}

/** A vitest timeout that grows with the number of runs (the default 5 s is for the default count). */
export function timeoutFor(fallback: number, msPerRun = 10): number {
  return 30_000 + runCount(fallback) * msPerRun;
}
