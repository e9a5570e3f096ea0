import type { LineageKey } from '../flow/records.js';

/** Counters a host can export as metrics. Monotonic within a guard's life. */
export interface GuardMetrics {
  elicitationsForwarded: number;
  elicitationsRefused: number;
  sensitiveFieldsBlocked: number;
  /** Sensitive form fields that reached the host (only in `onSensitive: "audit"` mode). */
  sensitiveFieldsLetThrough: number;
  contentWithheld: number;
  completionsDelivered: number;
  completionsDropped: number;
  urlRequiredFiltered: number;
  internalErrors: number;
  /**
   * Invariant: completion notices whose id was not a known pending id of this session generation
   * (by the registry's word, taken before the notice was judged) and that were still delivered or
   * advanced a flow. Must stay 0.
   */
  completionNoticesAdvancingUnknown: number;
  /** Final answers of original operations accepted (business receipts written and accepted). */
  originalOperationsAccepted: number;
  /** Invariant: the most acceptances any one lineage key got. Must stay at most 1. */
  maxAcceptancesPerLineage: number;
}

export function emptyMetrics(): GuardMetrics {
  return {
    elicitationsForwarded: 0,
    elicitationsRefused: 0,
    sensitiveFieldsBlocked: 0,
    sensitiveFieldsLetThrough: 0,
    contentWithheld: 0,
    completionsDelivered: 0,
    completionsDropped: 0,
    urlRequiredFiltered: 0,
    internalErrors: 0,
    completionNoticesAdvancingUnknown: 0,
    originalOperationsAccepted: 0,
    maxAcceptancesPerLineage: 0,
  };
}

/**
 * Whether a completion notice broke the rule "only a known pending id may move anything": it was
 * delivered to the host or advanced a flow although the registry did not know its id as pending.
 */
export function noticeAdvancedUnknown(knownPending: boolean, delivered: boolean, advanced: boolean): boolean {
  return !knownPending && (delivered || advanced);
}

/** One string per lineage key: equal keys, equal strings. */
export function lineageKeyString(key: LineageKey): string {
  return JSON.stringify([key.kind, key.session, key.originalRequestDigest]);
}

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
