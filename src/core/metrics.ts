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

// The invariant helpers live with the state they watch (the flow book); named here for the metrics.
export { AcceptanceTally, noticeAdvancedUnknown } from '../flow/tally.js';
export { lineageKeyString } from '../flow/records.js';
