/**
 * Counts acceptances per lineage key, independently of the lineage's own `accepted` flag, so a
 * second acceptance shows up in the metrics even if the at-most-once rule were broken. Bounded: the
 * oldest keys are forgotten first (lineage keys are per session generation, so old ones are done).
 */
export class AcceptanceTally {
  readonly #counts = new Map<string, number>();
  readonly #limit: number;
  #max = 0;

  constructor(limit = 4096) {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError('limit must be a positive integer');
    this.#limit = limit;
  }

  /** Records one acceptance for `key`; returns how many that key has had. */
  record(key: string): number {
    const count = (this.#counts.get(key) ?? 0) + 1;
    this.#counts.delete(key);
    this.#counts.set(key, count);
    if (this.#counts.size > this.#limit) this.#counts.delete(this.#counts.keys().next().value as string);
    if (count > this.#max) this.#max = count;
    return count;
  }

  /** The most acceptances any key got (including keys forgotten since). */
  get max(): number {
    return this.#max;
  }

  get size(): number {
    return this.#counts.size;
  }
}

/**
 * Whether a completion notice broke the rule "only a known pending id may move anything": it was
 * delivered to the host or advanced a flow although the book did not know its id as pending.
 */
export function noticeAdvancedUnknown(knownPending: boolean, delivered: boolean, advanced: boolean): boolean {
  return !knownPending && (delivered || advanced);
}
