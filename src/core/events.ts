/**
 * The events of the guard: what it reports to `onEvent`, the audit log and the proxy's host. They
 * live in the core because they speak of everything below it (flows, forms, negotiation).
 */
import type { DropReason } from '../flow/book.js';
import type { FieldClass } from '../form/types.js';
import type { Modes } from '../negotiation/capabilities.js';
import type { ExceptionKind, Verdict } from '../protocol/verdict.js';
import type { ElicitationMode } from '../protocol/wire.js';

/** Which server an event is about: the host's key for it and what it said in `initialize`. */
export interface ServerIdentity {
  readonly key: string | null;
  readonly name: string | null;
  readonly version: string | null;
}

interface EventBase {
  /** Milliseconds since the epoch, from the guard's clock. */
  readonly at: number;
  readonly server: ServerIdentity;
  /** The session generation: it increases on every `initialize`. */
  readonly generation: number;
}

/**
 * Everything the guard reports. `type` is stable; each variant carries codes, counts, field names
 * and digests, never a secret, a form value or a URL query value.
 */
export type GuardEvent =
  | (EventBase & { readonly type: 'capabilities.narrowed'; readonly declared: Modes; readonly forwarded: Modes })
  | (EventBase & { readonly type: 'session.initialized'; readonly protocolVersion: string | null; readonly modes: Modes })
  | (EventBase & {
      readonly type: 'elicitation.refused';
      readonly code: string;
      readonly mode: ElicitationMode | null;
      readonly requestId: string | number;
      /** 2026-07-28: the key of the input request within its input-required result. */
      readonly inputKey?: string;
      readonly reason: string;
      /** Finding codes behind the refusal. */
      readonly findings: readonly string[];
    })
  | (EventBase & {
      readonly type: 'elicitation.forwarded';
      readonly mode: ElicitationMode;
      readonly requestId: string | number;
      /** 2026-07-28: the key of the input request within its input-required result. */
      readonly inputKey?: string;
      readonly verdict: Verdict;
      readonly findings: readonly string[];
      /** For URL mode: the host the user would open (ASCII form). */
      readonly host: string | null;
    })
  | (EventBase & {
      readonly type: 'form.sensitive';
      readonly action: 'blocked' | 'audited';
      readonly requestId: string | number;
      readonly fields: readonly { readonly name: string; readonly class: FieldClass; readonly reasons: readonly string[] }[];
      /** `sha256:<hex>` of the requestedSchema, for a `form.allow` rule by schema. */
      readonly schemaDigest?: string;
    })
  | (EventBase & {
      readonly type: 'exception.used';
      /** `form-field`, `form-schema` (a `servers.<key>.form.allow` rule) or `url-domain` (`servers.<key>.url.allow`). */
      readonly kind: ExceptionKind;
      readonly requestId: string | number;
      /** The field name, the schema digest or the registrable domain the rule matched. */
      readonly target: string;
      /** The rule's required `reason`. */
      readonly reason: string;
      /** The finding codes the rule excused. */
      readonly findings: readonly string[];
    })
  | (EventBase & {
      readonly type: 'url.audited';
      readonly requestId: string | number;
      /** The host the user would open (ASCII form). */
      readonly host: string | null;
      /** The finding codes that would have blocked under `url.onBlock: "block"`. */
      readonly findings: readonly string[];
    })
  | (EventBase & {
      readonly type: 'content.withheld';
      readonly code: string;
      readonly requestId: string | number;
      /** 2026-07-28: the key of the input response within the host's retry. */
      readonly inputKey?: string;
      /** The fields that failed, never their values. */
      readonly fields: readonly string[];
      readonly findings: readonly string[];
    })
  | (EventBase & { readonly type: 'completion.delivered'; readonly elicitation: string })
  | (EventBase & {
      readonly type: 'completion.dropped';
      readonly reason: DropReason | 'invalid' | 'before-consent';
      readonly elicitation: string | null;
    })
  | (EventBase & {
      readonly type: 'url-required.filtered';
      readonly requestId: string | number;
      readonly code: string | null;
      readonly kept: number;
      readonly removed: number;
      readonly findings: readonly string[];
    })
  | (EventBase & {
      readonly type: 'flow.transition';
      readonly navigation: string;
      readonly from: string;
      readonly to: string;
      readonly trigger: string;
    })
  | (EventBase & {
      readonly type: 'receipt.consent';
      readonly receipt: string;
      readonly navigation: string;
      readonly decision: string;
      readonly shownDigest: string;
    })
  | (EventBase & {
      readonly type: 'receipt.business';
      readonly receipt: string;
      readonly lineage: string;
      readonly requestId: string | number;
      readonly retryGeneration: number;
      readonly responseDigest: string;
    })
  | (EventBase & {
      readonly type: 'retry.refused';
      readonly code: string;
      readonly requestId: string | number;
      readonly reason: string;
    })
  | (EventBase & {
      readonly type: 'response.withheld';
      readonly code: string;
      readonly requestId: string | number;
      readonly reason: string;
    })
  | (EventBase & { readonly type: 'guard.error'; readonly code: string; readonly message: string })
  /** The rollback switch was set at run time (the query page, or the host's own call). */
  | (EventBase & { readonly type: 'issuing.changed'; readonly issuing: 'open' | 'stopped' })
  | (EventBase & { readonly type: 'nonces.revoked'; readonly revoked: number })
  /**
   * A `-32042` answering a retry of the same original names a URL the server already sent: the
   * host is in a loop with the server. Retries stop at `retry.maxUrlRequiredRounds` rounds.
   */
  | (EventBase & {
      readonly type: 'url-required.loop';
      readonly requestId: string | number;
      readonly round: number;
      readonly repeated: number;
      readonly hosts: readonly string[];
    })
  /** The connection's protocol era as the guard reads it from the wire (2026-07-28: per-request `_meta`, `server/discover`). */
  | (EventBase & { readonly type: 'session.era'; readonly era: 'legacy' | 'modern' | 'mixed'; readonly protocolVersion: string | null })
  /** A message that breaks the rules of the connection's era, dropped or replaced (never delivered as it was). */
  | (EventBase & {
      readonly type: 'protocol.violation';
      readonly code: string;
      readonly method: string | null;
      readonly requestId: string | number | null;
      readonly reason: string;
    });

export type GuardEventType = GuardEvent['type'];
