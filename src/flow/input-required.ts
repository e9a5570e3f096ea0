/**
 * The input-required lineage (spec 2026-07-28, basic/patterns/mrtr): one original operation
 * (`tools/call`, `prompts/get`, `resources/read`) and its rounds. The server answers a leg with an
 * input-required result; the host retries the same request with a new id, `inputResponses` and the
 * echoed `requestState`; the server answers with another round or with the final result.
 *
 * One chain per original operation, bounded and expiring like every table of the book:
 * - the original digest is the request's params without `inputResponses`, `requestState`, `_meta`;
 * - rounds are chained by `requestState` (compared as the opaque string it is, never parsed), or,
 *   when the server gave none, by the digest of the original;
 * - at most `maxRounds` retries (policy `retry.maxRounds`, default 10 like SDK v2's
 *   `inputRequired.maxRounds`); the next is refused with E_RETRY_EXHAUSTED;
 * - a retry while the chain's previous leg is still in flight is refused (E_RETRY_WHILE_IN_FLIGHT);
 * - a retry carrying the state of a round that was already retried is refused
 *   (E_RETRY_NOT_ELIGIBLE), as is any retry of a chain the user cancelled or that failed;
 * - the final (`complete`) answer is accepted once per chain; a re-sent completed round is refused
 *   (E_ALREADY_ACCEPTED) before it reaches the server.
 *
 * The book knows nothing of JSON-RPC beyond ids and of eras nothing at all: the core feeds it
 * legs and answers and asks it for rulings.
 */
import type { JsonRpcId } from '../protocol/jsonrpc.js';
import { Bounded } from './bounded.js';
import type { Lineage } from './lineage.js';

/** What the guard presented to the host under one input key of the current round. */
export type PresentedInput =
  | { readonly kind: 'form'; readonly requestedSchema: unknown }
  | { readonly kind: 'url'; readonly flowId: string }
  | { readonly kind: 'other'; readonly method: string };

/** A key the guard did not let reach the host: its answer to the server, supplied on the host's retry. */
export interface RefusedInput {
  readonly code: string;
  readonly reason: string;
  readonly answer: 'decline' | 'cancel';
}

export type ChainStatus = 'awaiting-retry' | 'in-flight' | 'complete' | 'ended';

export interface InputChain {
  /** The guard's own id of this chain (random, never from the wire). */
  readonly id: string;
  readonly method: string;
  /** The JSON-RPC id of the original request (the leg the first round answered). */
  readonly originalId: JsonRpcId;
  /** The original's digest (computed the first time it is read: a round with a `requestState` never needs it). */
  readonly digest: string;
  /** Input-required results seen so far (round 1 is the first one). */
  round: number;
  status: ChainStatus;
  /** The state the server gave with the latest round, exactly as received. */
  requestState: string | undefined;
  /** The current round's keys as presented to the host. */
  presented: Map<string, PresentedInput>;
  /** The current round's keys the guard refused. */
  refused: Map<string, RefusedInput>;
  /** The user cancelled the operation by hand: the next retry answers every elicitation `cancel`, and ends the chain. */
  cancelled: boolean;
  /** That cancelling retry has been sent. */
  cancelSent: boolean;
  /** Every URL flow of this chain (for the manual controls); made when the first one is bound. */
  readonly flows: Set<string>;
  /** The flow book's lineage of this operation (URL flows, consent, the business receipt). */
  lineage: Lineage | null;
  expiresAt: number;
}

/** A leg (one JSON-RPC request) of an input-capable method while it is in flight. */
interface Leg {
  readonly method: string;
  /** The chain this leg continues; `null` for an original leg (no chain until the server asks for input). */
  readonly chain: InputChain | null;
  /** For an original leg: the request, kept by reference; digested only when a round starts. */
  readonly digestOf: () => string;
}

export type RetryRuling =
  | { readonly kind: 'original' }
  | { readonly kind: 'retry'; readonly chain: InputChain }
  /** A retry of a chain the guard does not know (expired, evicted, forged, another connection). */
  | { readonly kind: 'unknown' }
  | { readonly kind: 'refused'; readonly code: RetryRefusalCode; readonly reason: string; readonly chain: InputChain | null };

export type RetryRefusalCode = 'E_RETRY_WHILE_IN_FLIGHT' | 'E_RETRY_EXHAUSTED' | 'E_RETRY_NOT_ELIGIBLE' | 'E_ALREADY_ACCEPTED';

export type AnswerRuling =
  | { readonly kind: 'none' }
  /** An input-required result: round `chain.round` has begun. */
  | { readonly kind: 'round'; readonly chain: InputChain; readonly fresh: boolean }
  /** The final answer of a chain, to be accepted once (a business receipt). */
  | { readonly kind: 'complete'; readonly chain: InputChain }
  /** A final answer for a chain already accepted: withheld. */
  | { readonly kind: 'duplicate'; readonly chain: InputChain }
  /** An error answer ended a chain. */
  | { readonly kind: 'ended'; readonly chain: InputChain };

export interface InputRequiredBookOptions {
  readonly maxRounds: number;
  readonly maxChains: number;
  readonly ttlMs: number;
  readonly clock: () => number;
  readonly newId: () => string;
}

const MAX_LEGS = 4096;

/**
 * A chain. Its original's digest is taken the first time it is read, from the original request
 * (held until then by `digestOf`): a form round with a `requestState` never needs it, and digesting
 * (RFC 8785 and sha256) was a tenth of the guard's cost of such a round. A finished chain lets go
 * of the original; by then every read it could still get has happened (a round without a state
 * takes its digest at once).
 */
class Chain implements InputChain {
  round = 0;
  status: ChainStatus = 'awaiting-retry';
  requestState: string | undefined = undefined;
  presented = new Map<string, PresentedInput>();
  refused = new Map<string, RefusedInput>();
  cancelled = false;
  cancelSent = false;
  lineage: Lineage | null = null;
  /** Its neighbours in the book's expiry order while it is in the book (see `InputRequiredBook.#oldest`). */
  older: Chain | null = null;
  newer: Chain | null = null;
  listed = false;
  #flows: Set<string> | null = null;
  #digest: string | null = null;
  #digestOf: (() => string) | null;

  constructor(
    readonly id: string,
    readonly method: string,
    readonly originalId: JsonRpcId,
    digestOf: () => string,
    public expiresAt: number,
  ) {
    this.#digestOf = digestOf;
  }

  /** Made when first asked for: most chains (forms only) never bind a URL flow. */
  get flows(): Set<string> {
    this.#flows ??= new Set();
    return this.#flows;
  }

  get digest(): string {
    if (this.#digest === null) {
      if (this.#digestOf === null) throw new Error('the digest of a finished input-required chain was read');
      this.#digest = this.#digestOf();
      this.#digestOf = null;
    }
    return this.#digest;
  }

  settle(): void {
    this.#digestOf = null;
  }
}

function settle(chain: InputChain): void {
  if (chain instanceof Chain) chain.settle();
}
const ORIGINAL: RetryRuling = Object.freeze({ kind: 'original' });
const NONE: AnswerRuling = Object.freeze({ kind: 'none' });

export class InputRequiredBook {
  readonly #options: InputRequiredBookOptions;
  /**
   * Chains by id, oldest first (one eviction order). This and the tables below are `Bounded`, not
   * Maps: a host that makes one call at a time empties most of them after every round, and V8
   * reallocates a Map's table each time it empties (see bounded.ts).
   */
  readonly #chains: Bounded<string, InputChain>;
  /**
   * The chains awaiting a retry with each live `requestState`, oldest first. Usually one; a server
   * whose state is the same string for two identical calls in parallel gives several, and any of
   * them may take the retry (the calls are the same operation on the wire).
   */
  readonly #byState = new Bounded<string, InputChain[]>(Number.POSITIVE_INFINITY);
  /** The newest chain that spent each `requestState` (bounded like the chains), so a re-sent round is found in O(1). */
  readonly #spent: Bounded<string, InputChain>;
  /** Legs in flight, by request id (host → server direction only). */
  readonly #legs = new Bounded<JsonRpcId, Leg>(MAX_LEGS);
  /**
   * No chain expires before this time (a lower bound of every chain's `expiresAt`), so a request
   * scans the chains for expired ones only once one may have expired. Kept while the chains'
   * deadlines rise along the expiry order (`#ordered`: a clock that goes back breaks that, and then
   * every request scans, as it always did).
   */
  #expiresNoneBefore = Number.POSITIVE_INFINITY;
  /**
   * The chains in expiry order, as `#chains` holds them, linked through `older` / `newer`: the
   * oldest is found in O(1). A Map iterator made for it would first walk over every entry deleted
   * since the table was last rehashed (hundreds, with a full table of chains).
   */
  #oldest: Chain | null = null;
  #newest: Chain | null = null;
  #lastDeadline = Number.NEGATIVE_INFINITY;
  #ordered = true;

  constructor(options: InputRequiredBookOptions) {
    this.#options = options;
    // Not bounded by maxChains itself: only a new chain makes room (`#open`); one moved to the end
    // of the order (a new round) stays even when the others filled the table meanwhile.
    this.#chains = new Bounded(Number.POSITIVE_INFINITY);
    this.#spent = new Bounded(options.maxChains * 4);
  }

  get size(): number {
    return this.#chains.size;
  }

  /** True when no chain is open: a host request then costs one map lookup. */
  get idle(): boolean {
    return this.#chains.size === 0;
  }

  chain(id: string): InputChain | undefined {
    return this.#chains.get(id);
  }

  chains(): InputChain[] {
    return [...this.#chains.values()];
  }

  /**
   * Rules on a host request of an input-capable method. `hasRetryParts` is whether it carries
   * `inputResponses` or `requestState`; `requestState` is the state it echoes (a string) if any.
   */
  onRequest(id: JsonRpcId, method: string, hasRetryParts: boolean, requestState: string | undefined, digestOf: () => string): RetryRuling {
    if (!hasRetryParts) return ORIGINAL;
    this.#expire();
    const chain = this.#find(method, requestState, digestOf);
    if (chain === null) {
      this.#addLeg(id, { method, chain: null, digestOf });
      return { kind: 'unknown' };
    }
    const refusal = this.#ruleOnRetry(chain, requestState);
    if (refusal !== null) return { kind: 'refused', ...refusal, chain };
    if (requestState !== undefined) this.#spend(chain, requestState);
    if (chain.cancelled) chain.cancelSent = true;
    chain.status = 'in-flight';
    this.#addLeg(id, { method, chain, digestOf });
    return { kind: 'retry', chain };
  }

  /**
   * The server's answer to a host request. `inputRequired` is whether it is an input-required
   * result (with its `requestState`), `error` whether it is a JSON-RPC error.
   */
  onAnswer(
    id: JsonRpcId,
    answer: { readonly inputRequired: boolean; readonly requestState: string | undefined; readonly error: boolean },
    original?: { readonly method: string; readonly digestOf: () => string },
  ): AnswerRuling {
    let leg = this.#legs.get(id);
    if (leg === undefined) {
      // An original leg is not recorded (that would cost every call): its request comes with its answer.
      if (!answer.inputRequired || original === undefined) return NONE;
      leg = { method: original.method, chain: null, digestOf: original.digestOf };
    } else this.#legs.delete(id);
    let chain = leg.chain;
    if (answer.inputRequired) {
      const fresh = chain === null;
      if (chain === null) chain = this.#open(id, leg);
      else if (chain.cancelSent) {
        // The user cancelled: the server asked again anyway; the operation ends here, and a retry
        // of this round is known as one (and refused).
        if (answer.requestState !== undefined) this.#spend(chain, answer.requestState);
        this.#end(chain);
        return { kind: 'ended', chain };
      }
      this.#unlistState(chain);
      chain.round += 1;
      chain.status = 'awaiting-retry';
      chain.requestState = answer.requestState;
      // Without a state, the next retry is found by the original's digest: taken now, while the original is at hand.
      if (answer.requestState === undefined) void chain.digest;
      if (!fresh) {
        chain.presented = new Map();
        chain.refused = new Map();
      }
      chain.expiresAt = this.#options.clock() + this.#options.ttlMs;
      // Its deadline moved: it goes to the end of the expiry order.
      this.#chains.delete(chain.id);
      this.#unlink(chain as Chain);
      this.#last(chain as Chain);
      if (answer.requestState !== undefined) {
        const listed = this.#byState.get(answer.requestState);
        if (listed === undefined) this.#byState.put(answer.requestState, [chain]);
        else listed.push(chain);
      }
      return { kind: 'round', chain, fresh };
    }
    if (chain === null) return { kind: 'none' };
    if (answer.error) {
      this.#end(chain);
      return { kind: 'ended', chain };
    }
    if (chain.status === 'complete') return { kind: 'duplicate', chain };
    chain.status = 'complete';
    this.#unlistState(chain);
    settle(chain);
    return { kind: 'complete', chain };
  }

  /** O(1): is `id` a retry leg of a chain (its answer has something to settle)? */
  hasLeg(id: JsonRpcId): boolean {
    return this.#legs.has(id);
  }

  /** The host gave up on a leg (`notifications/cancelled` for its id): the chain cannot continue. */
  onHostCancelled(id: JsonRpcId): InputChain | null {
    const leg = this.#legs.get(id);
    if (leg === undefined) return null;
    this.#legs.delete(id);
    if (leg.chain !== null) this.#end(leg.chain);
    return leg.chain;
  }

  /** The user cancelled the original operation by hand: its next retry carries `cancel`, later ones are refused. */
  cancel(chain: InputChain): void {
    chain.cancelled = true;
  }

  /** A URL flow of this chain was presented. */
  bindFlow(chain: InputChain, flowId: string): void {
    chain.flows.add(flowId);
  }

  #ruleOnRetry(chain: InputChain, requestState: string | undefined): { code: RetryRefusalCode; reason: string } | null {
    if (chain.status === 'complete')
      return {
        code: 'E_ALREADY_ACCEPTED',
        reason: 'this operation already received its final answer; the completed round was not sent again',
      };
    if (chain.status === 'in-flight')
      return {
        code: 'E_RETRY_WHILE_IN_FLIGHT',
        reason: 'the previous round of this operation is still in flight; the server would run it twice',
      };
    if (chain.status === 'ended') {
      return { code: 'E_RETRY_NOT_ELIGIBLE', reason: 'this operation was cancelled or failed; it is not retried' };
    }
    if (requestState !== undefined && requestState !== chain.requestState) {
      return { code: 'E_RETRY_NOT_ELIGIBLE', reason: 'the retry echoes the state of a round that was already answered' };
    }
    if (chain.round > this.#options.maxRounds) {
      return {
        code: 'E_RETRY_EXHAUSTED',
        reason: `the server asked for input ${chain.round} times for this operation (policy retry.maxRounds = ${this.#options.maxRounds})`,
      };
    }
    return null;
  }

  /** The chain a retry continues: by its state when it echoes one, else the newest awaiting chain of the same original. */
  #find(method: string, requestState: string | undefined, digestOf: () => string): InputChain | null {
    if (requestState !== undefined) {
      const listed = this.#byState.get(requestState);
      // The usual case: one chain waits with this state.
      if (listed !== undefined && listed.length === 1 && listed[0]!.method === method) return listed[0]!;
      const live = listed?.filter((c) => c.method === method);
      if (live !== undefined && live.length > 0) {
        if (live.length === 1) return live[0]!;
        // Several chains share the state: the one of the same original that waits for its retry.
        const digest = digestOf();
        const same = live.filter((c) => c.digest === digest);
        return same.find((c) => c.status === 'awaiting-retry') ?? same[0] ?? live.find((c) => c.status === 'awaiting-retry') ?? live[0]!;
      }
      // A state already retried: the chain that spent it, so the re-send is refused by name.
      const spent = this.#spent.get(requestState);
      return spent !== undefined && spent.method === method && this.#chains.get(spent.id) === spent ? spent : null;
    }
    const digest = digestOf();
    let found: InputChain | null = null;
    for (const chain of this.#chains.values())
      if (chain.requestState === undefined && chain.method === method && chain.digest === digest) found = chain;
    return found;
  }

  #open(originalId: JsonRpcId, leg: Leg): InputChain {
    const options = this.#options;
    const chain = new Chain(options.newId(), leg.method, originalId, leg.digestOf, options.clock() + options.ttlMs);
    this.#last(chain);
    while (this.#chains.size > options.maxChains) this.#forget(this.#oldest as Chain);
    return chain;
  }

  /** `chain` goes last in the expiry order. */
  #last(chain: Chain): void {
    const deadline = chain.expiresAt;
    if (deadline < this.#lastDeadline) this.#ordered = false;
    this.#lastDeadline = deadline;
    this.#expiresNoneBefore = Math.min(this.#expiresNoneBefore, deadline);
    this.#chains.put(chain.id, chain);
    const newest = this.#newest;
    chain.older = newest;
    chain.newer = null;
    if (newest === null) this.#oldest = chain;
    else newest.newer = chain;
    this.#newest = chain;
    chain.listed = true;
  }

  /** `chain` leaves the expiry order (it is no longer in `#chains`). */
  #unlink(chain: Chain): void {
    if (!chain.listed) return;
    const { older, newer } = chain;
    if (older === null) this.#oldest = newer;
    else older.newer = newer;
    if (newer === null) this.#newest = older;
    else newer.older = older;
    chain.older = null;
    chain.newer = null;
    chain.listed = false;
  }

  #spend(chain: InputChain, state: string): void {
    // The newest chain that spent it (the oldest states forgotten first).
    this.#spent.delete(state);
    this.#spent.put(state, chain);
  }

  #end(chain: InputChain): void {
    chain.status = 'ended';
    this.#unlistState(chain);
    settle(chain);
  }

  #forget(chain: InputChain): void {
    this.#chains.delete(chain.id);
    this.#unlink(chain as Chain);
    this.#unlistState(chain);
    settle(chain);
  }

  /** The chain no longer waits for a retry with its current state. */
  #unlistState(chain: InputChain): void {
    const state = chain.requestState;
    if (state === undefined) return;
    const listed = this.#byState.get(state);
    if (listed === undefined) return;
    if (listed.length === 1) {
      if (listed[0] === chain) this.#byState.delete(state);
      return;
    }
    const rest = listed.filter((c) => c !== chain);
    if (rest.length === 0) this.#byState.delete(state);
    else this.#byState.put(state, rest);
  }

  #addLeg(id: JsonRpcId, leg: Leg): void {
    // A re-sent id is the newest leg (the oldest forgotten first past MAX_LEGS).
    this.#legs.delete(id);
    this.#legs.put(id, leg);
  }

  /**
   * Chains past their time to live are forgotten, oldest first. A chain moves to the end of the
   * order whenever its deadline moves (a new round), so the scan stops at the first live chain:
   * O(expired), not O(chains), per request.
   */
  #expire(): void {
    if (this.#chains.size === 0) return;
    const now = this.#options.clock();
    // Every chain is live (the scan below would stop at the first): nothing to walk.
    if (this.#ordered && this.#expiresNoneBefore > now) return;
    // What the scan leaves: the expired chains in flight it passed, then the first live one, whose
    // deadline bounds every later one's while the deadlines rise along the order.
    let floor = Number.POSITIVE_INFINITY;
    for (let chain = this.#oldest, next: Chain | null; chain !== null; chain = next) {
      next = chain.newer;
      if (chain.expiresAt > now) {
        floor = Math.min(floor, chain.expiresAt);
        break;
      }
      if (chain.status === 'in-flight') floor = Math.min(floor, chain.expiresAt);
      else this.#forget(chain);
    }
    this.#expiresNoneBefore = floor;
  }
}
