import { describe, expect, it } from 'vitest';
import { cancelSteps, recoverySteps } from '../../src/flow/manual.js';
import { canTransition, FLOW_STATES, isTerminal, STATE_GROUPS, TRANSITIONS, type FlowState } from '../../src/flow/states.js';

const sorted = (set: ReadonlySet<FlowState>) => [...set].sort();
const where = (test: (s: FlowState) => boolean) => FLOW_STATES.filter(test).sort();

function reachableFrom(start: FlowState): Set<FlowState> {
  const seen = new Set<FlowState>([start]);
  const queue = [start];
  while (queue.length > 0) for (const next of TRANSITIONS[queue.shift()!]) if (!seen.has(next)) seen.add(next), queue.push(next);
  return seen;
}

describe('the state groups agree with the transition table', () => {
  it('live: the non-terminal states', () => expect(sorted(STATE_GROUPS.live)).toEqual(where((s) => !isTerminal(s))));
  it('awaiting: the states the final answer verifies', () => {
    expect(sorted(STATE_GROUPS.awaiting)).toEqual(where((s) => canTransition(s, 'REQUIREMENT_VERIFIED', 'final-response')));
  });
  it('verified: REQUIREMENT_VERIFIED and everything after it', () =>
    expect(sorted(STATE_GROUPS.verified)).toEqual([...reachableFrom('REQUIREMENT_VERIFIED')].sort()));
  it('beforeConsent: the spine up to the accepted navigation', () =>
    expect(sorted(STATE_GROUPS.beforeConsent)).toEqual(where((s) => reachableFrom(s).has('NAVIGATION_ACCEPTED'))));
  it('confirmable: "I have finished" reaches REQUIREMENT_VERIFIED, directly or after taking the flow up by hand', () => {
    const confirmable = (s: FlowState) =>
      canTransition(s, 'REQUIREMENT_VERIFIED', 'user-confirmed') ||
      (recoverySteps(s) !== null && canTransition('USER_RETRY', 'REQUIREMENT_VERIFIED', 'user-confirmed'));
    expect(sorted(STATE_GROUPS.confirmable)).toEqual(where(confirmable));
  });
  it('cancellableAfterOpen and waiting: past the opened navigation, still cancellable', () => {
    const afterOpen = reachableFrom('OUT_OF_BAND_PENDING');
    expect(sorted(STATE_GROUPS.cancellableAfterOpen)).toEqual(where((s) => afterOpen.has(s) && cancelSteps(s) !== null));
    for (const s of STATE_GROUPS.waiting) expect(STATE_GROUPS.cancellableAfterOpen.has(s)).toBe(true);
  });
});
