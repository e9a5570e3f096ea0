import { afterEach, describe, expect, it } from 'vitest';
import { guardTransport } from '../../../src/adapters/sdk/transport.js';
import { createGuard } from '../../../src/core/guard.js';
import type { GuardEvent } from '../../../src/core/events.js';
import {
  Client,
  StreamableHTTPClientTransport,
  StdioClientTransport,
  clientOptions,
  serveHttp,
  stdioTransport,
} from '../../helpers/modern.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
});

describe('guardTransport is a faithful decorator of SDK v2 transports', () => {
  it('reads every member it does not own from the Streamable HTTP transport', async () => {
    const http = await serveHttp();
    closers.push(http.close);
    const inner = new StreamableHTTPClientTransport(http.url);
    const wrapped = guardTransport(inner, createGuard());
    // Without it, SDK v2 cancels a modern request by POSTing notifications/cancelled instead of closing the stream.
    expect(wrapped.hasPerRequestStream).toBe(true);
    expect(wrapped instanceof StreamableHTTPClientTransport).toBe(true);
    expect(typeof wrapped.terminateSession).toBe('function');
    expect(wrapped.terminateSession).toBe(wrapped.terminateSession);
    expect('hasPerRequestStream' in wrapped).toBe(true);
    // A member written on the decorator lands on the inner transport, and is read back from it.
    (wrapped as unknown as { probeMarker: number }).probeMarker = 7;
    expect((inner as unknown as { probeMarker: number }).probeMarker).toBe(7);
  });

  it('carries a modern session over Streamable HTTP, the protocol version set on the inner transport', async () => {
    const http = await serveHttp();
    closers.push(http.close);
    const events: GuardEvent[] = [];
    const inner = new StreamableHTTPClientTransport(http.url);
    const client = new Client({ name: 'host', version: '1.0.0' }, clientOptions('modern'));
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { project: 'demo' } }));
    await client.connect(guardTransport(inner, createGuard({ onEvent: (e) => events.push(e) })));
    closers.push(() => client.close());
    expect(client.getProtocolEra()).toBe('modern');
    expect(inner.protocolVersion).toBe('2026-07-28');
    const result = await client.callTool({ name: 'plain', arguments: { size: 3 } });
    expect(result.content).toEqual([{ type: 'text', text: 'xxx' }]);
  });

  it('exposes the stdio transport server parameters, pid and stderr, and guards the probe sibling too', async () => {
    const seen: string[] = [];
    const guard = createGuard();
    const original = guard.outbound.bind(guard);
    guard.outbound = (message: unknown) => {
      const method = (message as { method?: unknown }).method;
      if (typeof method === 'string') seen.push(method);
      return original(message);
    };
    const inner = stdioTransport();
    const wrapped = guardTransport(inner, guard);
    expect(wrapped instanceof StdioClientTransport).toBe(true);
    expect((wrapped as unknown as { _serverParams: { command: string } })._serverParams.command).toBe(process.execPath);
    expect('pid' in wrapped && 'stderr' in wrapped).toBe(true);
    const client = new Client({ name: 'host', version: '1.0.0' }, clientOptions('modern'));
    await client.connect(wrapped);
    closers.push(() => client.close());
    expect(client.getProtocolEra()).toBe('modern');
    expect(wrapped.pid).toBe(inner.pid);
    expect(typeof wrapped.pid).toBe('number');
    // The era probe ran on a throwaway sibling process, and still passed the guard.
    expect(seen[0]).toBe('server/discover');
    await client.callTool({ name: 'plain', arguments: {} });
    expect(seen.at(-1)).toBe('tools/call');
  }, 60_000);

  it('falls back to the legacy handshake on the same stdio child when the client asks for it', async () => {
    const client = new Client({ name: 'host', version: '1.0.0' }, clientOptions('legacy'));
    const guard = createGuard();
    await client.connect(guardTransport(stdioTransport(), guard));
    closers.push(() => client.close());
    expect(client.getProtocolEra()).toBe('legacy');
    expect(guard.session().initialized).toBe(true);
  }, 60_000);
});
