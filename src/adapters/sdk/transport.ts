import { executeJudgement, type DecisionSinks } from '../../core/decision.js';
import { judgeInbound, judgeOutbound, type Guard } from '../../core/guard.js';

/**
 * What the decorator needs of a client transport: the members SDK v1 (`@modelcontextprotocol/sdk`)
 * and SDK v2 (`@modelcontextprotocol/client`) transports share. Written structurally, so neither
 * SDK is imported here and both (and any transport of the same shape) can be guarded.
 */
export interface GuardableTransport {
  start(): Promise<void>;
  // Method syntax on purpose: each SDK types the message and options its own way, and methods
  // compare their parameters bivariantly, so both SDKs' transports fit.
  send(message: unknown, options?: unknown): Promise<void>;
  close(): Promise<void>;
  onmessage?(message: unknown, extra?: unknown): void;
  onerror?(error: Error): void;
  onclose?(): void;
}

/**
 * Wraps an SDK client transport so that every message in both directions passes the guard.
 *
 * `Protocol.connect()` takes over a transport's callbacks, so a component that must block messages
 * has to sit below it: this decorator owns the inner transport's `onmessage` and calls the outer one
 * only after judging. Messages the guard forwards untouched are passed on as the same object, with no
 * await and no Decision made for them.
 *
 * It is a faithful decorator: it owns `start`, `send`, `onmessage`, `onerror` and `onclose`, and
 * every other member is the inner transport's own, read at the moment it is asked for (`sessionId`,
 * `setProtocolVersion`, `hasPerRequestStream` of the Streamable HTTP transport, which decides how
 * SDK v2 cancels a request, `terminateSession`, the stdio transport's server parameters and
 * `pid`/`stderr`, …), and `instanceof` answers as for the inner one. The members it owns are its own
 * plain properties, so the SDK's read of `send` on every request costs what any property read does;
 * everything else is reached through a proxy one step up its prototype chain, whose own prototype
 * is the inner transport's. When SDK v2 probes the era of a stdio server on a throwaway sibling process, the
 * sibling it builds is guarded by the same guard, so even the probe's `server/discover` is narrowed.
 *
 * @example
 *   const guard = createGuard({ policy: loadPolicy('policy.json'), server: 'github' });
 *   await client.connect(guardTransport(new StdioClientTransport({ command: 'my-server' }), guard));
 */
export function guardTransport<T extends GuardableTransport>(transport: T, guard: Guard): Guarded<T> {
  const decorator = new GuardedTransport(transport, guard);
  Object.setPrototypeOf(decorator, new Proxy(Object.create(null) as object, new Faithful(transport, guard)));
  return decorator as unknown as Guarded<T>;
}

/** The inner transport's type, plus the optional members every MCP transport may have (read from the inner one). */
export type Guarded<T> = T & { readonly sessionId?: string | undefined; setProtocolVersion?: ((version: string) => void) | undefined };

/** The members the decorator owns; everything else belongs to the inner transport. */
const OWNED: ReadonlySet<PropertyKey> = new Set(['start', 'send', 'onmessage', 'onerror', 'onclose']);

/**
 * One step up the decorator's prototype chain: reads, writes and `in` tests of every member the
 * decorator does not own (its own members never get here) go to the inner transport, methods bound
 * to it. Its prototype is the inner transport's, so `instanceof` answers as for the inner one.
 */
class Faithful<T extends GuardableTransport> implements ProxyHandler<object> {
  readonly #inner: T;
  readonly #guard: Guard;
  /** Bound methods, one per function, so a member read twice is the same function both times. */
  readonly #bound = new WeakMap<object, unknown>();
  #sibling: unknown;

  constructor(inner: T, guard: Guard) {
    this.#inner = inner;
    this.#guard = guard;
  }

  get(_target: object, key: PropertyKey): unknown {
    // A member the decorator owns reaches here only once deleted from it: it is gone.
    if (OWNED.has(key)) return undefined;
    if (key === 'constructor') return this.#siblingConstructor();
    const inner = this.#inner;
    const value: unknown = Reflect.get(inner, key, inner);
    return typeof value === 'function' ? this.#bind(value, inner) : value;
  }

  set(_target: object, key: PropertyKey, value: unknown, receiver: unknown): boolean {
    // An owned member written after it was deleted becomes the decorator's own again.
    if (OWNED.has(key))
      return Reflect.defineProperty(receiver as object, key, { value, writable: true, enumerable: true, configurable: true });
    return Reflect.set(this.#inner, key, value, this.#inner);
  }

  has(_target: object, key: PropertyKey): boolean {
    return key in this.#inner;
  }

  getPrototypeOf(): object | null {
    return Object.getPrototypeOf(this.#inner) as object | null;
  }

  #bind(fn: unknown, self: object): unknown {
    const f = fn as (...args: unknown[]) => unknown;
    let bound = this.#bound.get(f);
    if (bound === undefined) {
      bound = f.bind(self);
      this.#bound.set(f, bound);
    }
    return bound;
  }

  /**
   * `transport.constructor`: builds another transport of the inner one's class (SDK v2 does so for
   * the stdio era probe), guarded by the same guard.
   */
  #siblingConstructor(): unknown {
    if (this.#sibling !== undefined) return this.#sibling;
    const Inner = (this.#inner as { constructor?: unknown }).constructor;
    if (typeof Inner !== 'function' || Inner === Object) return Inner;
    const guard = this.#guard;
    const Class = Inner as new (...args: unknown[]) => GuardableTransport;
    function GuardedSibling(...args: unknown[]): GuardableTransport {
      return guardTransport(new Class(...args), guard);
    }
    GuardedSibling.prototype = Class.prototype;
    this.#sibling = GuardedSibling;
    return GuardedSibling;
  }
}

const RESOLVED: Promise<void> = Promise.resolve();

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

class GuardedTransport {
  onclose?: (() => void) | undefined = undefined;
  onerror?: ((error: Error) => void) | undefined = undefined;
  onmessage?: ((message: unknown, extra?: unknown) => void) | undefined = undefined;
  declare readonly start: () => Promise<void>;
  declare readonly send: (message: unknown, options?: unknown) => Promise<void>;
  readonly #inner: GuardableTransport;
  readonly #guard: Guard;
  /** Host → server: on to the server with the host's send options; answers go back to the host. */
  readonly #toServer: DecisionSinks<unknown> = {
    forward: (message, options) => this.#inner.send(message, options),
    // Answered locally: deliver the answer to the host as if the server had sent it.
    reply: (message) => void queueMicrotask(() => this.onmessage?.(message, undefined)),
    fail: (error) => {
      throw error;
    },
  };
  /** Server → host: on to the host; the guard's answers go back to the server. */
  readonly #toHost: DecisionSinks<unknown> = {
    forward: (message, extra) => this.onmessage?.(message, extra),
    reply: (message) => void this.#inner.send(message).catch((error: unknown) => this.onerror?.(asError(error))),
    fail: (error) => this.onerror?.(asError(error)),
  };

  constructor(inner: GuardableTransport, guard: Guard) {
    this.#inner = inner;
    this.#guard = guard;
    // Own members (the prototype chain leads to the inner transport), not enumerable as methods are not.
    Object.defineProperties(this, {
      start: { value: () => this.#start(), writable: true, configurable: true },
      send: { value: (message: unknown, options?: unknown) => this.#send(message, options), writable: true, configurable: true },
      // Read by SDK v2 on every request: the inner transport's value, read when asked for, without
      // a trip through the proxy (`in` is then true whatever the inner transport has).
      hasPerRequestStream: {
        get: () => (inner as { hasPerRequestStream?: unknown }).hasPerRequestStream,
        set: (value: unknown) => {
          (inner as { hasPerRequestStream?: unknown }).hasPerRequestStream = value;
        },
        configurable: true,
      },
    });
  }

  #start(): Promise<void> {
    const inner = this.#inner;
    inner.onmessage = (message: unknown, extra?: unknown) =>
      void executeJudgement(judgeInbound(this.#guard, message), message, this.#toHost, extra);
    inner.onerror = (error: Error) => this.onerror?.(error);
    inner.onclose = () => this.onclose?.();
    return inner.start();
  }

  #send(message: unknown, options?: unknown): Promise<void> {
    return executeJudgement(judgeOutbound(this.#guard, message), message, this.#toServer, options) ?? RESOLVED;
  }
}
