/** Damerau-Levenshtein distance (optimal string alignment), for "did you mean" hints. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The known name nearest to `input`, when it is near enough to be a typo (at most a third of its
 * length, and at most 3 edits; case differences count as half an edit); otherwise `null`.
 */
export function nearest(input: string, known: Iterable<string>): string | null {
  let best: string | null = null;
  let bestScore = Infinity;
  for (const candidate of known) {
    if (candidate === input) return candidate;
    const folded = editDistance(input.toLowerCase(), candidate.toLowerCase());
    const score = folded + (input.toLowerCase() === candidate.toLowerCase() ? 0.5 : editDistance(input, candidate) > folded ? 0.25 : 0);
    if (score < bestScore) {
      best = candidate;
      bestScore = score;
    }
  }
  if (best === null) return null;
  const limit = Math.min(3, Math.max(1, Math.floor(Math.max(input.length, best.length) / 3)));
  return bestScore <= limit ? best : null;
}
