import { describe, expect, it } from 'vitest';
import {
  FLOW_STATES,
  FLOW_TRIGGERS,
  TERMINAL_STATES,
  TRANSITIONS,
  TRANSITION_TRIGGERS,
  canTransition,
  createFlow,
  isTerminal,
  transition,
  type FlowState,
  type FlowTrigger,
} from '../../src/flow/states.js';
import { GuardError } from '../../src/protocol/errors.js';
import { DESIGNED_TRIGGERS } from './support.js';

// The lifecycle as the design states it, written out independently of the module under test.
const EXPECTED: Record<FlowState, readonly FlowState[]> = {
  CREATED: ['USER_REVIEW'],
  USER_REVIEW: ['DECLINED', 'CANCELLED', 'NAVIGATION_ACCEPTED'],
  NAVIGATION_ACCEPTED: ['OUT_OF_BAND_PENDING', 'CANCELLED'],
  OUT_OF_BAND_PENDING: ['COMPLETION_NOTIFIED', 'EXPIRED', 'USER_RETRY', 'REQUIREMENT_VERIFIED'],
  COMPLETION_NOTIFIED: ['REQUIREMENT_VERIFIED'],
  REQUIREMENT_VERIFIED: ['NESTED_SERVER_CONTINUES', 'ERROR_RETRY_ELIGIBLE'],
  NESTED_SERVER_CONTINUES: ['ORIGINAL_RESPONSE_ACCEPTED'],
  ERROR_RETRY_ELIGIBLE: ['OPTIONAL_CLIENT_RETRY'],
  OPTIONAL_CLIENT_RETRY: ['RETRY_RESPONSE_ACCEPTED'],
  EXPIRED: ['USER_RETRY'],
  USER_RETRY: ['OUT_OF_BAND_PENDING', 'REQUIREMENT_VERIFIED', 'CANCELLED'],
  DECLINED: [],
  CANCELLED: [],
  ORIGINAL_RESPONSE_ACCEPTED: [],
  RETRY_RESPONSE_ACCEPTED: [],
};

const T0 = 1_000;
const flowIn = (state: FlowState) => ({ ...createFlow('nav_x', T0), state });

const legalEdges = FLOW_STATES.flatMap((from) =>
  TRANSITIONS[from].flatMap((to) => (TRANSITION_TRIGGERS[from][to] ?? []).map((trigger) => ({ from, to, trigger }))),
);
const illegalPairs = FLOW_STATES.flatMap((from) => FLOW_STATES.filter((to) => !EXPECTED[from].includes(to)).map((to) => ({ from, to })));

function thrown(run: () => unknown): GuardError {
  try {
    run();
  } catch (error) {
    if (GuardError.is(error)) return error;
    throw error;
  }
  throw new Error('expected a GuardError');
}

describe('the transition table', () => {
  it('is exactly the designed lifecycle', () => {
    expect(Object.keys(TRANSITIONS).sort()).toEqual([...FLOW_STATES].sort());
    for (const state of FLOW_STATES) expect([...TRANSITIONS[state]].sort()).toEqual([...EXPECTED[state]].sort());
  });

  it('takes each edge on exactly the designed triggers', () => {
    for (const from of FLOW_STATES) {
      for (const to of FLOW_STATES) {
        expect([...(TRANSITION_TRIGGERS[from][to] ?? [])].sort(), `${from} → ${to}`).toEqual(
          [...(DESIGNED_TRIGGERS[from][to] ?? [])].sort(),
        );
      }
    }
  });

  it('is frozen all the way down', () => {
    expect(Object.isFrozen(TRANSITIONS)).toBe(true);
    expect(Object.isFrozen(TRANSITIONS.USER_REVIEW)).toBe(true);
    expect(Object.isFrozen(TRANSITION_TRIGGERS.OUT_OF_BAND_PENDING)).toBe(true);
    expect(Object.isFrozen(TRANSITION_TRIGGERS.OUT_OF_BAND_PENDING.REQUIREMENT_VERIFIED)).toBe(true);
    expect(() => {
      (TRANSITIONS.DECLINED as FlowState[]).push('USER_REVIEW');
    }).toThrow(TypeError);
    expect(TRANSITIONS.DECLINED).toEqual([]);
  });

  it('gives every edge at least one trigger, and only known triggers', () => {
    for (const from of FLOW_STATES) {
      for (const to of TRANSITIONS[from]) {
        const triggers = TRANSITION_TRIGGERS[from][to] ?? [];
        expect(triggers.length, `${from} → ${to}`).toBeGreaterThan(0);
        for (const t of triggers) expect(FLOW_TRIGGERS).toContain(t);
      }
    }
  });

  it('has exactly four terminal states, and EXPIRED is not one of them', () => {
    expect([...TERMINAL_STATES].sort()).toEqual(['CANCELLED', 'DECLINED', 'ORIGINAL_RESPONSE_ACCEPTED', 'RETRY_RESPONSE_ACCEPTED']);
    expect(isTerminal('EXPIRED')).toBe(false);
    expect(isTerminal('DECLINED')).toBe(true);
  });

  it('reaches every state from CREATED and a terminal state from every state (no dead ends)', () => {
    const reach = (start: FlowState): Set<FlowState> => {
      const seen = new Set<FlowState>([start]);
      const queue = [start];
      while (queue.length > 0) for (const next of TRANSITIONS[queue.shift()!]) if (!seen.has(next)) seen.add(next), queue.push(next);
      return seen;
    };
    expect(reach('CREATED').size).toBe(FLOW_STATES.length);
    for (const state of FLOW_STATES)
      expect(
        [...reach(state)].some((s) => isTerminal(s)),
        state,
      ).toBe(true);
  });
});

describe('transition', () => {
  it.each(legalEdges)('moves $from → $to on $trigger', ({ from, to, trigger }) => {
    const before = flowIn(from);
    const after = transition(before, to, trigger, T0 + 5);
    expect(after).toEqual({ id: 'nav_x', state: to, trigger, createdAt: T0, updatedAt: T0 + 5 });
    expect(Object.isFrozen(after)).toBe(true);
    expect(before.state).toBe(from);
  });

  it(`refuses all ${illegalPairs.length} pairs not in the table, whatever the trigger, naming from and to`, () => {
    expect(illegalPairs.length).toBe(15 * 15 - 20);
    for (const { from, to } of illegalPairs) {
      for (const trigger of FLOW_TRIGGERS) {
        const error = thrown(() => transition(flowIn(from), to, trigger, T0 + 1));
        expect(error.code).toBe('E_ILLEGAL_TRANSITION');
        expect(error.message).toContain(`${from} → ${to}`);
        expect(error.details).toEqual({ from, to, trigger });
      }
    }
  });

  it('refuses a legal edge taken on a trigger it does not accept', () => {
    let refused = 0;
    for (const from of FLOW_STATES) {
      for (const to of TRANSITIONS[from]) {
        const accepted = TRANSITION_TRIGGERS[from][to] ?? [];
        for (const trigger of FLOW_TRIGGERS.filter((t) => !accepted.includes(t))) {
          expect(thrown(() => transition(flowIn(from), to, trigger, T0)).code).toBe('E_ILLEGAL_TRANSITION');
          refused++;
        }
      }
    }
    expect(refused).toBeGreaterThan(0);
  });

  it("moves a pending flow straight to REQUIREMENT_VERIFIED only on the user's word or the final response", () => {
    const pending = flowIn('OUT_OF_BAND_PENDING');
    expect(transition(pending, 'REQUIREMENT_VERIFIED', 'user-confirmed', T0).state).toBe('REQUIREMENT_VERIFIED');
    expect(transition(pending, 'REQUIREMENT_VERIFIED', 'final-response', T0).state).toBe('REQUIREMENT_VERIFIED');
    expect(thrown(() => transition(pending, 'REQUIREMENT_VERIFIED', 'completion-notice', T0)).message).toContain(
      'user-confirmed, final-response',
    );
    expect(transition(pending, 'COMPLETION_NOTIFIED', 'completion-notice', T0).state).toBe('COMPLETION_NOTIFIED');
  });

  it('never lets a completion notice accept the original operation', () => {
    // Everything a notice can set off without the server answering or the user speaking.
    const noticeDriven: readonly FlowTrigger[] = [
      'completion-notice',
      'notice-verified',
      'nested-lineage',
      'error-lineage',
      'client-retry',
      'ttl-expired',
    ];
    const seen = new Set<FlowState>(['OUT_OF_BAND_PENDING']);
    const queue: FlowState[] = ['OUT_OF_BAND_PENDING'];
    while (queue.length > 0) {
      const from = queue.shift()!;
      for (const to of TRANSITIONS[from]) {
        if (noticeDriven.some((t) => canTransition(from, to, t)) && !seen.has(to)) {
          seen.add(to);
          queue.push(to);
        }
      }
    }
    expect(seen.has('COMPLETION_NOTIFIED')).toBe(true);
    expect(seen.has('ORIGINAL_RESPONSE_ACCEPTED')).toBe(false);
    expect(seen.has('RETRY_RESPONSE_ACCEPTED')).toBe(false);
    for (const accepted of ['ORIGINAL_RESPONSE_ACCEPTED', 'RETRY_RESPONSE_ACCEPTED'] as const) {
      for (const from of FLOW_STATES) expect(canTransition(from, accepted, 'completion-notice')).toBe(false);
    }
  });

  it('leads an expired flow back into a live one only by hand', () => {
    const expired = flowIn('EXPIRED');
    const retry = transition(expired, 'USER_RETRY', 'manual-recovery', T0 + 1);
    expect(transition(retry, 'OUT_OF_BAND_PENDING', 'navigation-opened', T0 + 2).state).toBe('OUT_OF_BAND_PENDING');
    expect(transition(retry, 'REQUIREMENT_VERIFIED', 'user-confirmed', T0 + 2).state).toBe('REQUIREMENT_VERIFIED');
    expect(transition(retry, 'CANCELLED', 'user-cancelled', T0 + 2).state).toBe('CANCELLED');
    expect(thrown(() => transition(expired, 'OUT_OF_BAND_PENDING', 'navigation-opened', T0)).code).toBe('E_ILLEGAL_TRANSITION');
    expect(thrown(() => transition(expired, 'USER_RETRY', 'ttl-expired', T0)).code).toBe('E_ILLEGAL_TRANSITION');
  });

  it('says why a terminal state refuses', () => {
    expect(thrown(() => transition(flowIn('ORIGINAL_RESPONSE_ACCEPTED'), 'USER_RETRY', 'manual-recovery', T0)).message).toContain(
      'ORIGINAL_RESPONSE_ACCEPTED is terminal',
    );
  });

  it('walks both lineages end to end', () => {
    const walk = (steps: readonly [FlowState, FlowTrigger][]) =>
      steps.reduce((flow, [to, trigger], i) => transition(flow, to, trigger, T0 + i + 1), createFlow('nav_walk', T0));
    const common: [FlowState, FlowTrigger][] = [
      ['USER_REVIEW', 'presented'],
      ['NAVIGATION_ACCEPTED', 'user-accepted'],
      ['OUT_OF_BAND_PENDING', 'navigation-opened'],
      ['COMPLETION_NOTIFIED', 'completion-notice'],
      ['REQUIREMENT_VERIFIED', 'notice-verified'],
    ];
    expect(walk([...common, ['NESTED_SERVER_CONTINUES', 'nested-lineage'], ['ORIGINAL_RESPONSE_ACCEPTED', 'final-response']]).state).toBe(
      'ORIGINAL_RESPONSE_ACCEPTED',
    );
    const retried = walk([
      ...common,
      ['ERROR_RETRY_ELIGIBLE', 'error-lineage'],
      ['OPTIONAL_CLIENT_RETRY', 'client-retry'],
      ['RETRY_RESPONSE_ACCEPTED', 'retry-response'],
    ]);
    expect(retried).toMatchObject({ state: 'RETRY_RESPONSE_ACCEPTED', trigger: 'retry-response', createdAt: T0, updatedAt: T0 + 8 });
  });
});
