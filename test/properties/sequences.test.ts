/**
 * Sequences a hostile server (and a careless host) can send through the guard, as raw JSON-RPC:
 * `-32042` answers to every kind of host request, ids reused across directions and methods,
 * task-augmented elicitations, floods of URL elicitations mixed with re-sent ids, and nested
 * elicitations while other requests are in flight. Each property checks what reached the host or
 * the server, never the guard's internals. These generators find holes 1–5 of issue 10 in the guard
 * as it was before the flow book.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createGuard, type Guard } from '../../src/core/guard.js';
import { benignSchema, handshake } from '../helpers/session.js';
import { propertyParameters, timeoutFor } from './runs.js';

type Msg = Record<string, any>;
const URL_META = 'mcp-elicitation-guard/url-analysis';
const GOOD_URL = 'https://accounts.google.com/o/oauth2/v2/auth?client_id=1&response_type=code';
const SECRET = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
const HOSTILE_URLS = [
  'javascript:alert(1)',
  'https://user:hunter2@accounts.google.com/',
  'data:text/html,<script>1</script>',
  'http://127.0.0.1:8080/pay',
];

function out(guard: Guard, direction: 'in' | 'out', message: Msg): Msg | null {
  const decision = direction === 'in' ? guard.inbound(message) : guard.outbound(message);
  return decision.action === 'forward' ? (decision.message as Msg) : null;
}

const entry = fc.record({
  mode: fc.constantFrom('url', 'url', 'form'),
  elicitationId: fc.constantFrom('a', 'b', 'c', ''),
  url: fc.oneof(fc.constant(GOOD_URL), fc.constantFrom(...HOSTILE_URLS)),
  message: fc.constant('Sign in'),
});

describe('a -32042 answer to any host request', () => {
  const method = fc.constantFrom('initialize', 'tools/call', 'tasks/result', 'prompts/get', 'resources/read', 'ping', 'tools/list');
  it(
    'never reaches the host with an unjudged or hostile entry, nor at all without URL mode',
    () => {
      fc.assert(
        fc.property(method, fc.boolean(), fc.boolean(), fc.array(entry, { minLength: 1, maxLength: 4 }), (m, url, viaTask, entries) => {
          const guard = createGuard();
          let id = 10;
          if (m !== 'initialize') handshake(guard, url ? { form: {}, url: {} } : { form: {} });
          else
            guard.outbound({
              jsonrpc: '2.0',
              id,
              method: 'initialize',
              params: { protocolVersion: '2025-11-25', capabilities: { elicitation: { url: {} } } },
            });
          if (m === 'tasks/result' && viaTask) {
            guard.outbound({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'pay', arguments: {}, task: { ttl: 1000 } } });
            guard.inbound({
              jsonrpc: '2.0',
              id: 9,
              result: { task: { taskId: 't', status: 'working', ttl: 1000, createdAt: '2026-01-01T00:00:00Z' } },
            });
          }
          if (m !== 'initialize')
            guard.outbound({ jsonrpc: '2.0', id, method: m, params: m === 'tasks/result' ? { taskId: 't' } : { name: 'x' } });
          const host = out(guard, 'in', {
            jsonrpc: '2.0',
            id,
            error: { code: -32042, message: 'required', data: { elicitations: entries } },
          });
          if (host === null) return;
          const list: unknown[] | undefined = host.error?.data?.elicitations;
          if (!url || m === 'initialize') expect(list).toBeUndefined();
          for (const e of list ?? []) {
            expect(Object.hasOwn((e as Msg)._meta ?? {}, URL_META)).toBe(true);
            expect(HOSTILE_URLS).not.toContain((e as Msg).url);
          }
          id += 1;
        }),
        propertyParameters(300),
      );
    },
    timeoutFor(300),
  );
});

type Step =
  | { t: 'serverPing' }
  | { t: 'serverElicit'; mode: 'form' | 'url' }
  | { t: 'serverCancel'; reason: unknown }
  | { t: 'hostRequest' }
  | { t: 'serverResponse' }
  | { t: 'hostAnswerEmpty' };

const reuse: fc.Arbitrary<Step> = fc.oneof(
  fc.constant({ t: 'serverPing' as const }),
  fc.record({ t: fc.constant('serverElicit' as const), mode: fc.constantFrom('form' as const, 'url' as const) }),
  fc.record({ t: fc.constant('serverCancel' as const), reason: fc.oneof(fc.string(), fc.constant(undefined), fc.object(), fc.integer()) }),
  fc.constant({ t: 'hostRequest' as const }),
  fc.constant({ t: 'serverResponse' as const }),
  fc.constant({ t: 'hostAnswerEmpty' as const }),
);

describe('ids reused across directions and methods', () => {
  it(
    'never let the host’s answer to a pending form leave unchecked',
    () => {
      fc.assert(
        fc.property(fc.constantFrom<string | number>(5, '5', 0), fc.array(reuse, { maxLength: 6 }), fc.boolean(), (id, steps, before) => {
          const guard = createGuard();
          handshake(guard, { form: {}, url: {} });
          const form = {
            jsonrpc: '2.0',
            id,
            method: 'elicitation/create',
            params: { mode: 'form', message: 'Name?', requestedSchema: benignSchema },
          };
          const run = (s: Step): void => {
            switch (s.t) {
              case 'serverPing':
                guard.inbound({ jsonrpc: '2.0', id, method: 'ping' });
                return;
              case 'serverElicit':
                guard.inbound(
                  s.mode === 'form'
                    ? form
                    : {
                        jsonrpc: '2.0',
                        id,
                        method: 'elicitation/create',
                        params: { mode: 'url', message: 'm', url: GOOD_URL, elicitationId: `e${id}` },
                      },
                );
                return;
              case 'serverCancel':
                guard.inbound({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: s.reason } });
                return;
              case 'hostRequest':
                guard.outbound({ jsonrpc: '2.0', id, method: 'tools/list' });
                return;
              case 'serverResponse':
                guard.inbound({ jsonrpc: '2.0', id, result: {} });
                return;
              case 'hostAnswerEmpty':
                return;
            }
          };
          // Some steps before the form (a ping pending with its id), the rest after it.
          const split = before ? Math.floor(steps.length / 2) : 0;
          steps.slice(0, split).forEach(run);
          if (guard.inbound(form).action !== 'forward') return;
          steps.slice(split).forEach(run);
          // The host answers whatever it was asked with the same id, the form last.
          if (steps.some((s) => s.t === 'serverPing' || s.t === 'hostAnswerEmpty')) guard.outbound({ jsonrpc: '2.0', id, result: {} });
          const sent = out(guard, 'out', { jsonrpc: '2.0', id, result: { action: 'accept', content: { name: SECRET } } });
          expect(JSON.stringify(sent ?? {})).not.toContain(SECRET);
        }),
        propertyParameters(300),
      );
    },
    timeoutFor(300),
  );

  it(
    'check the answer of a task-augmented elicitation however the server asks for it',
    () => {
      fc.assert(
        fc.property(fc.constantFrom('form', 'url'), fc.constantFrom<string | number>(7, 'x'), fc.boolean(), (mode, resultId, status) => {
          const guard = createGuard();
          handshake(guard, { form: {}, url: {} });
          const params =
            mode === 'form'
              ? { mode, message: 'Name?', requestedSchema: benignSchema, task: { ttl: 1000 } }
              : { mode, message: 'm', url: GOOD_URL, elicitationId: 'te', task: { ttl: 1000 } };
          if (guard.inbound({ jsonrpc: '2.0', id: 1, method: 'elicitation/create', params }).action !== 'forward') return;
          guard.outbound({
            jsonrpc: '2.0',
            id: 1,
            result: { task: { taskId: 'ht', status: 'working', ttl: 1000, createdAt: '2026-01-01T00:00:00Z' } },
          });
          if (status) guard.inbound({ jsonrpc: '2.0', id: 'g', method: 'tasks/get', params: { taskId: 'ht' } });
          guard.inbound({ jsonrpc: '2.0', id: resultId, method: 'tasks/result', params: { taskId: 'ht' } });
          const sent = out(guard, 'out', { jsonrpc: '2.0', id: resultId, result: { action: 'accept', content: { name: SECRET } } });
          expect(JSON.stringify(sent ?? {})).not.toContain(SECRET);
        }),
        propertyParameters(100),
      );
    },
    timeoutFor(100),
  );
});

describe('floods of URL elicitations mixed with re-sent ids', () => {
  it(
    'deliver a completion only for an elicitation the host accepted in this generation',
    () => {
      const op = fc.oneof(
        { weight: 6, arbitrary: fc.record({ t: fc.constant('elicit' as const), id: fc.nat({ max: 10 }) }) },
        { weight: 3, arbitrary: fc.record({ t: fc.constant('flood' as const), n: fc.integer({ min: 1, max: 12 }) }) },
        { weight: 3, arbitrary: fc.record({ t: fc.constant('accept' as const), pick: fc.nat() }) },
        { weight: 4, arbitrary: fc.record({ t: fc.constant('notice' as const), id: fc.nat({ max: 10 }) }) },
      );
      fc.assert(
        fc.property(fc.array(op, { minLength: 5, maxLength: 40 }), (ops) => {
          const guard = createGuard({ policy: { completion: { maxPending: 8 } } });
          handshake(guard, { url: {} });
          let serverId = 0;
          let flood = 0;
          const open: { serverId: number; elicitationId: string }[] = [];
          /** The host's view: ids it accepted (and not yet heard completed), by the latest request for the id. */
          const accepted = new Set<string>();
          const latest = new Map<string, number>();
          const elicit = (elicitationId: string): void => {
            const id = serverId++;
            accepted.delete(elicitationId);
            latest.set(elicitationId, id);
            if (
              guard.inbound({
                jsonrpc: '2.0',
                id,
                method: 'elicitation/create',
                params: { mode: 'url', message: 'm', url: GOOD_URL, elicitationId },
              }).action === 'forward'
            )
              open.push({ serverId: id, elicitationId });
          };
          for (const o of ops) {
            if (o.t === 'elicit') elicit(`e${o.id}`);
            else if (o.t === 'flood') for (let i = 0; i < o.n; i++) elicit(`f${flood++}`);
            else if (o.t === 'accept' && open.length > 0) {
              const [asked] = open.splice(o.pick % open.length, 1);
              guard.outbound({ jsonrpc: '2.0', id: asked!.serverId, result: { action: 'accept' } });
              // Answering an old request for an id the server re-sent is not accepting the latest one.
              if (latest.get(asked!.elicitationId) === asked!.serverId) accepted.add(asked!.elicitationId);
            } else if (o.t === 'notice') {
              const id = `e${o.id}`;
              const delivered =
                out(guard, 'in', { jsonrpc: '2.0', method: 'notifications/elicitation/complete', params: { elicitationId: id } }) !== null;
              if (delivered) expect(accepted.has(id), `a completion for ${id}, which the host never accepted, reached it`).toBe(true);
              accepted.delete(id);
            }
          }
        }),
        propertyParameters(200),
      );
    },
    timeoutFor(200),
  );
});

describe('nested elicitations while other requests are in flight', () => {
  const other = fc.constantFrom('ping', 'tools/list', 'resources/list', 'tools/call', 'prompts/get');
  it(
    'never let a repeat of an operation reach the server while it may own an accepted URL elicitation',
    () => {
      fc.assert(
        fc.property(fc.array(other, { maxLength: 4 }), fc.boolean(), fc.nat({ max: 5 }), (others, meta, pickRepeat) => {
          const guard = createGuard();
          handshake(guard, { url: {} });
          const call = {
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name: 'connect', arguments: {}, ...(meta ? { task: { ttl: 1000 } } : {}) },
          };
          guard.outbound(call);
          if (meta)
            guard.inbound({
              jsonrpc: '2.0',
              id: 1,
              result: { task: { taskId: 't1', status: 'working', ttl: 1000, createdAt: '2026-01-01T00:00:00Z' } },
            });
          const inFlight: Msg[] = meta ? [] : [call];
          others.forEach((m, i) => {
            const request = { jsonrpc: '2.0', id: 100 + i, method: m, params: { name: `other-${i}` } };
            if (guard.outbound(request).action === 'forward') inFlight.push(request);
          });
          const related = meta ? { _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't1' } } } : {};
          guard.inbound({
            jsonrpc: '2.0',
            id: 's1',
            method: 'elicitation/create',
            params: { mode: 'url', message: 'Connect', url: GOOD_URL, elicitationId: 'n1', ...related },
          });
          guard.outbound({ jsonrpc: '2.0', id: 's1', result: { action: 'accept' } });
          // The host repeats the original, or one of the others in flight.
          const candidates = [call, ...inFlight.filter((r) => r.method === 'tools/call' || r.method === 'prompts/get')];
          const repeated = candidates[pickRepeat % candidates.length]!;
          const decision = guard.outbound({ ...repeated, id: 999 });
          if (repeated === call) expect(decision.action, 'the repeat of the original reached the server while it ran').toBe('reply');
        }),
        propertyParameters(300),
      );
    },
    timeoutFor(300),
  );
});
