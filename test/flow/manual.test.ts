import { describe, expect, it } from 'vitest';
import { cancelSteps, confirmSteps, recoverySteps } from '../../src/flow/manual.js';
import { FLOW_STATES, createFlow, transition, type FlowState } from '../../src/flow/states.js';

const apply = (from: FlowState, steps: readonly { to: FlowState; trigger: Parameters<typeof transition>[2] }[]) =>
  steps.reduce((flow, step, i) => transition(flow, step.to, step.trigger, i + 1), { ...createFlow('nav_m', 0), state: from }).state;

describe('manual controls', () => {
  it('recover takes up exactly the pending and expired flows, into USER_RETRY', () => {
    const recoverable = FLOW_STATES.filter((s) => recoverySteps(s) !== null);
    expect(recoverable.sort()).toEqual(['EXPIRED', 'OUT_OF_BAND_PENDING']);
    for (const state of recoverable) expect(apply(state, recoverySteps(state)!)).toBe('USER_RETRY');
  });

  it('cancel ends every live flow in CANCELLED, through the table only', () => {
    const cancellable = FLOW_STATES.filter((s) => cancelSteps(s) !== null);
    expect(cancellable.sort()).toEqual(['EXPIRED', 'NAVIGATION_ACCEPTED', 'OUT_OF_BAND_PENDING', 'USER_RETRY', 'USER_REVIEW']);
    for (const state of cancellable) expect(apply(state, cancelSteps(state)!)).toBe('CANCELLED');
    expect(cancelSteps('OUT_OF_BAND_PENDING')).toEqual([
      { to: 'USER_RETRY', trigger: 'manual-recovery' },
      { to: 'CANCELLED', trigger: 'user-cancelled' },
    ]);
  });

  it('cannot cancel once the requirement is verified or the flow has ended', () => {
    for (const state of [
      'REQUIREMENT_VERIFIED',
      'NESTED_SERVER_CONTINUES',
      'ORIGINAL_RESPONSE_ACCEPTED',
      'DECLINED',
      'CANCELLED',
    ] as const) {
      expect(cancelSteps(state)).toBeNull();
      expect(recoverySteps(state)).toBeNull();
    }
  });

  it('confirm verifies exactly the flows waiting for the out-of-band step; an expired one is recovered first', () => {
    const confirmable = FLOW_STATES.filter((s) => confirmSteps(s) !== null);
    expect(confirmable.sort()).toEqual(['COMPLETION_NOTIFIED', 'EXPIRED', 'OUT_OF_BAND_PENDING', 'USER_RETRY']);
    for (const state of confirmable) expect(apply(state, confirmSteps(state)!)).toBe('REQUIREMENT_VERIFIED');
    expect(confirmSteps('EXPIRED')).toEqual([
      { to: 'USER_RETRY', trigger: 'manual-recovery' },
      { to: 'REQUIREMENT_VERIFIED', trigger: 'user-confirmed' },
    ]);
    for (const state of ['USER_REVIEW', 'NAVIGATION_ACCEPTED', 'REQUIREMENT_VERIFIED', 'CANCELLED'] as const)
      expect(confirmSteps(state)).toBeNull();
  });
});
