/**
 * The manual controls applied to a stored flow when no live guard holds it (the `ledger` CLI, the
 * query page over a ledger file): each step is a compare-and-set on the ledger, so a flow that
 * another process moved meanwhile is refused rather than overwritten.
 */
import { cancelSteps, confirmSteps, recoverySteps, type FlowStep } from '../flow/manual.js';
import type { FlowState, FlowTrigger } from '../flow/states.js';
import { GuardCode, GuardError } from '../protocol/errors.js';
import type { Ledger } from './types.js';

/** `recover`: take up a pending or expired flow (→ USER_RETRY); `confirm`: "I have finished"; `cancel`: give up. */
export type ManualAction = 'recover' | 'confirm' | 'cancel';

export interface ManualMove {
  readonly id: string;
  /** The state the flow is in afterwards. */
  readonly state: FlowState;
  readonly steps: readonly { readonly from: FlowState; readonly to: FlowState; readonly trigger: FlowTrigger }[];
}

const ALLOWED: Readonly<Record<ManualAction, string>> = {
  recover: 'OUT_OF_BAND_PENDING or EXPIRED flows',
  confirm: 'flows waiting for the out-of-band step (OUT_OF_BAND_PENDING, COMPLETION_NOTIFIED, EXPIRED, USER_RETRY)',
  cancel: 'live flows (USER_REVIEW, OUT_OF_BAND_PENDING, EXPIRED, USER_RETRY)',
};

function stepsFor(action: ManualAction, state: FlowState): readonly FlowStep[] | null {
  switch (action) {
    case 'recover':
      return recoverySteps(state);
    case 'confirm':
      return confirmSteps(state);
    case 'cancel':
      return cancelSteps(state);
    default: {
      const unreachable: never = action;
      throw new GuardError(GuardCode.input, `unknown manual action ${JSON.stringify(unreachable)}`);
    }
  }
}

/**
 * Applies a manual control to the flow `id` in the ledger. Throws `GuardError`:
 * `E_UNKNOWN_NAVIGATION` (no such record), `E_ILLEGAL_TRANSITION` (the state does not allow the
 * action; nothing changed), `E_STATE_CONFLICT` (the flow moved while this ran; the steps done so
 * far stay, nothing more is changed).
 */
export async function moveByHand(ledger: Ledger, id: string, action: ManualAction, now: number): Promise<ManualMove> {
  const stored = await ledger.getNavigation(id);
  if (stored === null) throw new GuardError(GuardCode.unknownNavigation, `no navigation record "${id}" in the ledger`, { id });
  const from = stored.flow.state;
  const steps = stepsFor(action, from);
  if (steps === null)
    throw new GuardError(GuardCode.illegalTransition, `flow ${id} is ${from}: ${action} applies only to ${ALLOWED[action]}`, { id, from });
  // Every step is issued before any is awaited: a durable ledger commits the writes of one turn in
  // one transaction, so a guard's receipt never lands between two steps of one move (it sees the
  // flow before the move or after it, never half-cancelled). Each step stays a compare-and-set.
  const chain: { from: FlowState; to: FlowState; trigger: FlowTrigger }[] = [];
  let state = from;
  for (const step of steps) {
    chain.push({ from: state, to: step.to, trigger: step.trigger });
    state = step.to;
  }
  const results = await Promise.all(chain.map((step) => ledger.updateFlowState(id, step.from, step.to, step.trigger, now)));
  const failed = results.findIndex((result) => !result.updated);
  if (failed !== -1) {
    const result = results[failed]!;
    const found = result.updated ? state : result.current === null ? 'gone' : result.current.state;
    const later = results.slice(failed + 1).some((r) => r.updated);
    throw new GuardError(
      GuardCode.stateConflict,
      `flow ${id} changed while it was being moved (expected ${chain[failed]!.from}, found ${found}); ` +
        (later ? `it is now ${state}` : 'nothing more was changed'),
      { id },
    );
  }
  return Object.freeze({ id, state, steps: Object.freeze(chain) });
}
