/**
 * Hostile input in both directions: wrong types, huge strings, deep nesting, prototype keys as
 * JSON.parse produces them, lone surrogates, ids of every JSON type, unknown methods, elicitation
 * params of every wrong shape. The guard, its SDK transport, the proxy and the two checkers must
 * never throw, and nothing about elicitation may reach the host unjudged.
 */
import { PassThrough } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Upstream, UpstreamHandlers } from '../../src/adapters/proxy/child.js';
import { ElicitationProxy } from '../../src/adapters/proxy/proxy.js';
import { guardTransport } from '../../src/adapters/sdk/transport.js';
import type { Decision } from '../../src/core/decision.js';
import { createGuard, type Guard } from '../../src/core/guard.js';
import { auditForm } from '../../src/form/index.js';
import { defaultPolicy } from '../../src/policy/index.js';
import { analyzeUrl } from '../../src/url/index.js';
import { benignSchema, handshake, passwordSchema } from '../helpers/session.js';
import { propertyParameters, timeoutFor } from './runs.js';

const URL_META = 'mcp-elicitation-guard/url-analysis';
const FORM_META = 'mcp-elicitation-guard/form-audit';
const GOOD_URL = 'https://accounts.google.com/o/oauth2/v2/auth?client_id=1&response_type=code';
/** Host requests kept in flight, so a hostile -32042 that answers one of them is judged. */
const IN_FLIGHT_IDS = [1, '1', 2];

// ------------------------------------------------------------------ hostile values

const loneSurrogate = fc.constantFrom('\ud800', '\udfff', 'a\ud83db', '\udc00\ud800');
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  loneSurrogate,
  fc.constantFrom(
    '',
    '__proto__',
    'constructor',
    'https://аррӏе.com/',
    GOOD_URL,
    'javascript:alert(1)',
    'http://127.0.0.1/',
    'x'.repeat(70_000),
  ),
);
/** Objects as JSON.parse makes them: `__proto__` and `constructor` are own keys, not the prototype. */
const parsedHostile = fc
  .constantFrom(
    '{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}',
    '{"__proto__":null}',
    '{"toString":1,"valueOf":"x","hasOwnProperty":[]}',
    '{"mode":"url","__proto__":{"url":"https://evil.example/"}}',
    '{"requestedSchema":{"type":"object","properties":{"__proto__":{"type":"string","title":"Password"}}},"message":"m"}',
  )
  .map((json) => JSON.parse(json) as unknown);
const deep = fc.integer({ min: 50, max: 3000 }).map((depth) => {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { inner: value };
  return value;
});
const value: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 2, arbitrary: text },
  { weight: 2, arbitrary: parsedHostile },
  { weight: 1, arbitrary: deep },
  { weight: 1, arbitrary: fc.constantFrom(undefined, null, Number.NaN, Infinity, -0, 1e308, true, [], {}) },
);
const anyId = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.constantFrom(null, true, false, {}, [], '__proto__', 1, '1', 2),
  fc.jsonValue({ maxDepth: 1 }),
);
const method = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('elicitation/create', 'notifications/elicitation/complete') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'initialize',
      'notifications/initialized',
      'notifications/cancelled',
      'tools/call',
      'tasks/result',
      'notifications/tasks/status',
      'unknown/method',
      '__proto__',
      '',
    ),
  },
  { weight: 1, arbitrary: value },
);

/** Elicitation params of every wrong shape, and a few right ones. */
const schema = fc.oneof(
  value,
  fc.constantFrom(benignSchema, passwordSchema),
  fc.record(
    { type: value, properties: fc.oneof(value, fc.dictionary(text, value, { maxKeys: 4 })), required: value },
    { requiredKeys: [] },
  ),
);
const elicitationParams = fc.oneof(
  value,
  fc.record(
    {
      mode: fc.oneof(fc.constantFrom('url', 'form', 'URL', '', undefined), value),
      message: fc.oneof(text, value),
      url: fc.oneof(text, value),
      elicitationId: fc.oneof(text, value, fc.constantFrom('e1', 'e2')),
      requestedSchema: schema,
      _meta: fc.oneof(value, fc.constant({ [URL_META]: { verdict: 'allow' }, [FORM_META]: { verdict: 'allow' } })),
    },
    { requiredKeys: [] },
  ),
);
const urlEntry = fc.oneof(
  value,
  fc.record(
    {
      mode: fc.oneof(fc.constant('url'), value),
      elicitationId: fc.oneof(text, value),
      url: fc.oneof(fc.constant(GOOD_URL), text, value),
      message: fc.oneof(text, value),
      _meta: value,
    },
    { requiredKeys: [] },
  ),
);
const urlRequired = fc.record({
  jsonrpc: fc.constant('2.0'),
  id: fc.oneof(fc.constantFrom(...IN_FLIGHT_IDS), anyId),
  error: fc.record(
    {
      code: fc.oneof(fc.constant(-32042), value),
      message: value,
      data: fc.oneof(value, fc.record({ elicitations: fc.oneof(value, fc.array(urlEntry, { maxLength: 4 })) }, { requiredKeys: [] })),
    },
    { requiredKeys: [] },
  ),
});
const message: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record(
      { jsonrpc: fc.oneof(fc.constant('2.0'), value), id: anyId, method, params: elicitationParams },
      { requiredKeys: [] },
    ),
  },
  { weight: 2, arbitrary: urlRequired },
  { weight: 1, arbitrary: fc.record({ jsonrpc: fc.constant('2.0'), id: anyId, result: value }, { requiredKeys: [] }) },
  { weight: 1, arbitrary: value },
);

// ------------------------------------------------------------------ checks

function checkShape(decision: Decision): void {
  expect(['forward', 'reply', 'drop']).toContain(decision.action);
  const keys = Object.keys(decision).sort();
  expect(keys).toEqual(decision.action === 'drop' ? ['action', 'events'] : ['action', 'events', 'message']);
  expect(Array.isArray(decision.events)).toBe(true);
  // Forwarded messages keep what the sender wrote (annotated at most); the guard's own answers are JSON-RPC 2.0.
  if (decision.action === 'reply') expect(decision.message.jsonrpc).toBe('2.0');
}

/** Nothing about elicitation reaches the host unjudged. */
function checkInboundForward(input: unknown, decision: Decision, inFlight: Set<unknown>): void {
  if (decision.action !== 'forward') return;
  const out = (decision.message ?? {}) as Record<string, any>;
  // An "elicitation/create" without an id is dropped: nothing unjudged reaches the host.
  expect(out.method === 'elicitation/create' && out.id === undefined, `id-less elicitation/create forwarded: ${show(out)}`).toBe(false);
  if (out.method === 'elicitation/create') {
    const meta = out.params?._meta;
    const judged = out.params?.mode === 'url' ? Object.hasOwn(meta ?? {}, URL_META) : Object.hasOwn(meta ?? {}, FORM_META);
    expect(judged, `elicitation/create forwarded without its judgement: ${show(out)}`).toBe(true);
    // The server cannot pre-fill the guard's own key: the judgement is the guard's, not the server's.
    expect(meta[out.params?.mode === 'url' ? URL_META : FORM_META].verdict).toMatch(/^(allow|warn)$/);
  }
  const answersInFlight = typeof input === 'object' && input !== null && inFlight.has((input as Record<string, unknown>).id);
  if (answersInFlight && out.error?.code === -32042) {
    const entries = out.error.data?.elicitations;
    expect(Array.isArray(entries) && entries.length > 0).toBe(true);
    for (const entry of entries) expect(Object.hasOwn(entry?._meta ?? {}, URL_META), `unchecked -32042 entry: ${show(entry)}`).toBe(true);
  }
}

function show(value: unknown): string {
  try {
    return JSON.stringify(value)?.slice(0, 300) ?? String(value);
  } catch {
    return String(value);
  }
}

function freshGuard(): { guard: Guard; inFlight: Set<unknown> } {
  const guard = createGuard({ policy: { form: { onSensitive: 'block' } } });
  handshake(guard, { form: {}, url: {} });
  const inFlight = new Set<unknown>();
  return { guard, inFlight };
}

function putInFlight(guard: Guard, inFlight: Set<unknown>): void {
  for (const id of IN_FLIGHT_IDS) {
    if (inFlight.has(id)) continue;
    guard.outbound({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'pay', arguments: { id } } });
    inFlight.add(id);
  }
}

// ------------------------------------------------------------------ properties

describe('fuzzing the guard from the server side', () => {
  it(
    'never throws, and forwards no elicitation and no -32042 list unjudged',
    () => {
      fc.assert(
        fc.property(fc.array(message, { minLength: 1, maxLength: 12 }), (messages) => {
          const { guard, inFlight } = freshGuard();
          for (const m of messages) {
            putInFlight(guard, inFlight);
            const decision = guard.inbound(m);
            checkShape(decision);
            checkInboundForward(m, decision, inFlight);
            // A response takes its request out of flight, whatever happened to it.
            if (typeof m === 'object' && m !== null && !('method' in m && typeof (m as Record<string, unknown>).method === 'string'))
              inFlight.delete((m as Record<string, unknown>).id);
          }
          expect(guard.metrics().sensitiveFieldsLetThrough).toBe(0);
        }),
        propertyParameters(200),
      );
    },
    timeoutFor(200),
  );
});

describe('fuzzing the guard from the host side', () => {
  it(
    'never throws on anything the host sends, before or after the handshake',
    () => {
      fc.assert(
        fc.property(fc.boolean(), fc.array(message, { minLength: 1, maxLength: 12 }), (initialized, messages) => {
          const guard = createGuard();
          if (initialized) handshake(guard, { form: {}, url: {} });
          // Questions the host may answer with garbage.
          guard.inbound({
            jsonrpc: '2.0',
            id: 7,
            method: 'elicitation/create',
            params: { mode: 'form', message: 'm', requestedSchema: benignSchema },
          });
          guard.inbound({
            jsonrpc: '2.0',
            id: 8,
            method: 'elicitation/create',
            params: { mode: 'url', message: 'm', url: GOOD_URL, elicitationId: 'e8' },
          });
          for (const m of messages) {
            checkShape(guard.outbound(m));
            const formAnswer = { jsonrpc: '2.0', id: 7, result: m };
            checkShape(guard.outbound(formAnswer));
            const urlAnswer = { jsonrpc: '2.0', id: 8, result: { action: m, content: m } };
            checkShape(guard.outbound(urlAnswer));
          }
        }),
        propertyParameters(200),
      );
    },
    timeoutFor(200),
  );
});

describe('fuzzing the adapters', () => {
  it(
    'guardTransport never throws out of the adapter, in either direction',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(fc.tuple(fc.boolean(), message), { minLength: 1, maxLength: 10 }), async (traffic) => {
          const sent: unknown[] = [];
          const inner: Transport = { start: async () => {}, send: async (m) => void sent.push(m), close: async () => {} };
          const guard = createGuard();
          const transport = guardTransport(inner, guard);
          const delivered: unknown[] = [];
          const errors: Error[] = [];
          transport.onmessage = (m) => void delivered.push(m);
          transport.onerror = (e) => void errors.push(e);
          await transport.start();
          await transport.send({
            jsonrpc: '2.0',
            id: 0,
            method: 'initialize',
            params: {
              protocolVersion: '2025-11-25',
              capabilities: { elicitation: { form: {}, url: {} } },
              clientInfo: { name: 'h', version: '1' },
            },
          });
          inner.onmessage!({
            jsonrpc: '2.0',
            id: 0,
            result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 's', version: '1' } },
          });
          for (const [fromServer, m] of traffic) {
            if (fromServer) inner.onmessage!(m as JSONRPCMessage);
            else await transport.send(m as JSONRPCMessage);
          }
          await new Promise((resolve) => setImmediate(resolve));
          for (const m of delivered as Record<string, any>[]) {
            if (m?.method === 'elicitation/create')
              expect(Object.hasOwn(m.params?._meta ?? {}, m.params?.mode === 'url' ? URL_META : FORM_META)).toBe(true);
          }
          expect(errors).toEqual([]);
        }),
        propertyParameters(100),
      );
    },
    timeoutFor(100),
  );

  it(
    'the proxy never crashes: bad host lines are answered, bad server messages are dropped',
    async () => {
      const line = fc.oneof(
        fc.string({ unit: 'binary', maxLength: 60 }).filter((s) => !s.includes('\n') && s.trim() !== ''),
        message.map((m) => show(m)).filter((s) => s !== undefined && !s.includes('\n') && s.trim() !== ''),
      );
      await fc.assert(
        fc.asyncProperty(
          fc.array(line, { minLength: 1, maxLength: 8 }),
          fc.array(message, { maxLength: 8 }),
          async (hostLines, serverMessages) => {
            let handlers: UpstreamHandlers | null = null;
            const toServer: unknown[] = [];
            const upstream: Upstream = {
              start: async (h) => void (handlers = h),
              send: async (m) => void toServer.push(m),
              close: async () => handlers?.onExit(0),
              signal: () => {},
            };
            const hostInput = new PassThrough();
            const hostOutput = new PassThrough();
            const out: string[] = [];
            hostOutput.on('data', (chunk: Buffer) =>
              out.push(
                ...chunk
                  .toString()
                  .split('\n')
                  .filter((l) => l !== ''),
              ),
            );
            const proxy = new ElicitationProxy({ guard: createGuard(), upstream, hostInput, hostOutput, log: () => {} });
            const exit = proxy.run();
            await new Promise((resolve) => setImmediate(resolve));
            for (const m of serverMessages) handlers!.onMessage(m);
            for (const l of hostLines) hostInput.write(l + '\n');
            await new Promise((resolve) => setImmediate(resolve));
            hostInput.end();
            expect(await exit).toBe(0);
            // Every line the proxy wrote is one JSON object; every bad host line got a JSON-RPC answer.
            const written = out.map((l) => JSON.parse(l) as Record<string, any>);
            for (const w of written) expect(typeof w === 'object' && w !== null && !Array.isArray(w)).toBe(true);
            const bad = hostLines.filter((l) => !isJsonRpc(l)).length;
            const answered = written.filter((w) => w.error?.code === -32700 || w.error?.code === -32600).length;
            expect(answered).toBeGreaterThanOrEqual(bad);
          },
        ),
        propertyParameters(50),
      );
    },
    timeoutFor(50),
  );
});

function isJsonRpc(line: string): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return false;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return false;
  const m = parsed as Record<string, unknown>;
  const validId = (id: unknown) => typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
  if (typeof m.method === 'string') return m.id === undefined || validId(m.id);
  if ('result' in m) return validId(m.id);
  return 'error' in m && typeof m.error === 'object' && m.error !== null && !Array.isArray(m.error);
}

describe('fuzzing the checkers', () => {
  const policy = defaultPolicy.base;
  it(
    'analyzeUrl never throws and always returns a verdict',
    () => {
      fc.assert(
        fc.property(fc.oneof(fc.webUrl({ withQueryParameters: true, withFragments: true }), text, value), (input) => {
          const analysis = analyzeUrl(input, policy);
          expect(['allow', 'warn', 'block']).toContain(analysis.verdict);
          expect(Array.isArray(analysis.findings)).toBe(true);
          if (typeof input !== 'string') expect(analysis.verdict).toBe('block');
        }),
        propertyParameters(300),
      );
    },
    timeoutFor(300),
  );

  it(
    'auditForm never throws and always returns a verdict',
    () => {
      fc.assert(
        fc.property(fc.oneof(elicitationParams, schema), (input) => {
          const audit = auditForm(input, policy);
          expect(['allow', 'warn', 'block']).toContain(audit.verdict);
          expect(Array.isArray(audit.fields) && Array.isArray(audit.findings)).toBe(true);
        }),
        propertyParameters(300),
      );
    },
    timeoutFor(300),
  );
});
