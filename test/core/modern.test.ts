/**
 * The guard alone on 2026-07-28 JSON-RPC (no SDK): era detection, narrowing on every request, the
 * guard's own `_meta` keys never taken from the server, and what the host gets for each refusal.
 */
import { describe, expect, it } from 'vitest';
import type { GuardEvent } from '../../src/core/events.js';
import { createGuard } from '../../src/core/guard.js';
import { GuardMetaKey } from '../../src/protocol/wire.js';
import { benignSchema, handshake } from '../helpers/session.js';

const GOOD_URL = 'https://github.com/login/oauth/authorize?client_id=Iv1.8a61f9b3a7aba766&state=x';
const meta = (elicitation: Record<string, unknown> = { form: {}, url: {} }) => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation, sampling: {} },
});
const call = (id: number, extra: Record<string, unknown> = {}, elicitation?: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 't', arguments: {}, ...extra, _meta: meta(elicitation) },
});
const inputRequired = (id: number, inputRequests: unknown, requestState = 's1') => ({
  jsonrpc: '2.0',
  id,
  result: { resultType: 'input_required', inputRequests, requestState },
});
type Out = {
  action: string;
  message?: { result?: Record<string, unknown>; params?: Record<string, unknown>; error?: { data?: { code?: string } } };
};

function modernGuard(policy?: Record<string, unknown>) {
  const events: GuardEvent[] = [];
  const guard = createGuard({ policy, onEvent: (e) => events.push(e) });
  return { guard, events, out: (d: unknown) => d as Out };
}

describe('the guard on 2026-07-28 JSON-RPC', () => {
  it('reads the era from the wire: a probe, then per-request _meta; a handshake after that is mixed and refuses input requests', () => {
    const { guard, events, out } = modernGuard();
    guard.outbound({ jsonrpc: '2.0', id: 'p', method: 'server/discover', params: { _meta: meta() } });
    expect(guard.session().era).toBe('probing');
    guard.outbound(call(1));
    expect(guard.session()).toMatchObject({ era: 'modern', protocolVersion: '2026-07-28', declaredModes: { form: true, url: true } });
    handshake(guard, { form: {} });
    expect(guard.session().era).toBe('mixed');
    guard.outbound(call(2));
    const refused = out(
      guard.inbound(
        inputRequired(2, { a: { method: 'elicitation/create', params: { mode: 'form', message: 'm', requestedSchema: benignSchema } } }),
      ),
    );
    expect(refused.message?.error?.data?.code).toBe('E_ERA_MISMATCH');
    expect(events.map((e) => e.type)).toContain('session.era');
  });

  it('narrows the capabilities on server/discover and on every request', () => {
    const { guard, events, out } = modernGuard({ url: { enabled: false } });
    for (const request of [{ jsonrpc: '2.0', id: 'p', method: 'server/discover', params: { _meta: meta() } }, call(1), call(2)]) {
      const sent = out(guard.outbound(request));
      expect((sent.message?.params?._meta as Record<string, unknown>)['io.modelcontextprotocol/clientCapabilities']).toEqual({
        elicitation: { form: {} },
        sampling: {},
      });
    }
    expect(events.filter((e) => e.type === 'capabilities.narrowed')).toHaveLength(1);
  });

  it("never takes the guard's own _meta keys from the server: the flow id and the analysis are the guard's", () => {
    const { guard, out } = modernGuard();
    guard.outbound(call(1));
    const forged = { [GuardMetaKey.flow]: 'someone-elses-flow', [GuardMetaKey.urlAnalysis]: { verdict: 'allow', findings: [] } };
    const got = out(
      guard.inbound(
        inputRequired(1, { a: { method: 'elicitation/create', params: { mode: 'url', message: 'm', url: GOOD_URL, _meta: forged } } }),
      ),
    );
    const params = (got.message?.result?.inputRequests as Record<string, { params: { _meta: Record<string, unknown> } }>).a!.params;
    expect(params._meta[GuardMetaKey.flow]).not.toBe('someone-elses-flow');
    expect(guard.flow(params._meta[GuardMetaKey.flow] as string)?.state).toBe('USER_REVIEW');
    expect(guard.flow('someone-elses-flow')).toBeNull();
    expect((params._meta[GuardMetaKey.urlAnalysis] as { display?: unknown }).display).toBeDefined();
  });

  it('drops an elicitation/create pushed on a modern connection, and never answers it', () => {
    const { guard, events } = modernGuard();
    guard.outbound(call(1));
    const decision = guard.inbound({
      jsonrpc: '2.0',
      id: 9,
      method: 'elicitation/create',
      params: { mode: 'form', message: 'm', requestedSchema: benignSchema },
    });
    expect(decision.action).toBe('drop');
    expect(events.filter((e) => e.type === 'protocol.violation')).toMatchObject([{ code: 'E_ERA_MISMATCH', method: 'elicitation/create' }]);
  });

  it('replaces an input-required result to a request that cannot ask for input, or to a 2025 request, with an error', () => {
    const { guard, out } = modernGuard();
    guard.outbound({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta() } });
    expect(out(guard.inbound(inputRequired(1, {}))).message?.error?.data?.code).toBe('E_INVALID_PARAMS');
    const legacy = modernGuard().guard;
    handshake(legacy, { form: {} });
    legacy.outbound({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 't' } });
    expect((legacy.inbound(inputRequired(5, {})) as unknown as Out).message?.error?.data?.code).toBe('E_ERA_MISMATCH');
  });

  it('refuses a URL step the request did not declare, and a -32042 on a modern connection never reaches the host as a list', () => {
    const { guard, out } = modernGuard();
    guard.outbound(call(1, {}, { form: {} }));
    const round = out(
      guard.inbound(inputRequired(1, { a: { method: 'elicitation/create', params: { mode: 'url', message: 'm', url: GOOD_URL } } })),
    );
    expect(round.message?.result?.inputRequests).toEqual({});
    expect((round.message?.result?._meta as Record<string, unknown>)[GuardMetaKey.refusedInputs]).toMatchObject([
      { key: 'a', code: 'E_MODE_NOT_NEGOTIATED' },
    ]);
    guard.outbound(call(2));
    const error = out(
      guard.inbound({
        jsonrpc: '2.0',
        id: 2,
        error: { code: -32042, message: 'x', data: { elicitations: [{ mode: 'url', elicitationId: 'e', url: GOOD_URL, message: 'm' }] } },
      }),
    );
    expect(error.message?.error).toMatchObject({ code: -32603, data: { code: 'E_ERA_MISMATCH' } });
  });

  it('reuses a form judgement only for the very same form, whatever is done later to the objects it was judged from', () => {
    const { guard, out } = modernGuard();
    const ordinary = () => ({ type: 'object', properties: { project: { type: 'string', title: 'Project name' } } });
    const password = { type: 'object', properties: { project: { type: 'string', title: 'Password' } } };
    const ask = (id: number, params: Record<string, unknown>) => {
      guard.outbound(call(id));
      return out(guard.inbound(inputRequired(id, { a: { method: 'elicitation/create', params } }, `s${id}`)));
    };
    const kept = (round: Out) => Object.keys(round.message?.result?.inputRequests as Record<string, unknown>);
    const first = { mode: 'form', message: 'Name it', requestedSchema: ordinary() };
    expect(kept(ask(1, first))).toEqual(['a']);
    // The objects the first judgement came from are changed afterwards (by the server or the host).
    first.requestedSchema.properties.project.title = 'Password';
    // The same message with a sensitive field, a changed member, an extra member, members in another order: each judged afresh.
    expect(kept(ask(2, { mode: 'form', message: 'Name it', requestedSchema: password }))).toEqual([]);
    expect(kept(ask(3, { mode: 'form', message: 'Name it', requestedSchema: { ...ordinary(), additionalProperties: true } }))).toEqual([]);
    expect(kept(ask(4, { mode: 'form', message: 'Name it', requestedSchema: ordinary(), extra: 1 }))).toEqual([]);
    expect(kept(ask(5, { requestedSchema: ordinary(), message: 'Name it', mode: 'form' }))).toEqual(['a']);
    // The same form again (fresh objects, a `_meta` of its own) is the same judgement.
    expect(kept(ask(6, { mode: 'form', message: 'Name it', requestedSchema: ordinary(), _meta: { trace: 'x' } }))).toEqual(['a']);
  });

  it('copies what it rewrites member by member: a hostile `__proto__` member stays a plain member, nothing skips a check', () => {
    const { guard, events, out } = modernGuard();
    guard.outbound(call(1));
    const hostile = JSON.parse(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        result: {
          resultType: 'input_required',
          requestState: 's1',
          inputRequests: {
            a: { method: 'elicitation/create', params: { mode: 'form', message: 'm', requestedSchema: benignSchema } },
            b: { method: 'elicitation/create', params: { mode: 'form', message: 'm', requestedSchema: benignSchema, _meta: { x: 1 } } },
          },
        },
      })
        .replace('"resultType"', '"__proto__":{"polluted":1},"resultType"')
        .replace('"b":{"method"', '"b":{"__proto__":{"polluted":2},"method"')
        .replace('"mode"', '"__proto__":{"polluted":3},"mode"')
        .replace('"_meta":{"x"', '"_meta":{"__proto__":{"polluted":5},"x"'),
    );
    const got = out(guard.inbound(hostile)).message as Record<string, unknown>;
    const result = got.result as Record<string, unknown>;
    // `a` carries a member a form request has no place for: refused, as without the copy.
    expect(result._meta).toMatchObject({ [GuardMetaKey.refusedInputs]: [{ key: 'a', code: 'E_SCHEMA_NOT_ALLOWED' }] });
    const b = (result.inputRequests as Record<string, Record<string, unknown>>).b!;
    const params = b.params as Record<string, unknown>;
    const bMeta = params._meta as Record<string, unknown>;
    for (const [copy, polluted] of [
      [result, 1],
      [b, 2],
      [bMeta, 5],
    ] as const) {
      expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
      expect(Object.getOwnPropertyDescriptor(copy, '__proto__')?.value).toEqual({ polluted });
      expect((copy as { polluted?: unknown }).polluted).toBeUndefined();
    }
    expect(Object.keys(bMeta)).toEqual(['__proto__', 'x', GuardMetaKey.formAudit]);
    expect(bMeta[GuardMetaKey.formAudit]).toMatchObject({ verdict: 'allow' });
    expect(events.filter((e) => e.type === 'elicitation.forwarded').map((e) => (e as { inputKey?: string }).inputKey)).toEqual(['b']);
    // The retry: an answer to a key never presented is dropped from a copy that keeps the host's `__proto__` member as a member.
    const retry = JSON.parse(
      JSON.stringify(
        call(2, { inputResponses: { b: { action: 'decline' }, z: { action: 'accept', content: {} } }, requestState: 's1' }),
      ).replace('"name"', '"__proto__":{"polluted":4},"name"'),
    );
    const sent = out(guard.outbound(retry)).message as { params: Record<string, unknown> };
    expect(Object.getPrototypeOf(sent.params)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(sent.params, '__proto__')?.value).toEqual({ polluted: 4 });
    expect(Object.keys(sent.params.inputResponses as object)).not.toContain('z');
    expect(events.some((e) => e.type === 'content.withheld' && (e as { code?: string }).code === 'E_INPUT_NOT_PRESENTED')).toBe(true);
  });
});
