/** Deterministic clock and randomness, and valid inputs for the record builders. */
import { sha256Hex } from '../../src/protocol/digest.js';
import type { BusinessInput, NavigationInput, RecordDeps } from '../../src/flow/records.js';
import type { FlowState, FlowTrigger } from '../../src/flow/states.js';

export interface TestDeps extends RecordDeps {
  /** Moves the clock forward by `ms` and returns the new time. */
  advance(ms: number): number;
}

/** A seeded xorshift32 source and a manual clock starting at `start` (ms since the epoch). */
export function testDeps(seed = 1, start = 1_767_225_600_000): TestDeps {
  let state = seed >>> 0 || 1;
  let time = start;
  return {
    clock: () => time,
    random: (n) => {
      const bytes = new Uint8Array(n);
      for (let i = 0; i < n; i++) {
        state ^= state << 13;
        state >>>= 0;
        state ^= state >>> 17;
        state ^= state << 5;
        state >>>= 0;
        bytes[i] = state & 0xff;
      }
      return bytes;
    },
    advance: (ms) => (time += ms),
  };
}

export const digestOf = (label: string): string => sha256Hex(label);

export function navigationInput(overrides: Partial<NavigationInput> = {}): NavigationInput {
  return {
    elicitationId: 'el-1',
    server: { key: 'payments', name: 'acme-payments', version: '2.4.0' },
    subject: 'user:alice',
    originalRequestDigest: digestOf('tools/call pay'),
    url: 'https://auth.example.com/authorize?client_id=abc&state=xyz#frag',
    redirectPolicy: ['example.com'],
    purpose: 'Sign in to Acme to authorise the payment.',
    ttlMs: 10 * 60_000,
    sessionGeneration: 1,
    ...overrides,
  };
}

export function businessInput(overrides: Partial<BusinessInput> = {}): BusinessInput {
  return {
    lineage: { session: 'session-1', kind: 'nested', originalRequestDigest: digestOf('tools/call pay') },
    requestId: 7,
    retryGeneration: 0,
    requirementReceiptIds: ['cr_0001'],
    responseDigest: digestOf('result'),
    ...overrides,
  };
}

/** The designed edges and their triggers, written out apart from the implementation's table. */
export const DESIGNED_TRIGGERS: Record<FlowState, Partial<Record<FlowState, readonly FlowTrigger[]>>> = {
  CREATED: { USER_REVIEW: ['presented'] },
  USER_REVIEW: { DECLINED: ['user-declined'], CANCELLED: ['user-cancelled', 'server-cancelled'], NAVIGATION_ACCEPTED: ['user-accepted'] },
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
};
