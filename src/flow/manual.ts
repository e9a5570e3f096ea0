/**
 * The manual controls the spec asks clients to keep for when a completion notice never comes:
 * take a stalled flow up again, or give it up. Both are derived from the transition table, so
 * they can never take an edge the table does not have.
 */
import { canTransition, type FlowState, type FlowTrigger } from './states.js';

export interface FlowStep {
  readonly to: FlowState;
  readonly trigger: FlowTrigger;
}

const RECOVER: FlowStep = Object.freeze({ to: 'USER_RETRY', trigger: 'manual-recovery' });
const CANCEL: FlowStep = Object.freeze({ to: 'CANCELLED', trigger: 'user-cancelled' });
const CONFIRM: FlowStep = Object.freeze({ to: 'REQUIREMENT_VERIFIED', trigger: 'user-confirmed' });

/** The moves that put a stalled flow (pending or expired) back in the user's hands; `null` if none. */
export function recoverySteps(state: FlowState): readonly FlowStep[] | null {
  return canTransition(state, RECOVER.to, RECOVER.trigger) ? Object.freeze([RECOVER]) : null;
}

/**
 * The moves that cancel a live flow, `null` when it cannot be cancelled any more (terminal, or
 * past the point where the requirement was verified). A pending or expired flow is first taken up
 * by hand (USER_RETRY) and then cancelled, so its history says who gave it up.
 */
export function cancelSteps(state: FlowState): readonly FlowStep[] | null {
  if (canTransition(state, CANCEL.to, CANCEL.trigger)) return Object.freeze([CANCEL]);
  if (canTransition(state, RECOVER.to, RECOVER.trigger) && canTransition(RECOVER.to, CANCEL.to, CANCEL.trigger)) {
    return Object.freeze([RECOVER, CANCEL]);
  }
  return null;
}

/**
 * The moves that record the user's "I have finished" (the out-of-band step is done), `null` when
 * the flow is not waiting for it. An expired flow is first taken up by hand (USER_RETRY), so its
 * history shows it was recovered before it was confirmed.
 */
export function confirmSteps(state: FlowState): readonly FlowStep[] | null {
  if (canTransition(state, CONFIRM.to, CONFIRM.trigger)) return Object.freeze([CONFIRM]);
  if (canTransition(state, RECOVER.to, RECOVER.trigger) && canTransition(RECOVER.to, CONFIRM.to, CONFIRM.trigger)) {
    return Object.freeze([RECOVER, CONFIRM]);
  }
  return null;
}
