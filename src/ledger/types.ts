import type { BusinessReceipt, ConsentReceipt, LineageKey, NavigationRecord } from '../flow/records.js';
import type { Flow, FlowState, FlowTrigger } from '../flow/states.js';

/** A navigation record with the current state of its flow. */
export interface StoredNavigation {
  readonly record: NavigationRecord;
  readonly flow: Flow;
}

/** One recorded move of a flow. `from` is `null` for the entry that opens the history. */
export interface FlowTransition {
  readonly navigationId: string;
  readonly from: FlowState | null;
  readonly to: FlowState;
  readonly trigger: FlowTrigger | null;
  readonly at: number;
}

/** The result of a compare-and-set on a flow's state. */
export type FlowUpdate =
  | { readonly updated: true; readonly flow: Flow }
  | { readonly updated: false; readonly reason: 'unknown-navigation'; readonly current: null }
  | { readonly updated: false; readonly reason: 'state-conflict'; readonly current: Flow };

/** A flow a business receipt rests on, ended (by hand or by the user) in the ledger before the receipt was written. */
export interface EndedFlow {
  readonly navigationId: string;
  readonly state: 'CANCELLED' | 'DECLINED';
}

/**
 * The result of accepting a business receipt: only the first one per lineage key is accepted, and
 * none that rests on a flow the ledger holds as CANCELLED or DECLINED (`endedFlow`: another
 * process, the CLI or the query page, ended it while the guard showing it was waiting).
 */
export type AcceptOutcome =
  | { readonly accepted: true }
  | { readonly accepted: false; readonly existing: BusinessReceipt }
  | { readonly accepted: false; readonly existing: null; readonly endedFlow: EndedFlow };

/** The states that end a flow without its requirement being met: no receipt may rest on one. */
export const ENDED_STATES: readonly EndedFlow['state'][] = Object.freeze(['CANCELLED', 'DECLINED']);

export interface NavigationQuery {
  /** Only flows in this state. */
  readonly state?: FlowState;
  /** At most this many, newest first. */
  readonly limit?: number;
}

/**
 * Durable storage for URL-mode records. Every write is atomic; `updateFlowState` is a
 * compare-and-set; `acceptBusinessReceipt` accepts at most one receipt per lineage key, ever,
 * even across processes sharing one store.
 *
 * Writes take effect in call order, also when the caller does not await one before making the
 * next; a write's promise resolves once the write is stored (for a durable store: committed), and
 * reads made after that see it. A write that fails fails alone, unless the store itself fails.
 */
export interface Ledger {
  /** Stores a new navigation record with its flow in `CREATED`. Throws `E_DUPLICATE_RECORD` on a known id. */
  putNavigation(record: NavigationRecord): Promise<StoredNavigation>;
  getNavigation(id: string): Promise<StoredNavigation | null>;
  /** Newest first (by `createdAt`, then id). */
  listNavigations(query?: NavigationQuery): Promise<readonly StoredNavigation[]>;
  /**
   * Moves the flow `id` from `from` to `to` if and only if its stored state is `from`. Throws
   * `E_ILLEGAL_TRANSITION` when the table has no such edge for `trigger`.
   */
  updateFlowState(id: string, from: FlowState, to: FlowState, trigger: FlowTrigger, at: number): Promise<FlowUpdate>;
  /** The flow's history, oldest first. */
  listTransitions(navigationId: string): Promise<readonly FlowTransition[]>;
  /** Throws `E_UNKNOWN_NAVIGATION` when the navigation is not stored, `E_DUPLICATE_RECORD` on a known id. */
  putConsentReceipt(receipt: ConsentReceipt): Promise<void>;
  /** Oldest first. */
  listConsentReceipts(navigationId: string): Promise<readonly ConsentReceipt[]>;
  /**
   * Accepts the first receipt of a lineage, atomically with a check of the flows it rests on (the
   * navigations of its `requirementReceiptIds`): when one of them is CANCELLED or DECLINED in the
   * store, nothing is written and the outcome names it.
   */
  acceptBusinessReceipt(receipt: BusinessReceipt): Promise<AcceptOutcome>;
  getBusinessReceipt(key: LineageKey): Promise<BusinessReceipt | null>;
  /**
   * The business receipts of every lineage whose original request has this digest (any session,
   * any kind), oldest first. For readers that start from a navigation record, which holds the
   * digest but not the lineage key.
   */
  listBusinessReceipts(originalRequestDigest: string): Promise<readonly BusinessReceipt[]>;
  /** Releases the store; any later call throws `E_LEDGER_UNAVAILABLE`. Idempotent. */
  close(): Promise<void>;
}
