/** A real SDK client and server over an in-memory pair, the guard in the client's transport. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  McpError,
  type ElicitRequest,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import { guardTransport } from '../../../src/adapters/sdk/transport.js';
import type { Guard } from '../../../src/core/guard.js';

export interface Host {
  readonly client: Client;
  readonly server: Server;
  /** `elicitationId`s of the completion notices that reached the host, in order. */
  readonly notices: string[];
  close(): Promise<void>;
}

export interface HostOptions {
  /** Sets up the server's handlers before it connects. */
  readonly configure?: (server: Server) => void;
  /** The host's elicitation handler. Default: none (the SDK answers "method not found"). */
  readonly onElicit?: (request: ElicitRequest) => Promise<ElicitResult>;
  readonly serverInfo?: { name: string; version: string };
}

export async function connectHost(guard: Guard, options: HostOptions = {}): Promise<Host> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = new Server(options.serverInfo ?? { name: 'fault-server', version: '1.0.0' }, { capabilities: { tools: {} } });
  options.configure?.(server);
  const client = new Client({ name: 'fault-host', version: '1.0.0' }, { capabilities: { elicitation: { form: {}, url: {} } } });
  if (options.onElicit !== undefined) client.setRequestHandler(ElicitRequestSchema, options.onElicit);
  const notices: string[] = [];
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => {
    notices.push(n.params.elicitationId);
  });
  await server.connect(serverSide);
  await client.connect(guardTransport(clientSide, guard));
  return { client, server, notices, close: () => client.close() };
}

/** The McpError a promise rejects with (fails the test if it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<McpError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

/** The guard's code in a wire error's `data`. */
export function guardCode(error: McpError): unknown {
  const data = error.data as { code?: unknown } | undefined;
  return data?.code;
}

export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Lets queued in-memory deliveries run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 5));
}
