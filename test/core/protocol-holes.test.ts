/**
 * Protocol holes found by attacking the guard with raw JSON-RPC (issue 10). Each test failed
 * against the guard before the flow book and the wire codec took over.
 */
import { describe, expect, it } from 'vitest';
import { createGuard, type Guard } from '../../src/core/guard.js';
import type { Decision } from '../../src/core/decision.js';
import { benignSchema, completion, handshake, urlRequest } from '../helpers/session.js';

const OAUTH_URL = 'https://accounts.google.com/o/oauth2/v2/auth?client_id=123.apps.googleusercontent.com&response_type=code&scope=openid';
const URL_META = 'mcp-elicitation-guard/url-analysis';
const SECRET = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
const hostile = [
  { mode: 'url', elicitationId: 'js', url: 'javascript:alert(document.cookie)', message: 'Click' },
  { mode: 'url', elicitationId: 'cred', url: 'https://user:hunter2@accounts.google.com/', message: 'Sign in' },
  { mode: 'url', elicitationId: 'phish', url: 'https://accounts.google.com.evil-login.example/signin', message: 'Sign in' },
];
const required = (id: string | number, elicitations: unknown[]) => ({
  jsonrpc: '2.0',
  id,
  error: { code: -32042, message: 'URL elicitation required', data: { elicitations } },
});

function message(decision: Decision): Record<string, any> {
  if (decision.action !== 'forward' && decision.action !== 'reply') throw new Error(`expected a message, got ${decision.action}`);
  return decision.message as Record<string, any>;
}

/** Nothing in a forwarded answer is an elicitation the guard did not judge. */
function expectNoUnjudgedList(decision: Decision): void {
  if (decision.action === 'drop') return;
  const out = message(decision);
  const entries: unknown[] = out.error?.data?.elicitations ?? [];
  for (const entry of entries)
    expect(Object.hasOwn((entry as any)?._meta ?? {}, URL_META), `unjudged entry ${JSON.stringify(entry)}`).toBe(true);
  const text = JSON.stringify(out);
  expect(text).not.toContain('javascript:');
  expect(text).not.toContain('hunter2');
  expect(text).not.toContain('evil-login');
}

function urlGuard(): Guard {
  const guard = createGuard();
  handshake(guard, { form: {}, url: {} });
  return guard;
}

describe('hole 1: a -32042 answer to any request is judged', () => {
  it('to initialize', () => {
    const guard = createGuard();
    guard.outbound({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: { elicitation: { url: {} } }, clientInfo: { name: 'h', version: '1' } },
    });
    const decision = guard.inbound(required(0, [...hostile, { mode: 'url', elicitationId: 'ok', url: OAUTH_URL, message: 'Sign in' }]));
    expectNoUnjudgedList(decision);
    // URL mode is not negotiated before the handshake completed: no list reaches the host at all.
    expect(JSON.stringify(decision)).not.toContain('elicitations');
  });

  it('to tasks/result of a task-augmented tools/call', () => {
    const guard = urlGuard();
    guard.outbound({ jsonrpc: '2.0', id: 10, method: 'tools/call', params: { name: 'pay', arguments: {}, task: { ttl: 60000 } } });
    guard.inbound({
      jsonrpc: '2.0',
      id: 10,
      result: { task: { taskId: 't1', status: 'working', ttl: 60000, createdAt: '2026-11-29T00:00:00Z' } },
    });
    guard.outbound({ jsonrpc: '2.0', id: 11, method: 'tasks/result', params: { taskId: 't1' } });
    const decision = guard.inbound(required(11, [...hostile, { mode: 'url', elicitationId: 'ok', url: OAUTH_URL, message: 'Sign in' }]));
    expectNoUnjudgedList(decision);
    expect(message(decision).error.data.elicitations.map((e: { elicitationId: string }) => e.elicitationId)).toEqual(['ok']);
    expect(guard.flow('ok')?.lineage).toBe('error-retry');
  });

  it('to tasks/result of an unknown task, and to a host without URL mode', () => {
    const guard = urlGuard();
    guard.outbound({ jsonrpc: '2.0', id: 12, method: 'tasks/result', params: { taskId: 'nobody-knows' } });
    expectNoUnjudgedList(guard.inbound(required(12, hostile)));
    const formOnly = createGuard();
    handshake(formOnly, { form: {} });
    formOnly.outbound({ jsonrpc: '2.0', id: 10, method: 'tools/call', params: { name: 'pay', arguments: {}, task: { ttl: 60000 } } });
    formOnly.inbound({
      jsonrpc: '2.0',
      id: 10,
      result: { task: { taskId: 't1', status: 'working', ttl: 60000, createdAt: '2026-11-29T00:00:00Z' } },
    });
    formOnly.outbound({ jsonrpc: '2.0', id: 11, method: 'tasks/result', params: { taskId: 't1' } });
    const decision = formOnly.inbound(required(11, [{ mode: 'url', elicitationId: 'ok', url: OAUTH_URL, message: 'Sign in' }]));
    expect(decision).toMatchObject({ action: 'forward', message: { id: 11, error: { data: { code: 'E_MODE_NOT_NEGOTIATED' } } } });
    expect(JSON.stringify(decision)).not.toContain('elicitations');
  });
});

describe('hole 2: a reused id never replaces or clears a pending elicitation', () => {
  const secretAnswer = (id: string | number) => ({ jsonrpc: '2.0', id, result: { action: 'accept', content: { name: SECRET } } });
  const withheld = (decision: Decision) => expect(JSON.stringify(decision)).not.toContain(SECRET);

  it('a ping with the id of a pending form', () => {
    const guard = urlGuard();
    expect(
      guard.inbound({
        jsonrpc: '2.0',
        id: 5,
        method: 'elicitation/create',
        params: { mode: 'form', message: 'Name?', requestedSchema: benignSchema },
      }).action,
    ).toBe('forward');
    const ping = guard.inbound({ jsonrpc: '2.0', id: 5, method: 'ping' });
    if (ping.action === 'forward') guard.outbound({ jsonrpc: '2.0', id: 5, result: {} });
    withheld(guard.outbound(secretAnswer(5)));
  });

  it('a second elicitation/create with the same id', () => {
    const guard = urlGuard();
    guard.inbound({
      jsonrpc: '2.0',
      id: 6,
      method: 'elicitation/create',
      params: { mode: 'form', message: 'Name?', requestedSchema: benignSchema },
    });
    guard.inbound(urlRequest(6, OAUTH_URL, 'swap'));
    withheld(guard.outbound(secretAnswer(6)));
  });

  it('a notifications/cancelled with a malformed reason', () => {
    const guard = urlGuard();
    guard.inbound({
      jsonrpc: '2.0',
      id: 7,
      method: 'elicitation/create',
      params: { mode: 'form', message: 'Name?', requestedSchema: benignSchema },
    });
    guard.inbound({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7, reason: { not: 'a string' } } });
    withheld(guard.outbound(secretAnswer(7)));
  });

  it('a ping pending with an id the server then reuses for an elicitation', () => {
    const guard = urlGuard();
    guard.inbound({ jsonrpc: '2.0', id: 8, method: 'ping' });
    guard.inbound({
      jsonrpc: '2.0',
      id: 8,
      method: 'elicitation/create',
      params: { mode: 'form', message: 'Name?', requestedSchema: benignSchema },
    });
    guard.outbound({ jsonrpc: '2.0', id: 8, result: {} });
    withheld(guard.outbound(secretAnswer(8)));
  });

  it('a host request with the same id (the other direction) leaves the pending form alone', () => {
    const guard = urlGuard();
    guard.inbound({
      jsonrpc: '2.0',
      id: 9,
      method: 'elicitation/create',
      params: { mode: 'form', message: 'Name?', requestedSchema: benignSchema },
    });
    guard.outbound({ jsonrpc: '2.0', id: 9, method: 'tools/list' });
    guard.inbound({ jsonrpc: '2.0', id: 9, result: { tools: [] } });
    withheld(guard.outbound(secretAnswer(9)));
  });
});

describe('hole 3: the answer of a task-augmented form elicitation is checked', () => {
  it('when it leaves as the result of the server’s tasks/result', () => {
    const guard = urlGuard();
    const create = {
      jsonrpc: '2.0',
      id: 20,
      method: 'elicitation/create',
      params: { mode: 'form', message: 'Name?', requestedSchema: benignSchema, task: { ttl: 60000 } },
    };
    expect(guard.inbound(create).action).toBe('forward');
    expect(
      guard.outbound({
        jsonrpc: '2.0',
        id: 20,
        result: { task: { taskId: 'ht1', status: 'working', ttl: 60000, createdAt: '2026-11-29T00:00:00Z' } },
      }).action,
    ).toBe('forward');
    expect(guard.inbound({ jsonrpc: '2.0', id: 21, method: 'tasks/result', params: { taskId: 'ht1' } }).action).toBe('forward');
    const decision = guard.outbound({ jsonrpc: '2.0', id: 21, result: { action: 'accept', content: { name: SECRET } } });
    expect(decision).toMatchObject({ action: 'forward', message: { id: 21, result: { action: 'cancel' } } });
    expect(JSON.stringify(decision)).not.toContain(SECRET);
  });
});

describe('hole 4: one table, one eviction order', () => {
  it('a completion for an elicitation the user never answered never reaches the host', () => {
    const guard = createGuard({ policy: { completion: { maxPending: 1024 } } });
    handshake(guard, { url: {} });
    guard.inbound(urlRequest('s-0', OAUTH_URL, 'e0'));
    guard.inbound(urlRequest('s-1', OAUTH_URL, 'e1'));
    guard.inbound(urlRequest('s-0b', OAUTH_URL, 'e0'));
    for (let i = 2; i < 1025; i++) guard.inbound(urlRequest(`s-${i}`, OAUTH_URL, `e${i}`));
    const delivered: string[] = [];
    for (let i = 0; i < 1025; i++) if (guard.inbound(completion(`e${i}`)).action !== 'drop') delivered.push(`e${i}`);
    expect(delivered).toEqual([]);
  });
});

describe('hole 5: a nested elicitation is attributed by the strongest evidence', () => {
  it('to the only in-flight request that can elicit, with a ping in flight', () => {
    const guard = urlGuard();
    const call = { jsonrpc: '2.0', id: 30, method: 'tools/call', params: { name: 'connect', arguments: {} } };
    guard.outbound(call);
    guard.outbound({ jsonrpc: '2.0', id: 31, method: 'ping' });
    guard.inbound(urlRequest('s30', OAUTH_URL, 'n30'));
    expect(guard.flow('n30')?.lineage).toBe('nested');
    guard.outbound({ jsonrpc: '2.0', id: 's30', result: { action: 'accept' } });
    expect(guard.outbound({ ...call, id: 32 })).toMatchObject({
      action: 'reply',
      message: { id: 32, error: { data: { code: 'E_RETRY_WHILE_IN_FLIGHT' } } },
    });
  });

  it('refusing a repeat of any in-flight request when still ambiguous', () => {
    const guard = urlGuard();
    const a = { jsonrpc: '2.0', id: 40, method: 'tools/call', params: { name: 'a', arguments: {} } };
    const b = { jsonrpc: '2.0', id: 41, method: 'prompts/get', params: { name: 'b' } };
    guard.outbound(a);
    guard.outbound(b);
    guard.inbound(urlRequest('s40', OAUTH_URL, 'n40'));
    expect(guard.flow('n40')?.lineage).toBeNull();
    expect(guard.outbound({ ...a, id: 42 })).toMatchObject({
      action: 'reply',
      message: { error: { data: { code: 'E_RETRY_WHILE_IN_FLIGHT' } } },
    });
    expect(guard.outbound({ ...b, id: 43 })).toMatchObject({
      action: 'reply',
      message: { error: { data: { code: 'E_RETRY_WHILE_IN_FLIGHT' } } },
    });
    // Once the originals are answered, the same calls are new operations.
    guard.inbound({ jsonrpc: '2.0', id: 40, result: { content: [] } });
    guard.inbound({ jsonrpc: '2.0', id: 41, result: { messages: [] } });
    expect(guard.outbound({ ...a, id: 44 }).action).toBe('forward');
  });
});

describe('hole 6: fields of the other mode do not reach the host', () => {
  it('a url-mode request loses its requestedSchema and content', () => {
    const guard = urlGuard();
    const request = {
      jsonrpc: '2.0',
      id: 50,
      method: 'elicitation/create',
      params: {
        mode: 'url',
        message: 'Sign in',
        url: OAUTH_URL,
        elicitationId: 'm50',
        requestedSchema: { type: 'object', properties: { password: { type: 'string' } } },
        content: { password: '' },
      },
    };
    const out = message(guard.inbound(request));
    expect(out.method).toBe('elicitation/create');
    expect(out.params).not.toHaveProperty('requestedSchema');
    expect(out.params).not.toHaveProperty('content');
  });

  it('a form-mode request with url, elicitationId or content is refused by the form audit', () => {
    const guard = urlGuard();
    for (const [i, extra] of [{ elicitationId: 'f51' }, { content: { name: 'x' } }, { url: 'https://evil.example/' }].entries()) {
      const request = {
        jsonrpc: '2.0',
        id: 51 + i,
        method: 'elicitation/create',
        params: { mode: 'form', message: 'Name?', requestedSchema: benignSchema, ...extra },
      };
      expect(guard.inbound(request)).toMatchObject({ action: 'reply', message: { error: { data: { code: 'E_SCHEMA_NOT_ALLOWED' } } } });
    }
  });
});

describe('hole 7: invisible padding does not hide a label', () => {
  const form = (title: string) => ({
    jsonrpc: '2.0',
    id: 60,
    method: 'elicitation/create',
    params: { mode: 'form', message: 'Details', requestedSchema: { type: 'object', properties: { value: { type: 'string', title } } } },
  });

  it('strips invisible characters before reading the label', () => {
    const guard = urlGuard();
    const decision = guard.inbound(form('\u200b'.repeat(20_000) + 'Password'));
    expect(decision).toMatchObject({ action: 'reply', message: { error: { data: { code: 'E_SENSITIVE_FIELD' } } } });
  });

  it('refuses a label too long to read whole', () => {
    const guard = urlGuard();
    const decision = guard.inbound(form('a '.repeat(20_000) + 'Password'));
    expect(decision.action).toBe('reply');
  });
});
