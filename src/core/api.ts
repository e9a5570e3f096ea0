import type { Era } from './modern.js';
/** The public shape of a guard: what `createGuard` takes and returns. */
import type { ConsentDecision, ShownToUser } from '../flow/records.js';
import type { Ledger } from '../ledger/types.js';
import type { Modes } from '../negotiation/capabilities.js';
import type { Policy, PolicyDocument } from '../policy/policy.js';
import type { Decision } from './decision.js';
import type { GuardEvent, ServerIdentity } from './events.js';
import type { FlowView, OpenTicket, Opener } from './flows.js';
import type { GuardMetrics } from './metrics.js';

export interface GuardOptions {
  /** A parsed policy document, a resolved `Policy`, or a raw policy object. Default: the built-in policy. */
  readonly policy?: PolicyDocument | Policy | unknown;
  /** The host's key for this server; selects the policy's per-server overrides. */
  readonly server?: string;
  /** Milliseconds since the epoch. Injected so expiry is testable. */
  readonly clock?: () => number;
  /** Random bytes. Injected so nonces are testable. */
  readonly random?: (bytes: number) => Uint8Array;
  /** Called with every event, synchronously, after the decision is made. Must not throw (errors are swallowed). */
  readonly onEvent?: (event: GuardEvent) => void;
  /** Where navigation records, flow moves and receipts are written. Default: memory only. */
  readonly ledger?: Ledger;
  /** The verified user subject (e.g. the `sub` of the host's identity), recorded in every navigation. */
  readonly subject?: string;
  /**
   * The scope of this guard's lineage keys (the `session` of business receipts). Default: random,
   * unique to this guard. Guards given the same key and one shared ledger (replicas serving one
   * host conversation, a host restarted with the same conversation id) accept the final answer of
   * each original operation at most once between them; the others withhold theirs with
   * `E_ALREADY_ACCEPTED`, and a retry of an operation another of them accepted (within the
   * completion time to live) is refused before it is sent. 1 to 200 characters; not a secret.
   */
  readonly sessionKey?: string;
}

/** A read-only view of the negotiated session. */
export interface GuardSessionView {
  readonly generation: number;
  readonly initialized: boolean;
  readonly protocolVersion: string | null;
  /**
   * The connection's protocol era as read from the wire: `legacy` (2025-11-25 `initialize`),
   * `modern` (2026-07-28 per-request `_meta`), `mixed` (both: elicitations are refused), or not yet
   * known (`unknown`, `probing` after a `server/discover`).
   */
  readonly era: Era;
  readonly declaredModes: Modes;
  readonly modes: Modes;
  readonly server: ServerIdentity;
}

/** The guard of one MCP session: judges every message in both directions. */
export interface Guard {
  /** A message from the server to the host. */
  inbound(message: unknown): Decision;
  /** A message from the host to the server. */
  outbound(message: unknown): Decision;
  readonly policy: Policy;
  session(): GuardSessionView;
  metrics(): Readonly<GuardMetrics>;
  /** URL-mode flows that are not finished (expired ones included: they wait for manual recovery). */
  pendingFlows(): FlowView[];
  flow(elicitationId: string): FlowView | null;
  /**
   * Records the user's decision on a URL elicitation before anything is opened; resolves when the
   * consent receipt is durable. For `accept` it returns the ticket `openUrl` requires.
   */
  recordConsent(elicitationId: string, decision: ConsentDecision, shown?: ShownToUser): Promise<OpenTicket | null>;
  /** Opens the URL of an accepted flow through `opener`, once. The only way the guard opens anything. */
  openUrl(ticket: OpenTicket, opener: Opener): Promise<void>;
  /** The user says the out-of-band step is done. */
  confirmFlow(elicitationId: string): FlowView;
  /** The user takes up a stalled (pending or expired) flow by hand. */
  retryFlow(elicitationId: string): FlowView;
  /** The user gives up on a flow; its original operation will not be retried. */
  cancelFlow(elicitationId: string): FlowView;
  /** Resolves when every ledger write queued so far is done. */
  flush(): Promise<void>;
  /** Whether new URL elicitations are let through (`open`) or refused (`stopped`): the policy's `issuing`, or what `setIssuing` set. */
  issuing(): 'open' | 'stopped';
  /** The rollback switch: `stopped` refuses every new URL elicitation from now on; `open` lets them through again. */
  setIssuing(issuing: 'open' | 'stopped'): void;
  /** Rollback: revokes every outstanding state nonce, so no accepted navigation can be opened any more. Returns how many. */
  revokeNonces(): number;
}
