/**
 * What the pages show, read from the ledger through the `Ledger` interface only (so any store
 * works): the flows table with its order and filters, one flow with its history and receipts, and
 * the reconciliation figures. Pure functions of what the ledger returned and the time.
 */
import { createHash } from 'node:crypto';
import type { BusinessReceipt, ConsentReceipt } from '../flow/records.js';
import { cancelSteps, confirmSteps, recoverySteps } from '../flow/manual.js';
import { isTerminal, type FlowState } from '../flow/states.js';
import type { FlowTransition, Ledger, StoredNavigation } from '../ledger/types.js';

/** How many of the newest flows a page reads at most; the pages say so when there are more. */
export const DEFAULT_WINDOW = 1000;

export type AgeFilter = '1h' | '24h' | '7d' | '30d';
export const AGE_FILTERS: Readonly<Record<AgeFilter, { readonly label: string; readonly ms: number }>> = {
  '1h': { label: 'last hour', ms: 3_600_000 },
  '24h': { label: 'last 24 hours', ms: 86_400_000 },
  '7d': { label: 'last 7 days', ms: 7 * 86_400_000 },
  '30d': { label: 'last 30 days', ms: 30 * 86_400_000 },
};

export interface FlowFilters {
  readonly state: FlowState | null;
  readonly server: string | null;
  readonly age: AgeFilter | null;
}

export interface FlowRow {
  readonly stored: StoredNavigation;
  /** Pending past its expiry, but no guard has recorded EXPIRED yet. */
  readonly overdue: boolean;
  readonly server: string;
  /** sha256 of the subject, first 12 hex digits; `null` without a subject. */
  readonly subjectDigest: string | null;
  readonly timeInState: number;
}

export interface FlowTable {
  readonly rows: readonly FlowRow[];
  /** Every server label in the window, for the filter. */
  readonly servers: readonly string[];
  /** True when the ledger holds more flows than the window read. */
  readonly truncated: boolean;
  readonly window: number;
}

const WAITING: ReadonlySet<FlowState> = new Set(['OUT_OF_BAND_PENDING', 'COMPLETION_NOTIFIED', 'USER_RETRY']);

export function serverLabel(stored: StoredNavigation): string {
  const s = stored.record.server;
  return s.name ?? s.key ?? '(unnamed server)';
}

export function subjectDigest(subject: string | null): string | null {
  return subject === null ? null : createHash('sha256').update(subject, 'utf8').digest('hex').slice(0, 12);
}

export function isOverdue(stored: StoredNavigation, now: number): boolean {
  return stored.flow.state === 'OUT_OF_BAND_PENDING' && stored.record.expiresAt <= now;
}

/** 0: expired (recorded or overdue); 1: waiting for the out-of-band step; 2: other live; 3: ended. */
function rank(stored: StoredNavigation, now: number): number {
  const state = stored.flow.state;
  if (state === 'EXPIRED' || isOverdue(stored, now)) return 0;
  if (WAITING.has(state)) return 1;
  return isTerminal(state) ? 3 : 2;
}

/** The flows page: expired and out-of-band-pending flows first, then the rest, newest first within each. */
export async function flowTable(ledger: Ledger, filters: FlowFilters, now: number, window = DEFAULT_WINDOW): Promise<FlowTable> {
  const listed = await ledger.listNavigations({ ...(filters.state === null ? {} : { state: filters.state }), limit: window + 1 });
  const truncated = listed.length > window;
  const inWindow = truncated ? listed.slice(0, window) : listed;
  const servers = [...new Set(inWindow.map(serverLabel))].sort();
  const since = filters.age === null ? null : now - AGE_FILTERS[filters.age].ms;
  const rows = inWindow
    .filter((s) => (filters.server === null || serverLabel(s) === filters.server) && (since === null || s.record.createdAt >= since))
    .map((stored, index) => ({ stored, index, rank: rank(stored, now) }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map(({ stored }) => ({
      stored,
      overdue: isOverdue(stored, now),
      server: serverLabel(stored),
      subjectDigest: subjectDigest(stored.record.subject),
      timeInState: Math.max(0, now - stored.flow.updatedAt),
    }));
  return { rows, servers, truncated, window };
}

export interface ActionsAllowed {
  readonly retry: boolean;
  readonly confirm: boolean;
  readonly cancel: boolean;
}

/** Which manual controls the state allows (the same table the CLI and the guard use). */
export function actionsAllowed(state: FlowState): ActionsAllowed {
  return { retry: recoverySteps(state) !== null, confirm: confirmSteps(state) !== null, cancel: cancelSteps(state) !== null };
}

export interface FlowDetail {
  readonly stored: StoredNavigation;
  readonly overdue: boolean;
  readonly history: readonly FlowTransition[];
  readonly consents: readonly ConsentReceipt[];
  /** Business receipts that rest on this flow's consent receipts. */
  readonly business: readonly BusinessReceipt[];
  /** Other receipts for the same original request (another round or session of it). */
  readonly relatedBusiness: readonly BusinessReceipt[];
  /** Other flows (in the window) for the same original request, oldest first: the rounds of its lineage. */
  readonly rounds: readonly StoredNavigation[];
}

export async function flowDetail(ledger: Ledger, id: string, now: number, window = DEFAULT_WINDOW): Promise<FlowDetail | null> {
  const stored = await ledger.getNavigation(id);
  if (stored === null) return null;
  const digest = stored.record.originalRequestDigest;
  const [history, consents, receipts, recent] = await Promise.all([
    ledger.listTransitions(id),
    ledger.listConsentReceipts(id),
    digest === null ? Promise.resolve([]) : ledger.listBusinessReceipts(digest),
    digest === null ? Promise.resolve([]) : ledger.listNavigations({ limit: window }),
  ]);
  const mine = new Set(consents.map((c) => c.id));
  const business = receipts.filter((r) => r.requirementReceiptIds.some((c) => mine.has(c)));
  const relatedBusiness = receipts.filter((r) => !business.includes(r));
  const rounds = recent.filter((s) => s.record.originalRequestDigest === digest && s.record.id !== id).reverse();
  return { stored, overdue: isOverdue(stored, now), history, consents, business, relatedBusiness, rounds };
}

export interface Reconciliation {
  readonly total: number;
  readonly truncated: boolean;
  readonly window: number;
  readonly byState: ReadonlyMap<FlowState, number>;
  /** Milliseconds from the navigation being opened (or the record, if never opened) to REQUIREMENT_VERIFIED. */
  readonly timeToVerification: { readonly count: number; readonly p50: number | null; readonly p99: number | null };
  readonly verifiedBy: { readonly notice: number; readonly hand: number; readonly serverAnswer: number };
  /** Flows whose time to live ran out without a completion notice (recorded EXPIRED, or pending past expiry). */
  readonly noticesLost: number;
  /** Of those, the ones a person then confirmed by hand. */
  readonly lostThenConfirmed: number;
  /** Of those, still waiting for someone: neither verified nor ended. */
  readonly lostStillWaiting: number;
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[index]!;
}

export async function reconciliation(ledger: Ledger, now: number, window = DEFAULT_WINDOW): Promise<Reconciliation> {
  const listed = await ledger.listNavigations({ limit: window + 1 });
  const truncated = listed.length > window;
  const flows = truncated ? listed.slice(0, window) : listed;
  const byState = new Map<FlowState, number>();
  const durations: number[] = [];
  const verifiedBy = { notice: 0, hand: 0, serverAnswer: 0 };
  let noticesLost = 0;
  let lostThenConfirmed = 0;
  let lostStillWaiting = 0;
  const histories = await Promise.all(flows.map((f) => ledger.listTransitions(f.record.id)));
  flows.forEach((stored, i) => {
    const state = stored.flow.state;
    byState.set(state, (byState.get(state) ?? 0) + 1);
    const history = histories[i]!;
    const opened = history.find((t) => t.to === 'OUT_OF_BAND_PENDING')?.at ?? stored.record.createdAt;
    const verified = history.find((t) => t.to === 'REQUIREMENT_VERIFIED');
    if (verified !== undefined) {
      durations.push(Math.max(0, verified.at - opened));
      if (verified.trigger === 'notice-verified') verifiedBy.notice += 1;
      else if (verified.trigger === 'user-confirmed') verifiedBy.hand += 1;
      else if (verified.trigger === 'final-response') verifiedBy.serverAnswer += 1;
    }
    const expired = history.some((t) => t.to === 'EXPIRED') || isOverdue(stored, now);
    if (expired) {
      noticesLost += 1;
      if (verified?.trigger === 'user-confirmed') lostThenConfirmed += 1;
      if (verified === undefined && !isTerminal(state)) lostStillWaiting += 1;
    }
  });
  durations.sort((a, b) => a - b);
  return {
    total: flows.length,
    truncated,
    window,
    byState,
    timeToVerification: { count: durations.length, p50: percentile(durations, 0.5), p99: percentile(durations, 0.99) },
    verifiedBy,
    noticesLost,
    lostThenConfirmed,
    lostStillWaiting,
  };
}

/** `3 s`, `4 min 12 s`, `2 h 5 min`, `3 d 4 h`. */
export function duration(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return ms < 1000 ? `${ms} ms` : `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h} h ${m % 60} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}
