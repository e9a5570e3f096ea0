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
  };
}
