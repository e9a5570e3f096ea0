import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import type { Decision } from '../../core/decision.js';
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

class GuardedTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  readonly #inner: Transport;
  readonly #guard: Guard;

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
    inner.onmessage = (message, extra) => this.#receive(message, extra);
    inner.onerror = (error) => this.onerror?.(error);
    inner.onclose = () => this.onclose?.();
    return inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.#sendDecided(this.#guard.outbound(message), options);
  }

  #sendDecided(decision: Decision, options: TransportSendOptions | undefined): Promise<void> {
    switch (decision.action) {
      case 'forward':
        return this.#inner.send(decision.message as JSONRPCMessage, options);
      case 'reply':
        // Answered locally: deliver the answer to the host as if the server had sent it.
        queueMicrotask(() => this.#deliver(decision.message as JSONRPCMessage, undefined));
        return Promise.resolve();
      case 'drop':
        return Promise.resolve();
      case 'defer':
        return decision.until.then((next) => this.#sendDecided(next, options));
    }
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  #receive(message: JSONRPCMessage, extra: MessageExtraInfo | undefined): void {
    this.#receiveDecided(this.#guard.inbound(message), extra);
  }

  #receiveDecided(decision: Decision, extra: MessageExtraInfo | undefined): void {
    switch (decision.action) {
      case 'forward':
        this.#deliver(decision.message as JSONRPCMessage, extra);
        return;
      case 'reply':
        this.#inner.send(decision.message as JSONRPCMessage).catch((error: unknown) => this.onerror?.(error instanceof Error ? error : new Error(String(error))));
        return;
      case 'drop':
        return;
      case 'defer':
        decision.until.then(
          (next) => this.#receiveDecided(next, extra),
          (error: unknown) => this.onerror?.(error instanceof Error ? error : new Error(String(error))),
        );
        return;
    }
  }

  #deliver(message: JSONRPCMessage, extra: MessageExtraInfo | undefined): void {
    this.onmessage?.(message, extra);
  }
}
