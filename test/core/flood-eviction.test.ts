/**
 * A host flood far past the guard's cap of requests in flight (4,096), with re-sent ids mixed in,
 * on raw JSON-RPC in both eras: the oldest requests are forgotten, the guard keeps judging, and an
 * elicitation a hostile server sends on the newest request (or on a forgotten one) is still
 * checked: a password form never reaches the host as it was sent.
 */
import { describe, expect, it } from 'vitest';
import { createGuard } from '../../src/core/guard.js';
import { formRequest, handshake, passwordSchema } from '../helpers/session.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {}, url: {} } },
};
const FLOOD = 10_000;

type Out = { action: string; message?: { result?: { inputRequests?: Record<string, unknown> } } };

describe('a flood of host requests past the cap of requests in flight', () => {
  it('2025-11-25: requests flood in with re-sent ids; a password form after it is still refused', () => {
    const guard = createGuard();
    handshake(guard, { form: {} });
    for (let i = 1; i <= FLOOD; i++) {
      const request = { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 't', arguments: { i } } };
      expect(guard.outbound(request).action).toBe('forward');
      if (i % 7 === 0) guard.outbound({ ...request, id: i - 3 }); // a re-sent id among them
    }
    // A form sent after the flood, and another after a forgotten request was answered: both judged.
    expect((guard.inbound(formRequest('s1', passwordSchema)) as Out).action).toBe('reply');
    expect(guard.inbound({ jsonrpc: '2.0', id: 1, result: { content: [] } }).action).toBe('forward');
    expect((guard.inbound(formRequest('s2', passwordSchema)) as Out).action).toBe('reply');
    // The newest request's answer still goes to the host.
    expect(guard.inbound({ jsonrpc: '2.0', id: FLOOD, result: { content: [] } }).action).toBe('forward');
  });

  it('2026-07-28: the same flood; an input-required round with a password form on the newest or a forgotten request is never presented', () => {
    const guard = createGuard();
    const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 't', arguments: { id }, _meta: META } });
    for (let i = 1; i <= FLOOD; i++) {
      expect(guard.outbound(call(i)).action).toBe('forward');
      if (i % 7 === 0) guard.outbound(call(i - 3));
    }
    const round = (id: number) => ({
      jsonrpc: '2.0',
      id,
      result: {
        resultType: 'input_required',
        inputRequests: {
          a: { method: 'elicitation/create', params: { mode: 'form', message: 'Sign in', requestedSchema: passwordSchema } },
        },
        requestState: `s${id}`,
      },
    });
    for (const id of [FLOOD, 1]) {
      const out = guard.inbound(round(id)) as Out;
      expect(out.action === 'forward' ? Object.keys(out.message?.result?.inputRequests ?? {}) : [], `request ${id}`).toEqual([]);
    }
  });
});
