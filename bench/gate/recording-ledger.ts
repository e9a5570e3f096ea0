import type { BusinessReceipt, ConsentReceipt, NavigationRecord } from '../../src/flow/records.js';
import type { FlowState, FlowTrigger } from '../../src/flow/states.js';
import type { Ledger } from '../../src/ledger/types.js';

/** A write the ledger acknowledged, with the tick of the shared sequence at which it was stored. */
export type LedgerWrite =
  | { readonly kind: 'navigation'; readonly row: NavigationRecord; readonly storedAt: number }
  | { readonly kind: 'consent'; readonly row: ConsentReceipt; readonly storedAt: number }
  | { readonly kind: 'business'; readonly row: BusinessReceipt; readonly storedAt: number }
  | {
      readonly kind: 'transition';
      readonly row: {
        readonly id: string;
        readonly from: FlowState;
        readonly to: FlowState;
        readonly trigger: FlowTrigger;
        readonly at: number;
      };
      readonly storedAt: number;
    };

/** A monotonic counter shared by the ledger recorder and whoever wants to order events against it. */
export class Sequence {
  #next = 0;
  tick(): number {
    return this.#next++;
  }
}

/**
 * Wraps a ledger and keeps every write it acknowledged, stamped when its promise resolved, so a
 * check can say "this receipt was stored before that URL was opened" without trusting the guard.
 */
export function recordingLedger(inner: Ledger, sequence: Sequence): { readonly ledger: Ledger; readonly writes: readonly LedgerWrite[] } {
  const writes: LedgerWrite[] = [];
  const ledger: Ledger = {
    putNavigation: async (record) => {
      const stored = await inner.putNavigation(record);
      writes.push({ kind: 'navigation', row: record, storedAt: sequence.tick() });
      return stored;
    },
    getNavigation: (id) => inner.getNavigation(id),
    listNavigations: (query) => inner.listNavigations(query),
    updateFlowState: async (id, from, to, trigger, at) => {
      const update = await inner.updateFlowState(id, from, to, trigger, at);
      if (update.updated) writes.push({ kind: 'transition', row: { id, from, to, trigger, at }, storedAt: sequence.tick() });
      return update;
    },
    listTransitions: (navigationId) => inner.listTransitions(navigationId),
    putConsentReceipt: async (receipt) => {
      await inner.putConsentReceipt(receipt);
      writes.push({ kind: 'consent', row: receipt, storedAt: sequence.tick() });
    },
    listConsentReceipts: (navigationId) => inner.listConsentReceipts(navigationId),
    acceptBusinessReceipt: async (receipt) => {
      const outcome = await inner.acceptBusinessReceipt(receipt);
      if (outcome.accepted) writes.push({ kind: 'business', row: receipt, storedAt: sequence.tick() });
      return outcome;
    },
    getBusinessReceipt: (key) => inner.getBusinessReceipt(key),
    listBusinessReceipts: (digest) => inner.listBusinessReceipts(digest),
    close: () => inner.close(),
  };
  return { ledger, writes };
}
