/**
 * The adapters' pass-through (`judgeInbound` / `judgeOutbound`): `null` instead of a Decision for a
 * plain request or the final answer to one. It must rule exactly as `guard.inbound` /
 * `guard.outbound` do, on every sequence a hostile server (and a careless host) can send as raw
 * JSON-RPC, in both eras: ids reused across directions and methods, the same payload answering
 * another request, floods of re-sent ids, input-required results where none may come, tasks,
 * `-32042`, retries. Two guards with the same clock and random bytes are fed the same messages, one
 * through the public methods, one through the pass-through; every decision, event, metric, session
 * view and flow list must be the same, and `null` only where the public decision forwards the very
 * same object with no events.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Decision } from '../../src/core/decision.js';
import type { GuardEvent } from '../../src/core/events.js';
import { createGuard, judgeInbound, judgeOutbound, type Guard } from '../../src/core/guard.js';
import { propertyParameters, timeoutFor } from '../properties/runs.js';
import { benignSchema, initializeRequest } from '../helpers/session.js';

type Msg = Record<string, unknown>;
const MODERN = '2026-07-28';
const GOOD_URL = 'https://accounts.google.com/o/oauth2/v2/auth?client_id=1&response_type=code';

function twin(sessionKey?: string): { guard: Guard; events: GuardEvent[] } {
  const events: GuardEvent[] = [];
  let counter = 0;
  const guard = createGuard({
    clock: () => 1_700_000_000_000,
    random: (n) => Uint8Array.from({ length: n }, () => (counter = (counter * 31 + 7) & 0xff)),
    onEvent: (event) => events.push(event),
    ...(sessionKey === undefined ? {} : { sessionKey }),
  });
  return { guard, events };
}

/** What a decision says, with `null` read as what it stands for: the same object forwarded, nothing to report. */
function expectSame(publicDecision: Decision, passed: Decision | null, message: unknown): void {
  if (passed === null) {
    expect(publicDecision.action).toBe('forward');
    expect(publicDecision.action === 'forward' && publicDecision.message).toBe(message);
    expect(publicDecision.events).toHaveLength(0);
    return;
  }
  if (publicDecision.action === 'defer' || passed.action === 'defer') {
    expect(passed.action).toBe(publicDecision.action);
    expect(passed.events).toEqual(publicDecision.events);
    return;
  }
  expect(passed).toEqual(publicDecision);
}

function expectSameState(a: Guard, b: Guard): void {
  expect(b.metrics()).toEqual(a.metrics());
  expect(b.session()).toEqual(a.session());
  expect(b.pendingFlows()).toEqual(a.pendingFlows());
}

type Step = { readonly dir: 'in' | 'out'; readonly message: Msg };

// ------------------------------------------------------------------ what can travel

const id = fc.constantFrom<number | string>(0, 1, '1', 2, 3, 7);
/** The same capabilities object on every modern request (as SDK v2 sends it), or a fresh one, or one asking for no URL mode. */
const SAME_CAPABILITIES = { elicitation: { form: {}, url: {} } };
const capabilities = fc.constantFrom<unknown>(SAME_CAPABILITIES, SAME_CAPABILITIES, { elicitation: { form: {} } }, undefined, 'x');
const version = fc.constantFrom<unknown>(MODERN, MODERN, '2025-11-25', '2099-01-01', undefined, 7);
const method = fc.constantFrom('tools/call', 'tools/call', 'tasks/result', 'prompts/get', 'ping', 'server/discover', 'resources/read');

const hostRequest = fc
  .record({ id, method, modern: fc.boolean(), version, capabilities, retry: fc.constantFrom(0, 0, 1, 2, 3) })
  .map(({ id, method, modern, version, capabilities, retry }): Msg => {
    const params: Msg = { name: 'plain', arguments: {} };
    if (method === 'tasks/result') params.taskId = 't1';
    if (modern) {
      const meta: Msg = { 'io.modelcontextprotocol/protocolVersion': version };
      if (capabilities !== undefined) meta['io.modelcontextprotocol/clientCapabilities'] = capabilities;
      params._meta = meta;
    }
    if (retry === 1)
      Object.assign(params, { inputResponses: { project: { action: 'accept', content: { name: 'demo' } } }, requestState: 's1' });
    if (retry === 2) params.requestState = 7;
    if (retry === 3) params.inputResponses = {};
    // Built like SDK v1 builds its requests: a spread, so each has a hidden class of its own.
    return { ...{ method, params }, jsonrpc: '2.0', id };
  });

const inputRequired = (state: unknown): Msg => ({
  resultType: 'input_required',
  inputRequests: {
    project: { method: 'elicitation/create', params: { mode: 'form', message: 'Name it', requestedSchema: benignSchema } },
  },
  requestState: state,
});

const serverMessage = fc.oneof(
  // Final answers, and everything that looks almost like one.
  id.map((i): Msg => ({ jsonrpc: '2.0', id: i, result: { content: [{ type: 'text', text: 'ok' }] } })),
  id.map(
    (i): Msg => ({
      jsonrpc: '2.0',
      id: i,
      result: { content: [], _meta: { 'io.modelcontextprotocol/serverInfo': { name: 's', version: '2' } } },
    }),
  ),
  id.map((i): Msg => ({ jsonrpc: '2.0', id: i, result: { task: { taskId: 't1', status: 'working' } } })),
  id.map((i): Msg => ({ jsonrpc: '2.0', id: i, result: { task: 'not-an-object' } })),
  id.map((i): Msg => ({ jsonrpc: '2.0', id: i, result: 'not-an-object' })),
  id.map((i): Msg => ({ jsonrpc: '2.0', id: i, result: {}, error: { code: -32042, message: 'both' } })),
  id.map((i): Msg => ({ jsonrpc: '2.0', id: i, result: {}, method: 'elicitation/create' })),
  id.map((i): Msg => ({ jsonrpc: '2.0', id: i, result: inputRequired('s1') })),
  id.map((i): Msg => ({ jsonrpc: '2.0', id: i, result: inputRequired(undefined) })),
  id.map((i): Msg => ({ jsonrpc: '2.0', id: i, error: { code: -32000, message: 'nope' } })),
  id.map(
    (i): Msg => ({
      jsonrpc: '2.0',
      id: i,
      error: {
        code: -32042,
        message: 'required',
        data: { elicitations: [{ mode: 'url', elicitationId: 'e1', url: GOOD_URL, message: 'Sign in' }] },
      },
    }),
  ),
  // The server's own requests, on ids the host uses too.
  id.map(
    (i): Msg => ({
      jsonrpc: '2.0',
      id: i,
      method: 'elicitation/create',
      params: { mode: 'form', message: 'Name', requestedSchema: benignSchema },
    }),
  ),
  id.map(
    (i): Msg => ({
      jsonrpc: '2.0',
      id: i,
      method: 'elicitation/create',
      params: { mode: 'url', message: 'Sign in', url: GOOD_URL, elicitationId: 'e1' },
    }),
  ),
  id.map((i): Msg => ({ jsonrpc: '2.0', id: i, method: 'ping' })),
  fc.constant<Msg>({ jsonrpc: '2.0', method: 'notifications/elicitation/complete', params: { elicitationId: 'e1' } }),
  id.map((i): Msg => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: i } })),
  fc.constant<Msg>({ jsonrpc: '2.0', id: null, result: {} }),
);

const hostOther = fc.oneof(
  fc.constant<Msg>(initializeRequest() as Msg),
  fc.constant<Msg>({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  id.map((i): Msg => ({ jsonrpc: '2.0', id: i, result: { action: 'accept', content: { name: 'demo' } } })),
  id.map((i): Msg => ({ jsonrpc: '2.0', id: i, result: { action: 'decline' } })),
  id.map((i): Msg => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: i } })),
);

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: hostRequest.map((message): Step => ({ dir: 'out', message })) },
  { weight: 1, arbitrary: hostOther.map((message): Step => ({ dir: 'out', message })) },
  { weight: 4, arbitrary: serverMessage.map((message): Step => ({ dir: 'in', message })) },
);

function run(steps: readonly Step[], sessionKey?: string): { passes: number } {
  const a = twin(sessionKey);
  const b = twin(sessionKey);
  let passes = 0;
  for (const { dir, message } of steps) {
    const publicDecision = dir === 'in' ? a.guard.inbound(message) : a.guard.outbound(message);
    const passed = dir === 'in' ? judgeInbound(b.guard, message) : judgeOutbound(b.guard, message);
    if (passed === null) passes += 1;
    expectSame(publicDecision, passed, message);
    expectSameState(a.guard, b.guard);
  }
  expect(b.events).toEqual(a.events);
  return { passes };
}

describe('the adapters pass-through rules exactly as the public judgement', () => {
  it(
    'on random hostile sequences in both eras (id reuse across directions, re-sent ids, misplaced input requests)',
    () => {
      let passes = 0;
      fc.assert(
        fc.property(fc.array(step, { maxLength: 40 }), fc.boolean(), (steps, shared) => {
          passes += run(steps, shared ? 'session-1' : undefined).passes;
        }),
        propertyParameters(400),
      );
      // The generators do reach the pass-through (a test that never takes it would prove nothing).
      expect(passes).toBeGreaterThan(100);
    },
    timeoutFor(400, 40),
  );

  const legacy: Step[] = [
    {
      dir: 'out',
      message: {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: { elicitation: { form: {}, url: {} } } },
      },
    },
    {
      dir: 'in',
      message: {
        jsonrpc: '2.0',
        id: 0,
        result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 's', version: '1' } },
      },
    },
    { dir: 'out', message: { jsonrpc: '2.0', method: 'notifications/initialized' } },
  ];
  const call = (i: number | string, meta?: Msg): Msg => ({
    jsonrpc: '2.0',
    id: i,
    method: 'tools/call',
    params: { name: 'x', arguments: {}, ...(meta ? { _meta: meta } : {}) },
  });
  const ok = (i: number | string): Msg => ({ jsonrpc: '2.0', id: i, result: { content: [] } });

  it('a flood of plain calls and answers with re-sent ids, answers to nothing, and answers answered twice', () => {
    const steps: Step[] = [...legacy];
    for (let n = 0; n < 200; n++) {
      steps.push({ dir: 'out', message: call(n % 5) });
      if (n % 3 === 0) steps.push({ dir: 'in', message: ok((n + 1) % 5) });
      steps.push({ dir: 'in', message: ok(n % 5) }, { dir: 'in', message: ok(n % 5) });
    }
    expect(run(steps).passes).toBeGreaterThan(300);
  });

  it('never passes what must be judged: an input-required result, a -32042, a task, or a server request on a host id', () => {
    const b = twin();
    for (const { dir, message } of legacy) (dir === 'in' ? judgeInbound : judgeOutbound)(b.guard, message);
    expect(judgeOutbound(b.guard, call(1))).toBeNull();
    // The server answers the plain legacy call with an input-required result: refused, never passed.
    const misplaced = judgeInbound(b.guard, { jsonrpc: '2.0', id: 1, result: inputRequired('s') });
    expect(misplaced).not.toBeNull();
    expect(misplaced?.action === 'forward' && (misplaced.message as unknown as Msg).error).toBeDefined();
    expect(judgeOutbound(b.guard, call(2))).toBeNull();
    const required = judgeInbound(b.guard, {
      jsonrpc: '2.0',
      id: 2,
      error: { code: -32042, message: 'r', data: { elicitations: [{ mode: 'url', elicitationId: 'e', url: GOOD_URL, message: 'm' }] } },
    });
    expect(required).not.toBeNull();
    // The book now tracks a lineage this call could be the retry of: ruled on in full.
    expect(judgeOutbound(b.guard, call(3))).not.toBeNull();
    // The server reuses the host's in-flight id for its own elicitation: judged, and the call still pending.
    const pushed = judgeInbound(b.guard, {
      jsonrpc: '2.0',
      id: 3,
      method: 'elicitation/create',
      params: { mode: 'form', message: 'm', requestedSchema: benignSchema },
    });
    expect(pushed).not.toBeNull();
    // A result that says it created a task is ruled on, not passed.
    expect(judgeInbound(b.guard, { jsonrpc: '2.0', id: 3, result: { task: { taskId: 't', status: 'working' } } })).not.toBeNull();
  });

  it('in 2026-07-28: a retry, new capabilities, or a narrowed mode is judged; the plain call and its answer pass', () => {
    const b = twin();
    const caps = { elicitation: { form: {}, url: {} } };
    const meta = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': caps };
    // The first modern request sets the era (an event): judged in full.
    expect(judgeOutbound(b.guard, call(1, meta))).not.toBeNull();
    expect(judgeInbound(b.guard, ok(1))).toBeNull();
    expect(judgeOutbound(b.guard, call(2, meta))).toBeNull();
    // The answer asks for input: judged, its form audited.
    expect(judgeInbound(b.guard, { jsonrpc: '2.0', id: 2, result: inputRequired('s2') })).not.toBeNull();
    // The retry carries answers: checked, never passed.
    const retry = {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: {
        name: 'x',
        arguments: {},
        _meta: meta,
        inputResponses: { project: { action: 'accept', content: { name: 'p' } } },
        requestState: 's2',
      },
    };
    expect(judgeOutbound(b.guard, retry)).not.toBeNull();
    // Its final answer completes the chain: ruled on by the round book.
    expect(judgeInbound(b.guard, ok(3))).not.toBeNull();
    // Another capabilities object is read afresh.
    expect(
      judgeOutbound(b.guard, call(4, { ...meta, 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } })),
    ).not.toBeNull();
    // A 2025-11-25 answer shape (-32042) on a modern connection is replaced.
    const era = judgeInbound(b.guard, { jsonrpc: '2.0', id: 4, error: { code: -32042, message: 'r', data: { elicitations: [] } } });
    expect(era).not.toBeNull();
  });
});
