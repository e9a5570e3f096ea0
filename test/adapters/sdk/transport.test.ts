import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import {
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  ElicitResultSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { guardTransport } from '../../../src/adapters/sdk/transport.js';
import { createGuard, type Guard } from '../../../src/core/guard.js';
import { benignSchema, passwordSchema } from '../../helpers/session.js';

type Caps = { form?: Record<string, unknown>; url?: Record<string, unknown> };
const OAUTH_URL =
  'https://github.com/login/oauth/authorize?client_id=Iv1.8a61f9b3a7aba766&state=9d1f7c2b&' +
  'code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function connect(elicitation: Caps, guard: Guard = createGuard(), configure?: (client: Client) => void) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = new Server({ name: 'in-memory-server', version: '1.0.0' }, { capabilities: { tools: {} } });
  const client = new Client({ name: 'host', version: '1.0.0' }, { capabilities: { elicitation } });
  const onElicit = vi.fn(async (request: { params: Record<string, unknown> }) => {
    if (request.params.mode === 'url') return { action: 'accept' as const };
    return { action: 'accept' as const, content: { name: 'demo' } };
  });
  const onComplete = vi.fn(async (_notification: unknown) => {});
  if (configure) configure(client);
  else client.setRequestHandler(ElicitRequestSchema, onElicit);
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, onComplete);
  await server.connect(serverSide);
  await client.connect(guardTransport(clientSide, guard));
  closers.push(() => client.close());
  return { client, server, onElicit, onComplete, guard };
}

async function expectRefusal(promise: Promise<unknown>, code: string): Promise<McpError> {
  const error = await promise.then(
    () => {
      throw new Error('expected the elicitation to be refused');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpError);
  expect((error as McpError).code).toBe(-32602);
  expect((error as McpError).data).toMatchObject({ code });
  return error as McpError;
}

describe('guardTransport with a real SDK client and server', () => {
  it('answers a password form with -32602 E_SENSITIVE_FIELD and never calls the host handler', async () => {
    const { server, onElicit } = await connect({ form: {} });
    await expectRefusal(
      server.request(
        { method: 'elicitation/create', params: { mode: 'form', message: 'Log in', requestedSchema: passwordSchema } },
        ElicitResultSchema,
      ),
      'E_SENSITIVE_FIELD',
    );
    expect(onElicit).not.toHaveBeenCalled();
  });

  it('refuses URL mode when only form was declared', async () => {
    const { server, onElicit } = await connect({ form: {} });
    await expectRefusal(
      server.request(
        { method: 'elicitation/create', params: { mode: 'url', message: 'Sign in', url: OAUTH_URL, elicitationId: 'e1' } },
        ElicitResultSchema,
      ),
      'E_MODE_NOT_NEGOTIATED',
    );
    expect(onElicit).not.toHaveBeenCalled();
  });

  it('closes the SDK gap: a fallbackRequestHandler does not bypass the mode check', async () => {
    const fallback = vi.fn(async () => ({ action: 'accept' }));
    const { server } = await connect({ form: {} }, createGuard(), (client) => {
      client.fallbackRequestHandler = fallback as never;
    });
    await expectRefusal(
      server.request(
        { method: 'elicitation/create', params: { mode: 'url', message: 'Sign in', url: OAUTH_URL, elicitationId: 'e1' } },
        ElicitResultSchema,
      ),
      'E_MODE_NOT_NEGOTIATED',
    );
    expect(fallback).not.toHaveBeenCalled();
  });

  it('treats a request without mode as form mode and delivers a benign form, checking the answer', async () => {
    const { server, onElicit } = await connect({ form: {} });
    const result = await server.request(
      { method: 'elicitation/create', params: { message: 'Name your project', requestedSchema: benignSchema } },
      ElicitResultSchema,
    );
    expect(result).toEqual({ action: 'accept', content: { name: 'demo' } });
    expect(onElicit).toHaveBeenCalledTimes(1);
  });

  it('answers cancel to the server when the host would send a secret', async () => {
    const { server } = await connect({ form: {} }, createGuard(), (client) => {
      client.setRequestHandler(ElicitRequestSchema, async () => ({
        action: 'accept',
        content: { name: 'sk_live_' + '4eC39HqLyjWDarjtT1zdp7dc' },
      }));
    });
    const result = await server.request(
      { method: 'elicitation/create', params: { mode: 'form', message: 'Name', requestedSchema: benignSchema } },
      ElicitResultSchema,
    );
    expect(result).toEqual({ action: 'cancel' });
  });

  it('answers malformed elicitation params with a clear -32602 instead of crashing', async () => {
    const { server, onElicit } = await connect({ form: {}, url: {} });
    await expectRefusal(
      server.request({ method: 'elicitation/create', params: { mode: 'url', message: 'x', url: OAUTH_URL } } as never, ElicitResultSchema),
      'E_INVALID_PARAMS',
    );
    await expectRefusal(
      server.request(
        {
          method: 'elicitation/create',
          params: { mode: 'form', message: 'x', requestedSchema: { type: 'object', properties: { a: { type: 'object' } } } },
        },
        ElicitResultSchema,
      ),
      'E_SCHEMA_NOT_ALLOWED',
    );
    expect(onElicit).not.toHaveBeenCalled();
  });

  it('drops unknown and duplicate completions and delivers a known one once', async () => {
    const { server, onComplete } = await connect({ url: {} });
    const accepted = await server.request(
      { method: 'elicitation/create', params: { mode: 'url', message: 'Sign in', url: OAUTH_URL, elicitationId: 'known-1' } },
      ElicitResultSchema,
    );
    expect(accepted.action).toBe('accept');
    for (const elicitationId of ['unknown-1', 'known-1', 'known-1', 'unknown-2'])
      await server.notification({ method: 'notifications/elicitation/complete', params: { elicitationId } });
    await vi.waitFor(() => expect(onComplete).toHaveBeenCalledTimes(1));
    await new Promise((r) => setTimeout(r, 20));
    expect(onComplete).toHaveBeenCalledTimes(1);
    expect(onComplete.mock.calls[0]?.[0]).toMatchObject({ params: { elicitationId: 'known-1' } });
  });

  it('forwards sessionId and setProtocolVersion faithfully', async () => {
    const [clientSide] = InMemoryTransport.createLinkedPair();
    const setProtocolVersion = vi.fn();
    Object.assign(clientSide, { sessionId: 'session-9', setProtocolVersion });
    const wrapped = guardTransport(clientSide, createGuard());
    expect(wrapped.sessionId).toBe('session-9');
    wrapped.setProtocolVersion?.('2025-11-25');
    expect(setProtocolVersion).toHaveBeenCalledWith('2025-11-25');
  });
});

describe('guardTransport before initialization', () => {
  it('refuses an elicitation that arrives before the handshake, without delivering it', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const fromClient: JSONRPCMessage[] = [];
    serverSide.onmessage = (message) => fromClient.push(message);
    await serverSide.start();
    const delivered = vi.fn();
    const wrapped = guardTransport(clientSide, createGuard());
    wrapped.onmessage = delivered;
    await serverSide.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'elicitation/create',
      params: { mode: 'form', message: 'early', requestedSchema: benignSchema },
    });
    await wrapped.start();
    await vi.waitFor(() => expect(fromClient).toHaveLength(1));
    expect(fromClient[0]).toMatchObject({ id: 1, error: { code: -32602, data: { code: 'E_MODE_NOT_NEGOTIATED' } } });
    expect(delivered).not.toHaveBeenCalled();
  });

  it('passes unrelated messages as the same object', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const seen: unknown[] = [];
    serverSide.onmessage = (m) => seen.push(m);
    await serverSide.start();
    const wrapped = guardTransport(clientSide, createGuard());
    const received: unknown[] = [];
    wrapped.onmessage = (m) => received.push(m);
    await wrapped.start();
    const ping = { jsonrpc: '2.0' as const, id: 5, method: 'ping' };
    await wrapped.send(ping);
    const log = { jsonrpc: '2.0' as const, method: 'notifications/message', params: { level: 'info', data: 'x' } };
    await serverSide.send(log);
    expect(seen[0]).toBe(ping);
    expect(received[0]).toBe(log);
  });
});
