import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import { executeDecision, type DecisionSinks } from '../../core/decision.js';
import type { Guard } from '../../core/guard.js';

/**
 * Wraps an SDK client transport so that every message in both directions passes the guard.
 *
 * `Protocol.connect()` takes over a transport's callbacks, so a component that must block messages
 * has to sit below it: this decorator owns the inner transport's `onmessage` and calls the outer one
 * only after judging. Messages the guard forwards untouched are passed on as the same object, with no
 * await. `sessionId` and `setProtocolVersion` are forwarded faithfully (the SDK skips `initialize`
 * when a transport already has a session id).
 *
 * @example
 *   const guard = createGuard({ policy: loadPolicy('policy.json'), server: 'github' });
 *   await client.connect(guardTransport(new StdioClientTransport({ command: 'my-server' }), guard));
 */
export function guardTransport<T extends Transport>(transport: T, guard: Guard): Transport {
  return new GuardedTransport(transport, guard);
}

const RESOLVED: Promise<void> = Promise.resolve();

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

class GuardedTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  readonly #inner: Transport;
  readonly #guard: Guard;
  /** Host → server: on to the server with the host's send options; answers go back to the host. */
  readonly #toServer: DecisionSinks<TransportSendOptions | undefined> = {
    forward: (message, options) => this.#inner.send(message as JSONRPCMessage, options),
    // Answered locally: deliver the answer to the host as if the server had sent it.
    reply: (message) => void queueMicrotask(() => this.onmessage?.(message as JSONRPCMessage, undefined)),
    fail: (error) => {
      throw error;
    },
  };
  /** Server → host: on to the host; the guard's answers go back to the server. */
  readonly #toHost: DecisionSinks<MessageExtraInfo | undefined> = {
    forward: (message, extra) => this.onmessage?.(message as JSONRPCMessage, extra),
    reply: (message) => void this.#inner.send(message as JSONRPCMessage).catch((error: unknown) => this.onerror?.(asError(error))),
    fail: (error) => this.onerror?.(asError(error)),
  };

  constructor(inner: Transport, guard: Guard) {
    this.#inner = inner;
    this.#guard = guard;
    const setProtocolVersion = inner.setProtocolVersion;
    if (setProtocolVersion !== undefined) this.setProtocolVersion = (version: string) => setProtocolVersion.call(inner, version);
  }

  setProtocolVersion?: (version: string) => void;

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  start(): Promise<void> {
    const inner = this.#inner;
    inner.onmessage = (message, extra) => void executeDecision(this.#guard.inbound(message), this.#toHost, extra);
    inner.onerror = (error) => this.onerror?.(error);
    inner.onclose = () => this.onclose?.();
    return inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return executeDecision(this.#guard.outbound(message), this.#toServer, options) ?? RESOLVED;
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}
