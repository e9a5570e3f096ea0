import {
  lineageKeyString,
  parseBusinessReceipt,
  parseConsentReceipt,
  parseLineageKey,
  parseNavigationRecord,
  type BusinessReceipt,
  type ConsentReceipt,
  type LineageKey,
  type NavigationRecord,
} from '../flow/records.js';
import { createFlow, transition, type Flow, type FlowState, type FlowTrigger } from '../flow/states.js';
import { checkDigest, checkMove, checkQuery, closedError, duplicateRecord, unknownNavigation } from './checks.js';
import type { AcceptOutcome, FlowTransition, FlowUpdate, Ledger, NavigationQuery, StoredNavigation } from './types.js';

interface Entry {
  readonly record: NavigationRecord;
  flow: Flow;
  readonly transitions: FlowTransition[];
  readonly consents: ConsentReceipt[];
}

/**
 * A ledger in process memory: for tests and for hosts that accept losing receipts on exit.
 * Same contract as `SqliteLedger` within one process.
 */
export class MemoryLedger implements Ledger {
  readonly #navigations = new Map<string, Entry>();
  /** Consent receipt id → its navigation id. */
  readonly #consentIds = new Map<string, string>();
  readonly #business = new Map<string, BusinessReceipt>();
  readonly #businessIds = new Set<string>();
  #closed = false;

  async putNavigation(record: NavigationRecord): Promise<StoredNavigation> {
    this.#open();
    const checked = parseNavigationRecord(record);
    if (this.#navigations.has(checked.id)) throw duplicateRecord('navigation record', checked.id);
    const flow = createFlow(checked.id, checked.createdAt);
    this.#navigations.set(checked.id, {
      record: checked,
      flow,
      transitions: [Object.freeze({ navigationId: checked.id, from: null, to: flow.state, trigger: null, at: flow.createdAt })],
      consents: [],
    });
    return Object.freeze({ record: checked, flow });
  }

  async getNavigation(id: string): Promise<StoredNavigation | null> {
    this.#open();
    const entry = this.#navigations.get(id);
    return entry === undefined ? null : stored(entry);
  }

  async listNavigations(query?: NavigationQuery): Promise<readonly StoredNavigation[]> {
    this.#open();
    const limit = checkQuery(query);
    const matching = [...this.#navigations.values()].filter((e) => query?.state === undefined || e.flow.state === query.state);
    matching.sort(
      (a, b) => b.record.createdAt - a.record.createdAt || (a.record.id < b.record.id ? 1 : a.record.id > b.record.id ? -1 : 0),
    );
    return Object.freeze((limit === null ? matching : matching.slice(0, limit)).map(stored));
  }

  async updateFlowState(id: string, from: FlowState, to: FlowState, trigger: FlowTrigger, at: number): Promise<FlowUpdate> {
    this.#open();
    checkMove(from, to, trigger, at);
    const entry = this.#navigations.get(id);
    if (entry === undefined) return { updated: false, reason: 'unknown-navigation', current: null };
    if (entry.flow.state !== from) return { updated: false, reason: 'state-conflict', current: entry.flow };
    entry.flow = transition(entry.flow, to, trigger, at);
    entry.transitions.push(Object.freeze({ navigationId: id, from, to, trigger, at }));
    return { updated: true, flow: entry.flow };
  }

  async listTransitions(navigationId: string): Promise<readonly FlowTransition[]> {
    this.#open();
    return Object.freeze([...(this.#navigations.get(navigationId)?.transitions ?? [])]);
  }

  async putConsentReceipt(receipt: ConsentReceipt): Promise<void> {
    this.#open();
    const checked = parseConsentReceipt(receipt);
    const entry = this.#navigations.get(checked.navigationId);
    if (entry === undefined) throw unknownNavigation(checked.navigationId);
    if (this.#consentIds.has(checked.id)) throw duplicateRecord('consent receipt', checked.id);
    this.#consentIds.set(checked.id, checked.navigationId);
    entry.consents.push(checked);
  }

  async listConsentReceipts(navigationId: string): Promise<readonly ConsentReceipt[]> {
    this.#open();
    const consents = this.#navigations.get(navigationId)?.consents ?? [];
    // Stable sort keeps insertion order for equal times, as the SQLite ledger's rowid order does.
    return Object.freeze([...consents].sort((a, b) => a.at - b.at));
  }

  async acceptBusinessReceipt(receipt: BusinessReceipt): Promise<AcceptOutcome> {
    this.#open();
    const checked = parseBusinessReceipt(receipt);
    const key = lineageKeyString(checked.lineage);
    const existing = this.#business.get(key);
    if (existing !== undefined) return { accepted: false, existing };
    for (const consentId of checked.requirementReceiptIds) {
      const navigationId = this.#consentIds.get(consentId);
      const state = navigationId === undefined ? undefined : this.#navigations.get(navigationId)?.flow.state;
      if (state === 'CANCELLED' || state === 'DECLINED')
        return { accepted: false, existing: null, endedFlow: { navigationId: navigationId!, state } };
    }
    if (this.#businessIds.has(checked.id)) throw duplicateRecord('business receipt', checked.id);
    this.#business.set(key, checked);
    this.#businessIds.add(checked.id);
    return { accepted: true };
  }

  async getBusinessReceipt(key: LineageKey): Promise<BusinessReceipt | null> {
    this.#open();
    return this.#business.get(lineageKeyString(parseLineageKey(key))) ?? null;
  }

  async listBusinessReceipts(originalRequestDigest: string): Promise<readonly BusinessReceipt[]> {
    this.#open();
    checkDigest(originalRequestDigest);
    // Map order is insertion order; the stable sort keeps it for equal times, as the SQLite ledger's rowid order does.
    const found = [...this.#business.values()].filter((r) => r.lineage.originalRequestDigest === originalRequestDigest);
    return Object.freeze(found.sort((a, b) => a.at - b.at));
  }

  async close(): Promise<void> {
    this.#closed = true;
  }

  #open(): void {
    if (this.#closed) throw closedError();
  }
}

function stored(entry: Entry): StoredNavigation {
  return Object.freeze({ record: entry.record, flow: entry.flow });
}
