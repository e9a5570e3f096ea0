/**
 * Real SDK v2 parts for tests: a v2 `Client` connected to the v2 fixture server
 * (fixtures/servers/modern-server.ts) in either era, in memory, over a stdio child or over
 * Streamable HTTP, with the client's transport optionally wrapped by the guard, and every message
 * that crosses the transport recorded on the server's side (what the server really received).
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Client, InMemoryTransport, StreamableHTTPClientTransport, type ClientOptions, type Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { guardTransport } from '../../src/adapters/sdk/transport.js';
import type { Guard } from '../../src/core/guard.js';
import { createModernServer } from '../../fixtures/servers/modern-server.js';

export type Era = 'modern' | 'legacy';
export type WireLine = { readonly dir: 'C->S' | 'S->C'; readonly message: Record<string, unknown> };

export const MODERN = '2026-07-28';
export const FIXTURE_SERVER = fileURLToPath(new URL('../../fixtures/servers/modern-server.ts', import.meta.url));

/** Client options for one era: pinned to 2026-07-28, or the SDK's default 2025-11-25 handshake. */
export function clientOptions(
  era: Era,
  elicitation: Record<string, object> = { form: {}, url: {} },
  extra: Partial<ClientOptions> = {},
): ClientOptions {
  return {
    capabilities: { elicitation } as ClientOptions['capabilities'],
    versionNegotiation: { mode: era === 'modern' ? { pin: MODERN } : 'legacy' },
    ...extra,
  };
}

/** A server-side in-memory transport whose traffic is recorded, served by the era-selecting entry. */
export function serveInMemory(wire: WireLine[] = []): { clientSide: InMemoryTransport; wire: WireLine[]; close: () => Promise<void> } {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const send = serverSide.send.bind(serverSide);
  serverSide.send = (message, options) => {
    wire.push({ dir: 'S->C', message: structuredClone(message) as Record<string, unknown> });
    return send(message, options);
  };
  const recorded = new Proxy(serverSide, {
    set(target, key, value) {
      if (key === 'onmessage' && typeof value === 'function') {
        const handler = value as (message: unknown, extra?: unknown) => void;
        return Reflect.set(target, key, (message: unknown, extra?: unknown) => {
          wire.push({ dir: 'C->S', message: structuredClone(message) as Record<string, unknown> });
          handler(message, extra);
        });
      }
      return Reflect.set(target, key, value);
    },
  });
  const handle = serveStdio(() => createModernServer(), { transport: recorded as unknown as Transport });
  return { clientSide, wire, close: () => handle.close() };
}

export interface Connected {
  readonly client: Client;
  readonly wire: WireLine[];
  /** What the server received, requests only. */
  received(method?: string): Record<string, unknown>[];
  close(): Promise<void>;
}

/** A v2 client (optionally guarded) connected in memory to the v2 fixture server. */
export async function connectInMemory(
  era: Era,
  guard: Guard | null,
  setup?: (client: Client) => void,
  options?: { elicitation?: Record<string, object>; client?: Partial<ClientOptions> },
): Promise<Connected> {
  const served = serveInMemory();
  const client = new Client({ name: 'test-host', version: '1.0.0' }, clientOptions(era, options?.elicitation, options?.client));
  setup?.(client);
  await client.connect(guard === null ? served.clientSide : guardTransport(served.clientSide, guard));
  return connected(client, served.wire, async () => {
    await client.close();
    await served.close();
  });
}

function connected(client: Client, wire: WireLine[], close: () => Promise<void>): Connected {
  return {
    client,
    wire,
    received: (method) =>
      wire
        .filter((l) => l.dir === 'C->S' && typeof l.message.method === 'string' && (method === undefined || l.message.method === method))
        .map((l) => l.message),
    close,
  };
}

/** The fixture server as a stdio child process (the client spawns it). */
export function stdioTransport(): StdioClientTransport {
  return new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', FIXTURE_SERVER], stderr: 'pipe' });
}

/** The fixture server behind a Streamable HTTP endpoint on a free loopback port. */
export async function serveHttp(): Promise<{ url: URL; close: () => Promise<void> }> {
  const handler = createMcpHandler(() => createModernServer());
  const node = toNodeHandler(handler);
  const server: HttpServer = createServer((req, res) => void node(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    close: async () => {
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export { Client, StreamableHTTPClientTransport, StdioClientTransport };
