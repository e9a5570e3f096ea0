/** mulberry32: a small seeded generator, so every simulated figure is the same on every run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Random bytes from a seeded generator, for a guard's injected `random`. */
export function seededBytes(seed: number): (n: number) => Uint8Array {
  const next = seededRandom(seed);
  return (n) => Uint8Array.from({ length: n }, () => Math.floor(next() * 256));
}

/** A log-normal draw with the given median and shape (`sigma` of the underlying normal). */
export function logNormal(random: () => number, median: number, sigma: number): number {
  const u = Math.max(random(), Number.EPSILON);
  const v = random();
  const normal = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  return median * Math.exp(sigma * normal);
}

/** The nearest-rank percentile of `values` (p in (0, 100]). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
