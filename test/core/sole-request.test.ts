/**
 * One request in flight at a time, as a host that waits for each answer sends them: the guard then
 * tracks it outside its hash tables (see `Bounded` in flow/book.ts). A hostile server on raw
 * JSON-RPC, in both eras, through the public methods and through the adapters' pass-through: an
 * answer on the wrong id (`"1"` for `1`, an id never sent) settles nothing; an id the server reuses
 * for its own request leaves the host's request in flight; a re-sent id, a task's result, a new
 * `initialize` and a flood of re-sent ids leave the table as a Map's would. `-32042` (2025-11-25) and
 * an input-required round (2026-07-28) are the probes: each reaches the host only on a request in
 * flight, and a form there is still judged.
 */
import { describe, expect, it } from 'vitest';
import type { Decision } from '../../src/core/decision.js';
import { createGuard, judgeInbound, judgeOutbound, type Guard } from '../../src/core/guard.js';
import { benignSchema, formRequest, handshake, initializeRequest, passwordSchema } from '../helpers/session.js';

type Msg = Record<string, unknown>;
type Path = 'public' | 'pass-through';

const GOOD_URL = 'https://accounts.google.com/o/oauth2/v2/auth?client_id=1&response_type=code';
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {}, url: {} } },
};

/** The action a message gets, through the path under test (`null` from the pass-through is a forward of the same object). */
function via(path: Path, guard: Guard): { out: (m: Msg) => Decision; in: (m: Msg) => Decision } {
  const run = (judge: (g: Guard, m: unknown) => Decision | null, m: Msg): Decision =>
    judge(guard, m) ?? { action: 'forward', message: m as never, events: [] };
  return path === 'public'
    ? { out: (m) => guard.outbound(m), in: (m) => guard.inbound(m) }
    : { out: (m) => run(judgeOutbound, m), in: (m) => run(judgeInbound, m) };
}

const call = (id: number | string, extra: Msg = {}): Msg => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'deploy', arguments: { env: 'prod' }, ...extra },
});
const result = (id: number | string): Msg => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'ok' }] } });
const urlRequired = (id: number | string, elicitationId: string): Msg => ({
  jsonrpc: '2.0',
  id,
  error: {
    code: -32042,
    message: 'URL elicitation required',
    data: { elicitations: [{ mode: 'url', elicitationId, url: GOOD_URL, message: 'Connect Google' }] },
  },
});

describe.each<Path>(['public', 'pass-through'])('one request in flight, through the %s path', (path) => {
  describe('2025-11-25', () => {
    function session(): { guard: Guard; g: ReturnType<typeof via> } {
      const guard = createGuard();
      handshake(guard, { form: {}, url: {} });
      return { guard, g: via(path, guard) };
    }

    it('a -32042 on the wrong id is dropped; on the request in flight it reaches the host once', () => {
      const { g } = session();
      expect(g.out(call(1)).action).toBe('forward');
      expect(g.in(urlRequired('1', 'e-a')).action).toBe('drop');
      expect(g.in(urlRequired(2, 'e-b')).action).toBe('drop');
      expect(g.in(urlRequired(1, 'e-c')).action).toBe('forward');
      expect(g.in(urlRequired(1, 'e-d')).action).toBe('drop');
    });

    it("a plain result on the wrong id is passed on and settles nothing: the request's -32042 still reaches the host", () => {
      const { g } = session();
      g.out(call(1));
      expect(g.in(result('1')).action).toBe('forward');
      expect(g.in(result(7)).action).toBe('forward');
      expect(g.in(urlRequired(1, 'e-a')).action).toBe('forward');
    });

    it("the server's own request on the host request's id is judged and leaves the host request in flight", () => {
      const { g } = session();
      g.out(call(1));
      expect(g.in(formRequest(1, passwordSchema)).action).toBe('reply');
      const benign = g.in(formRequest(1, benignSchema));
      expect(benign.action).toBe('forward');
      // The host answers the server's request 1: that is not the server's answer to the host's request 1.
      g.out({ jsonrpc: '2.0', id: 1, result: { action: 'decline' } });
      expect(g.in(urlRequired(1, 'e-a')).action).toBe('forward');
    });

    it('a re-sent id, two in flight and back to one, a new initialize: the table is what was sent and not answered', () => {
      const { g } = session();
      g.out(call(1));
      g.out(call(1)); // re-sent while in flight: one entry
      expect(g.in(result(1)).action).toBe('forward');
      expect(g.in(urlRequired(1, 'e-a')).action).toBe('drop');
      g.out(call(2));
      g.out(call(3));
      g.in(result(3));
      g.out(call('3')); // the string id beside the number
      g.in(result(2));
      expect(g.in(urlRequired(3, 'e-b')).action).toBe('drop');
      expect(g.in(urlRequired('3', 'e-c')).action).toBe('forward');
      g.out(call(4));
      g.out(initializeRequest()); // a new generation: nothing is in flight any more
      expect(g.in(urlRequired(4, 'e-d')).action).toBe('drop');
    });

    it('a second request in flight does not push the first out: both -32042s reach the host, in either order', () => {
      for (const order of [
        [1, 2],
        [2, 1],
      ]) {
        const { g } = session();
        g.out(call(1, { n: 1 }));
        g.out(call(2, { n: 2 }));
        for (const id of order) expect(g.in(urlRequired(id, `e-${id}`)).action).toBe('forward');
      }
    });

    it("a task's result is the answer to tasks/result, and a flood of re-sent ids leaves the last one in flight", () => {
      const { g } = session();
      g.out({ jsonrpc: '2.0', id: 5, method: 'tasks/result', params: { taskId: 't1' } });
      expect(g.in(urlRequired(5, 'e-a')).action).toBe('forward');
      for (let i = 0; i < 10_000; i++) {
        g.out(call(10 + (i % 3)));
        if (i % 3 === 2) g.in(result(10 + (i % 3)));
      }
      // 12 was answered after its last sending; 10 and 11 are in flight.
      expect(g.in(urlRequired(12, 'e-b')).action).toBe('drop');
      expect(g.in(urlRequired(10, 'e-c')).action).toBe('forward');
      expect(g.in(urlRequired(11, 'e-d')).action).toBe('forward');
      expect(g.in(urlRequired(11, 'e-e')).action).toBe('drop');
    });
  });

  describe('2026-07-28', () => {
    const modernCall = (id: number | string, extra: Msg = {}) => call(id, { _meta: META, ...extra });
    const round = (id: number | string, schema: Msg, state = 'st-1'): Msg => ({
      jsonrpc: '2.0',
      id,
      result: {
        resultType: 'input_required',
        inputRequests: { a: { method: 'elicitation/create', params: { mode: 'form', message: 'Fill in', requestedSchema: schema } } },
        requestState: state,
      },
    });
    const presented = (d: Decision): string[] =>
      d.action === 'forward' ? Object.keys((d.message as { result?: { inputRequests?: Msg } }).result?.inputRequests ?? {}) : [];

    it('an input-required round on the wrong id presents nothing; on the request in flight its form is judged', () => {
      const guard = createGuard();
      const g = via(path, guard);
      expect(g.out(modernCall(1)).action).toBe('forward');
      expect(presented(g.in(round('1', benignSchema)))).toEqual([]);
      expect(presented(g.in(round(2, benignSchema)))).toEqual([]);
      expect(presented(g.in(round(1, benignSchema)))).toEqual(['a']);
      // The round answered request 1: another round on it is not presented.
      expect(presented(g.in(round(1, benignSchema, 'st-2')))).toEqual([]);
      g.out(modernCall(3));
      expect(presented(g.in(round(3, passwordSchema)))).toEqual([]);
    });

    it('a final answer on the wrong id settles nothing; a retry, its answer, a re-sent id and a flood leave the right ones in flight', () => {
      const guard = createGuard();
      const g = via(path, guard);
      g.out(modernCall(1));
      expect(g.in(result('1')).action).not.toBe('reply');
      expect(presented(g.in(round(1, benignSchema)))).toEqual(['a']);
      const retry = modernCall(2, { inputResponses: { a: { action: 'accept', content: { name: 'demo' } } }, requestState: 'st-1' });
      expect(g.out(retry).action).toBe('forward');
      expect(g.in(result(2)).action).toBe('forward');
      for (let i = 0; i < 10_000; i++) {
        g.out(modernCall(10 + (i % 3)));
        if (i % 3 === 2) g.in(result(10 + (i % 3)));
      }
      expect(presented(g.in(round(12, benignSchema, 'st-f')))).toEqual([]);
      expect(presented(g.in(round(10, benignSchema, 'st-g')))).toEqual(['a']);
      expect(presented(g.in(round(11, passwordSchema, 'st-h')))).toEqual([]);
    });
  });
});
