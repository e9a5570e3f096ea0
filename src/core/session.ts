import { CompletionRegistry } from '../flow/completion-registry.js';
import type { Lineage } from '../lineage/lineage.js';
import { NO_MODES, type Modes } from '../negotiation/capabilities.js';
import type { Policy } from '../policy/policy.js';
import type { JsonRpcId, JsonRpcRequest } from '../protocol/jsonrpc.js';
import type { ElicitationMode } from '../protocol/wire.js';

/**
 * A request the host sent and the server has not answered yet: the message itself, kept by
 * reference (no copy on the hot path; a digest is computed only when a lineage needs one).
 */
export type HostRequest = JsonRpcRequest;

/** A task the server created for a host request (spec 2025-11-25 task augmentation). */
export interface TaskEntry {
  readonly original: JsonRpcRequest;
  lineage: Lineage | null;
  running: boolean;
}

/** An `elicitation/create` the host is answering. */
export interface ServerElicitation {
  readonly mode: ElicitationMode;
  readonly requestedSchema: unknown;
  readonly elicitationId: string | null;
}

/**
 * Everything the guard knows about one MCP session. Pending tables are one per direction, keyed by
 * the JSON-RPC id as sent (a `Map` keeps `1` and `"1"` apart), and bounded: the oldest entries are
 * forgotten first.
 */
export class Session {
  generation = 0;
  /** The modes the host declared in `initialize`. */
  declared: Modes = NO_MODES;
  /** The modes the server was told about (declared, narrowed by the policy). */
  modes: Modes = NO_MODES;
  initializeId: JsonRpcId | null = null;
  initialized = false;
  protocolVersion: string | null = null;
  serverName: string | null = null;
  serverVersion: string | null = null;
  readonly hostRequests = new BoundedMap<HostRequest>(4096);
  readonly serverElicitations = new BoundedMap<ServerElicitation>(1024);
  readonly completions: CompletionRegistry;
  /** Nested lineages by the id of their original request, while it is in flight. */
  readonly nestedByOriginal = new Map<JsonRpcId, Lineage>();
  /** Error lineages (after -32042) by the digest of their original, until accepted or expired. */
  readonly errorByDigest = new Map<string, Lineage>();
  /** Retries in flight: request id → its error lineage. */
  readonly retries = new Map<JsonRpcId, Lineage>();
  /** Task-augmented host requests: task id → the original request, its lineage once bound, and whether it still runs. */
  readonly tasks = new Map<string, TaskEntry>();
  /** Ids whose answer was accepted as an original operation's final answer: a repeat is withheld. */
  readonly acceptedAnswers = new BoundedMap<true>(1024);

  constructor(policy: Policy, clock: () => number) {
    this.completions = new CompletionRegistry({ maxEntries: policy.completion.maxPending, ttlMs: policy.completion.ttlSeconds * 1000, clock });
  }

  /** A new `initialize`: a new generation; everything of the old one is stale. */
  restart(): void {
    this.generation += 1;
    this.initialized = false;
    this.protocolVersion = null;
    this.hostRequests.clear();
    this.serverElicitations.clear();
    this.nestedByOriginal.clear();
    this.errorByDigest.clear();
    this.retries.clear();
    this.acceptedAnswers.clear();
    this.tasks.clear();
  }
}

/** An insertion-ordered map that forgets its oldest entries past `limit`. */
export class BoundedMap<V> {
  readonly #map = new Map<JsonRpcId, V>();
  readonly #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  get size(): number {
    return this.#map.size;
  }

  set(key: JsonRpcId, value: V): void {
    this.#map.set(key, value);
    if (this.#map.size > this.#limit) this.#map.delete(this.#map.keys().next().value as JsonRpcId);
  }

  /** The oldest entry. */
  first(): V | undefined {
    return this.#map.values().next().value;
  }

  get(key: JsonRpcId): V | undefined {
    return this.#map.get(key);
  }

  take(key: JsonRpcId): V | undefined {
    const value = this.#map.get(key);
    if (value !== undefined) this.#map.delete(key);
    return value;
  }

  clear(): void {
    this.#map.clear();
  }
}
