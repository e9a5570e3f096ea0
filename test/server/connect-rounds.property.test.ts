import type { ServerContext } from '@modelcontextprotocol/server';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConnectRounds, type ConnectStep } from '../../src/server/connect-rounds.js';
import { MemoryConnectFlowStore } from '../../src/server/connect-store.js';
import { ConnectService } from '../../src/server/connect.js';
import { MemorySecretVault } from '../../src/server/vault.js';
import { propertyParameters, timeoutFor } from '../properties/runs.js';

// A hostile client's sequences against ConnectRounds: two users ask, retry with any state they have
// seen (theirs or the other's, as sent or tampered with, accepted, declined or with no answer, more
// than once), while flows complete, get retired or lose their token in between. A model says what
// each retry must come to; above all, a tool goes on only for the subject whose flow completed with
// a token in the vault, at most once per flow, and never on a state that was altered.

const BASE = 'http://127.0.0.1:9';
const SUBJECTS = ['alice', 'mallory'] as const;
type Subject = (typeof SUBJECTS)[number];

type Op =
  | { readonly kind: 'ask'; readonly who: number }
  /** `other`: sent by the subject who does not own the state's flow. */
  | { readonly kind: 'retry'; readonly state: number; readonly other: boolean; readonly tamper: boolean; readonly answer: number }
  | { readonly kind: 'complete'; readonly flow: number }
  | { readonly kind: 'retire'; readonly flow: number }
  | { readonly kind: 'dropToken'; readonly who: number };

// Weighted so that flows often complete and honest retries often follow (the paths that can go on).
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('ask' as const), who: fc.nat(1) }) },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('retry' as const),
      // Mostly a recent state, sometimes an old one.
      state: fc.oneof({ weight: 3, arbitrary: fc.nat(2) }, { weight: 1, arbitrary: fc.nat(20) }),
      other: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      tamper: fc.oneof({ weight: 5, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      answer: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(0, 3) }, { weight: 1, arbitrary: fc.constantFrom(1, 2) }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('complete' as const), flow: fc.nat(3) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('retire' as const), flow: fc.nat(3) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('dropToken' as const), who: fc.nat(1) }) },
);

function ctx(subject: Subject, state?: string, inputResponses?: Record<string, unknown>): ServerContext {
  return {
    mcpReq: {
      id: 1,
      method: 'tools/call',
      requestState: () => state,
      inputResponses,
      signal: new AbortController().signal,
      envelope: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' },
    },
    http: { authInfo: { token: 't', clientId: 'c', scopes: [], extra: { sub: subject } } },
  } as unknown as ServerContext;
}

const ANSWERS = [{ connect: { action: 'accept' } }, { connect: { action: 'decline' } }, { connect: { action: 'cancel' } }, undefined];

function tampered(state: string): string {
  const [version, body, mac] = state.split('.') as [string, string, string];
  const bytes = Buffer.from(body, 'base64url');
  const at = bytes.length >> 1;
  bytes[at] = (bytes[at] ?? 0) ^ 1;
  return `${version}.${bytes.toString('base64url')}.${mac}`;
}

interface FlowModel {
  readonly url: string;
  readonly owner: Subject;
  status: 'pending' | 'completed' | 'retired';
  spent: boolean;
}

/** How often each outcome came up over all runs: the property must reach the paths that matter. */
const outcomes = new Map<string, number>();

async function run(ops: readonly Op[]): Promise<void> {
  const store = new MemoryConnectFlowStore();
  const vault = new MemorySecretVault();
  const connect = new ConnectService({
    baseUrl: BASE,
    vault,
    store,
    provider: { name: 'acme', issuer: 'http://127.0.0.1:10', clientId: 'c', redirectUri: `${BASE}/oauth/callback`, scope: 'openid' },
    allowInsecureRequests: true,
  });
  const rounds = new ConnectRounds(connect, {
    key: 'property-state-key-not-real-0123456789',
    subject: (c) => (c.http?.authInfo?.extra?.['sub'] as string | undefined) ?? null,
    waitMs: 0,
    allowHttpLoopback: true,
  });
  const flows: FlowModel[] = [];
  const states: { readonly state: string; readonly flow: FlowModel }[] = [];
  const tokens = new Set<Subject>();
  const goneOn = new Map<string, number>();
  const idOf = (url: string) => new URL(url).pathname.split('/').at(-1)!;

  for (const o of ops) {
    switch (o.kind) {
      case 'ask': {
        const who = SUBJECTS[o.who]!;
        const step = await rounds.connect(ctx(who), { purpose: 'Connect Acme' });
        if (tokens.has(who)) {
          expect(step.kind).toBe('connected');
          break;
        }
        expect(step.kind).toBe('input_required');
        const result = (step as Extract<ConnectStep, { kind: 'input_required' }>).result;
        const url = (result.inputRequests!['connect'] as { params: { url: string } }).params.url;
        const flow: FlowModel = { url, owner: who, status: 'pending', spent: false };
        flows.push(flow);
        states.push({ state: result.requestState!, flow });
        break;
      }
      case 'retry': {
        // Counted from the newest state back.
        const seen = states[states.length - 1 - (o.state % Math.max(1, states.length))];
        if (seen === undefined) break;
        const who = o.other ? SUBJECTS.find((s) => s !== seen.flow.owner)! : seen.flow.owner;
        const answer = ANSWERS[o.answer];
        const step = await rounds.connect(ctx(who, o.tamper ? tampered(seen.state) : seen.state, answer), { purpose: 'Connect Acme' });
        const { flow } = seen;
        const outcome = step.kind === 'refused' ? step.code : step.kind;
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
        if (o.tamper || who !== flow.owner) {
          expect(step).toMatchObject({ kind: 'refused', code: 'E_REQUEST_STATE_INVALID' });
        } else if (flow.spent) {
          expect(step).toMatchObject({ kind: 'refused', code: 'E_REQUEST_STATE_REPLAYED' });
        } else if (answer !== undefined && answer.connect.action !== 'accept') {
          expect(step).toMatchObject({ kind: 'declined', action: answer.connect.action });
        } else if (flow.status === 'retired') {
          expect(step).toMatchObject({ kind: 'refused', code: 'E_CONNECT_FLOW_ENDED' });
        } else if (flow.status === 'completed' && tokens.has(who)) {
          expect(step).toMatchObject({ kind: 'connected', subject: who });
          flow.spent = true;
        } else {
          expect(step.kind).toBe('input_required');
          const result = (step as Extract<ConnectStep, { kind: 'input_required' }>).result;
          expect(Object.keys(result.inputRequests ?? {})).toEqual([]);
          states.push({ state: result.requestState!, flow });
        }
        if (step.kind === 'connected') {
          // The invariant the model exists for: only the flow's own subject, with a token, once per flow.
          expect(who).toBe(flow.owner);
          expect(await vault.get(who, 'acme')).not.toBeNull();
          goneOn.set(flow.url, (goneOn.get(flow.url) ?? 0) + 1);
          expect(goneOn.get(flow.url)).toBe(1);
        }
        break;
      }
      case 'complete': {
        const flow = flows[flows.length - 1 - (o.flow % Math.max(1, flows.length))];
        if (flow === undefined || flow.status !== 'pending') break;
        // What a successful callback does: the flow completes, then its token is stored for its subject.
        expect(await store.complete(idOf(flow.url), Date.now())).toBe(true);
        await vault.put(flow.owner, 'acme', { tokenType: 'bearer', accessToken: `token-${flow.owner}`, issuer: 'http://127.0.0.1:10' });
        flow.status = 'completed';
        tokens.add(flow.owner);
        break;
      }
      case 'retire': {
        const flow = flows[flows.length - 1 - (o.flow % Math.max(1, flows.length))];
        if (flow === undefined || flow.status !== 'pending') break;
        expect(await store.retire(idOf(flow.url), 'E_CONNECT_OTHER_BROWSER', Date.now())).toBe(true);
        flow.status = 'retired';
        break;
      }
      case 'dropToken': {
        const who = SUBJECTS[o.who]!;
        await vault.delete(who, 'acme');
        tokens.delete(who);
        break;
      }
    }
  }
}

describe('ConnectRounds against sequences of a hostile client', () => {
  it(
    'lets a tool go on only for the flow subject with a token, once per flow, never on an altered or borrowed state',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 40 }), (ops) => run(ops)),
        propertyParameters(120),
      );
      for (const outcome of [
        'connected',
        'input_required',
        'declined',
        'E_REQUEST_STATE_INVALID',
        'E_REQUEST_STATE_REPLAYED',
        'E_CONNECT_FLOW_ENDED',
      ])
        expect(outcomes.get(outcome) ?? 0, outcome).toBeGreaterThan(0);
    },
    timeoutFor(120, 40),
  );
});
