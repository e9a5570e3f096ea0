/**
 * The URL-mode lifecycle as data: which state may follow which, and on what trigger.
 *
 * Accepting a URL elicitation proves only that the user agreed to navigate. The original
 * operation is accepted in one place, once, after the requirement is verified; a completion
 * notice alone never gets there (every edge into an `*_ACCEPTED` state needs the server's answer).
 *
 * The spine:
 *   CREATED → USER_REVIEW → NAVIGATION_ACCEPTED → OUT_OF_BAND_PENDING → COMPLETION_NOTIFIED
 *   → REQUIREMENT_VERIFIED → NESTED_SERVER_CONTINUES → ORIGINAL_RESPONSE_ACCEPTED        (nested lineage)
 *                          → ERROR_RETRY_ELIGIBLE → OPTIONAL_CLIENT_RETRY → RETRY_RESPONSE_ACCEPTED  (-32042 lineage)
 *   USER_REVIEW → DECLINED | CANCELLED;  OUT_OF_BAND_PENDING → EXPIRED | USER_RETRY.
 *
 * Moves the client side needs beyond the spine, and why:
 * - Into REQUIREMENT_VERIFIED. The client never sees the out-of-band step itself, so three things
 *   count as evidence that it is done: (1) a completion notice for a known pending id, which first
 *   lands in COMPLETION_NOTIFIED and is verified there against the navigation record (same server,
 *   same session generation, not expired: trigger `notice-verified`); (2) the user's explicit
 *   "I have finished" (`user-confirmed`), because the spec makes the notice optional and tells
 *   clients to give the user manual controls; (3) the server's final answer to the nested original
 *   (`final-response`), which shows the server itself considered the requirement met. (2) and (3)
 *   may skip the notice: OUT_OF_BAND_PENDING → REQUIREMENT_VERIFIED is allowed with those two
 *   triggers only, never with `completion-notice`.
 * - Back into a live flow. USER_RETRY is the user's manual control when the notice never came:
 *   from OUT_OF_BAND_PENDING directly, or from EXPIRED (the flow's time to live ran out; a person
 *   recovers it by hand, trigger `manual-recovery`). From USER_RETRY the user re-opens the page and
 *   waits again (→ OUT_OF_BAND_PENDING), says they have finished or the server answered
 *   (→ REQUIREMENT_VERIFIED), or gives up (→ CANCELLED).
 *
 * - Out of NAVIGATION_ACCEPTED without navigating: the opener failed (`open-failed`) or the user gave
 *   up before anything was opened (`user-cancelled`) → CANCELLED, so no accepted flow is ever stuck.
 *
 * Terminal: DECLINED, CANCELLED, ORIGINAL_RESPONSE_ACCEPTED, RETRY_RESPONSE_ACCEPTED. EXPIRED is
 * not terminal: it waits for manual recovery, so a pending flow can always be taken up again.
 */
import { GuardCode, GuardError } from '../protocol/errors.js';

export const FLOW_STATES = Object.freeze([
  'CREATED',
  'USER_REVIEW',
  'DECLINED',
  'CANCELLED',
  'NAVIGATION_ACCEPTED',
  'OUT_OF_BAND_PENDING',
  'COMPLETION_NOTIFIED',
  'EXPIRED',
  'USER_RETRY',
  'REQUIREMENT_VERIFIED',
  'NESTED_SERVER_CONTINUES',
  'ERROR_RETRY_ELIGIBLE',
  'OPTIONAL_CLIENT_RETRY',
  'ORIGINAL_RESPONSE_ACCEPTED',
  'RETRY_RESPONSE_ACCEPTED',
] as const);

export type FlowState = (typeof FLOW_STATES)[number];

/** What moved a flow. Each edge of the table names the triggers it accepts. */
export const FLOW_TRIGGERS = Object.freeze([
  /** The guard showed the elicitation to the user. */
  'presented',
  'user-accepted',
  'user-declined',
  'user-cancelled',
  /** The server withdrew the elicitation (`notifications/cancelled`) while the user reviewed it. */
  'server-cancelled',
  /** The opener handed the URL to the browser. */
  'navigation-opened',
  /** `notifications/elicitation/complete` arrived for this id: a hint, nothing more. */
  'completion-notice',
  /** The notice was matched to this record: known pending id, same server and generation, in time. */
  'notice-verified',
  /** The user said the out-of-band step is done. */
  'user-confirmed',
  /** The server's final answer to the original request. */
  'final-response',
  /** The time to live of the pending navigation ran out. */
  'ttl-expired',
  /** A person took up a stalled flow by hand (the UI's retry control or `ledger recover`). */
  'manual-recovery',
  /** The elicitation belongs to a request that is still open (nested lineage). */
  'nested-lineage',
  /** The elicitation came from a `-32042` error: the original may be sent again. */
  'error-lineage',
  /** The host sent the original request again. */
  'client-retry',
  /** The server's answer to that retry. */
  'retry-response',
  /** The opener could not hand the URL to a browser: nothing was opened, the flow ends. */
  'open-failed',
] as const);

export type FlowTrigger = (typeof FLOW_TRIGGERS)[number];

type EdgeTable = { readonly [F in FlowState]: { readonly [T in FlowState]?: readonly FlowTrigger[] } };

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/** Every edge with the triggers that may take it. The single source of truth for the lifecycle. */
export const TRANSITION_TRIGGERS: EdgeTable = deepFreeze({
  CREATED: { USER_REVIEW: ['presented'] },
  USER_REVIEW: {
    DECLINED: ['user-declined'],
    CANCELLED: ['user-cancelled', 'server-cancelled'],
    NAVIGATION_ACCEPTED: ['user-accepted'],
  },
  NAVIGATION_ACCEPTED: { OUT_OF_BAND_PENDING: ['navigation-opened'], CANCELLED: ['open-failed', 'user-cancelled'] },
  OUT_OF_BAND_PENDING: {
    COMPLETION_NOTIFIED: ['completion-notice'],
    EXPIRED: ['ttl-expired'],
    USER_RETRY: ['manual-recovery'],
    REQUIREMENT_VERIFIED: ['user-confirmed', 'final-response'],
  },
  COMPLETION_NOTIFIED: { REQUIREMENT_VERIFIED: ['notice-verified', 'user-confirmed', 'final-response'] },
  EXPIRED: { USER_RETRY: ['manual-recovery'] },
  USER_RETRY: {
    OUT_OF_BAND_PENDING: ['navigation-opened'],
    REQUIREMENT_VERIFIED: ['user-confirmed', 'final-response'],
    CANCELLED: ['user-cancelled'],
  },
  REQUIREMENT_VERIFIED: { NESTED_SERVER_CONTINUES: ['nested-lineage'], ERROR_RETRY_ELIGIBLE: ['error-lineage'] },
  NESTED_SERVER_CONTINUES: { ORIGINAL_RESPONSE_ACCEPTED: ['final-response'] },
  ERROR_RETRY_ELIGIBLE: { OPTIONAL_CLIENT_RETRY: ['client-retry'] },
  OPTIONAL_CLIENT_RETRY: { RETRY_RESPONSE_ACCEPTED: ['retry-response'] },
  DECLINED: {},
  CANCELLED: {},
  ORIGINAL_RESPONSE_ACCEPTED: {},
  RETRY_RESPONSE_ACCEPTED: {},
});

/** The transition table: each state and the states that may follow it. */
export const TRANSITIONS: { readonly [F in FlowState]: readonly FlowState[] } = deepFreeze(
  Object.fromEntries(FLOW_STATES.map((from) => [from, Object.keys(TRANSITION_TRIGGERS[from]) as FlowState[]])) as Record<
    FlowState,
    FlowState[]
  >,
);

export const TERMINAL_STATES: readonly FlowState[] = Object.freeze(FLOW_STATES.filter((s) => TRANSITIONS[s].length === 0));

/**
 * The groups of states the guard and its hosts ask about, each listed once, here, next to the table
 * they are read from (test/flow/states.test.ts checks each against the table).
 */
export const STATE_GROUPS = Object.freeze({
  /** Not finished: may still move (expired included: it waits for manual recovery). The non-terminal states. */
  live: new Set<FlowState>(FLOW_STATES.filter((s) => TRANSITIONS[s].length > 0)) as ReadonlySet<FlowState>,
  /** The user has not agreed to open the URL yet: a completion notice now proves nothing. */
  beforeConsent: new Set<FlowState>(['CREATED', 'USER_REVIEW', 'NAVIGATION_ACCEPTED']) as ReadonlySet<FlowState>,
  /** Waiting for the out-of-band step: the server's final answer to the nested original verifies it. */
  awaiting: new Set<FlowState>(['OUT_OF_BAND_PENDING', 'COMPLETION_NOTIFIED', 'USER_RETRY']) as ReadonlySet<FlowState>,
  /** The requirement is verified, or further along its lineage. */
  verified: new Set<FlowState>([
    'REQUIREMENT_VERIFIED',
    'ERROR_RETRY_ELIGIBLE',
    'OPTIONAL_CLIENT_RETRY',
    'RETRY_RESPONSE_ACCEPTED',
    'NESTED_SERVER_CONTINUES',
    'ORIGINAL_RESPONSE_ACCEPTED',
  ]) as ReadonlySet<FlowState>,
  /** Opened and not heard of since: the user may be asked whether the browser step is done. */
  waiting: new Set<FlowState>(['OUT_OF_BAND_PENDING', 'EXPIRED']) as ReadonlySet<FlowState>,
  /** The user may say "I have finished" (an expired flow is taken up by hand first). */
  confirmable: new Set<FlowState>(['OUT_OF_BAND_PENDING', 'COMPLETION_NOTIFIED', 'EXPIRED', 'USER_RETRY']) as ReadonlySet<FlowState>,
  /** Opened, and the user may still give up (an expired or pending flow is taken up by hand first). */
  cancellableAfterOpen: new Set<FlowState>(['OUT_OF_BAND_PENDING', 'EXPIRED', 'USER_RETRY']) as ReadonlySet<FlowState>,
});

const stateSet: ReadonlySet<string> = new Set(FLOW_STATES);
const triggerSet: ReadonlySet<string> = new Set(FLOW_TRIGGERS);

export function isFlowState(value: unknown): value is FlowState {
  return typeof value === 'string' && stateSet.has(value);
}

export function isFlowTrigger(value: unknown): value is FlowTrigger {
  return typeof value === 'string' && triggerSet.has(value);
}

/** True when nothing can follow the state. */
export function isTerminal(state: FlowState): boolean {
  return TRANSITIONS[state].length === 0;
}

/** True when the table has the edge `from → to`, and (if given) `trigger` may take it. */
export function canTransition(from: FlowState, to: FlowState, trigger?: FlowTrigger): boolean {
  const triggers = TRANSITION_TRIGGERS[from]?.[to];
  if (triggers === undefined) return false;
  return trigger === undefined || triggers.includes(trigger);
}

/** One URL-mode flow: the state of one navigation record. Immutable; `transition` makes the next. */
export interface Flow {
  /** The navigation record id. */
  readonly id: string;
  readonly state: FlowState;
  /** The trigger of the last move; `null` while the flow is as created. */
  readonly trigger: FlowTrigger | null;
  /** Milliseconds since the epoch. */
  readonly createdAt: number;
  readonly updatedAt: number;
}

export function createFlow(id: string, now: number): Flow {
  return Object.freeze({ id, state: 'CREATED', trigger: null, createdAt: now, updatedAt: now });
}

/**
 * Moves a flow along one edge of the table. Returns the new flow; throws `GuardError`
 * `E_ILLEGAL_TRANSITION` (naming from, to and trigger) when the table has no such edge or the
 * edge does not take that trigger. The caller records the refusal.
 *
 * @example transition(createFlow('nav_1', t0), 'USER_REVIEW', 'presented', t1).state // 'USER_REVIEW'
 */
export function transition(flow: Flow, to: FlowState, trigger: FlowTrigger, now: number): Flow {
  if (!canTransition(flow.state, to, trigger)) throw illegalTransition(flow.state, to, trigger);
  return Object.freeze({ id: flow.id, state: to, trigger, createdAt: flow.createdAt, updatedAt: now });
}

export function illegalTransition(from: FlowState, to: FlowState, trigger: FlowTrigger): GuardError {
  const edge = TRANSITION_TRIGGERS[from]?.[to];
  const reason =
    edge === undefined
      ? TRANSITIONS[from].length === 0
        ? `${from} is terminal`
        : `${from} may only move to ${TRANSITIONS[from].join(', ')}`
      : `${from} → ${to} is taken only on ${edge.join(', ')}`;
  return new GuardError(GuardCode.illegalTransition, `illegal flow transition ${from} → ${to} on "${trigger}": ${reason}`, {
    from,
    to,
    trigger,
  });
}
