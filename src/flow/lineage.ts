/**
 * Original operations and their URL-mode requirements. A URL elicitation belongs to one of two
 * lineages (spec 2025-11-25):
 *
 * - **nested**: the server sends `elicitation/create` (mode url) while a host request is in flight
 *   and answers that request once the out-of-band step is done. The elicitation belongs to the
 *   request named by the related-task `_meta` when the server gives one, otherwise to the one
 *   request the host has in flight. When several are in flight and nothing names one, the
 *   attribution is ambiguous: the elicitation is tracked on its own and no request is bound to it
 *   (binding a guess could refuse the wrong retry).
 * - **error-retry**: the server answers a host request with `-32042` and a list of URL
 *   elicitations; the host may send the original again `retry.maxRetries` times (default once).
 *   The lineage lives for the completion time to live: a further identical request within it is a
 *   retry too, and is refused once the budget is spent, even after a retry was answered (the guard
 *   cannot tell a host's retry loop from a repeat, and at most once is the promise). An answer of
 *   `-32042` to the retry is a new requirement with its own budget: the server did not run the
 *   operation. Decline or cancel of any of its elicitations never leads to a retry.
 *
 * Either way the final answer to the original operation is accepted at most once, by
 * `acceptOriginalOperation`, which writes one business receipt.
 */
import { canonicalDigest } from '../protocol/digest.js';
import type { JsonRpcId, JsonRpcMessage } from '../protocol/jsonrpc.js';
import type { BusinessReceipt, LineageKey, LineageKind, RecordDeps } from './records.js';
import { createBusinessReceipt } from './records.js';
import type { FlowState, FlowTrigger } from './states.js';

/** A lineage record. Internal and mutable: only the flow book changes it. */
export interface Lineage {
  readonly kind: LineageKind;
  readonly key: LineageKey;
  /** The JSON-RPC id of the original request (as the host sent it). */
  readonly originalId: JsonRpcId;
  readonly digest: string;
  /** Elicitation ids of the URL requirements of this lineage. */
  readonly elicitations: Set<string>;
  /** Consent receipt ids the acceptance rests on. */
  readonly consentReceiptIds: string[];
  /** `error-retry`: retries let through so far, and the ids of those in flight. */
  retriesUsed: number;
  readonly retryIds: Map<JsonRpcId, number>;
  /** The user declined or cancelled one of the requirements: no retry, ever. */
  refused: boolean;
  /** The final answer was accepted (a business receipt exists). */
  accepted: boolean;
  /**
   * `error-retry`: how many `-32042` answers in a row the original got (1 for the first); each
   * answer to a retry starts a new lineage one round further. Bounded by `retry.maxUrlRequiredRounds`.
   */
  round: number;
  /** Until when the lineage is tracked. */
  readonly expiresAt: number;
}

export interface LineageScope {
  /** A random id of this guard's session, so two sessions never share a key. */
  readonly sessionId: string;
  readonly generation: number;
}

/**
 * Creates a lineage. Its key is scoped to the session, the generation and the original request
 * id (nested) or the `-32042` answer (error-retry), so the same call made again later on purpose is
 * a new operation, while every retry and duplicate answer of this one share the key.
 */
export function createLineage(kind: LineageKind, scope: LineageScope, originalId: JsonRpcId, digest: string, expiresAt: number): Lineage {
  const session = `${scope.sessionId}/${scope.generation}/${typeof originalId}:${String(originalId)}`;
  return {
    kind,
    key: { session, kind, originalRequestDigest: digest },
    originalId,
    digest,
    elicitations: new Set(),
    consentReceiptIds: [],
    retriesUsed: 0,
    retryIds: new Map(),
    refused: false,
    accepted: false,
    round: 1,
    expiresAt,
  };
}

/** What the guard does with a host request whose digest matches a tracked lineage. */
export type RetryRuling =
  | { readonly allow: true; readonly generation: number }
  | {
      readonly allow: false;
      readonly code: 'E_RETRY_WHILE_IN_FLIGHT' | 'E_RETRY_EXHAUSTED' | 'E_RETRY_NOT_ELIGIBLE';
      readonly reason: string;
    };

/**
 * How far the requirements of an error lineage got, as far as the guard can see: `verified` when
 * every elicitation reached REQUIREMENT_VERIFIED or beyond, `pending` when the host recorded consent
 * through the guard but the out-of-band step is not confirmed yet, `unseen` when the host draws its
 * own UI and never told the guard (then the host's retry is the user's manual retry).
 */
export type RequirementProgress = 'verified' | 'pending' | 'unseen';

/** What a kind's repeat rule is told about the original and its requirements. */
export interface RepeatContext {
  readonly maxRetries: number;
  /** `retry.maxUrlRequiredRounds`: `-32042` answers one original may get before its retries are refused. */
  readonly maxRounds: number;
  /** The original request is unanswered, or the task it created still runs. */
  readonly originalInFlight: boolean;
  readonly progress: RequirementProgress;
}

/**
 * One kind of lineage, as data: how its flows move once their requirement is verified and when its
 * final answer is accepted, and how a repeat of its original is ruled on. The flow book reads these
 * rules and nothing else about a kind; a new kind (a new protocol revision's chain of rounds) is one
 * more entry here, plus its name in `LINEAGE_KINDS` (records.ts).
 */
export interface LineageRules {
  /** Where a flow of this lineage moves after REQUIREMENT_VERIFIED. */
  readonly afterVerified: { readonly to: FlowState; readonly trigger: FlowTrigger };
  /** The server's final answer to the original counts as evidence that pending requirements are met. */
  readonly finalAnswerVerifies: boolean;
  /** The move of a flow when the final answer is accepted: from which state, to which, on what. */
  readonly onAccepted: { readonly from: FlowState; readonly to: FlowState; readonly trigger: FlowTrigger };
  /**
   * Consent to this lineage's elicitations is seen on the wire (the host answers an
   * `elicitation/create`), so a completion notice before consent proves nothing and is dropped.
   */
  readonly consentOnWire: boolean;
  /** A repeat of the original (same digest) is a retry that counts against the budget. */
  readonly repeatIsRetry: boolean;
  ruleOnRepeat(lineage: Lineage, context: RepeatContext): RetryRuling;
}

const inFlightRefusal = (reason: string): RetryRuling => ({ allow: false, code: 'E_RETRY_WHILE_IN_FLIGHT', reason });

export const LINEAGE_RULES: { readonly [K in LineageKind]: LineageRules } = Object.freeze({
  nested: {
    afterVerified: { to: 'NESTED_SERVER_CONTINUES', trigger: 'nested-lineage' },
    finalAnswerVerifies: true,
    onAccepted: { from: 'NESTED_SERVER_CONTINUES', to: 'ORIGINAL_RESPONSE_ACCEPTED', trigger: 'final-response' },
    consentOnWire: true,
    repeatIsRetry: false,
    ruleOnRepeat(_lineage, context) {
      if (context.originalInFlight)
        return inFlightRefusal(
          'the same request is still in flight and waiting for a URL elicitation; the server would run the operation twice',
        );
      return { allow: true, generation: 0 };
    },
  },
  'error-retry': {
    afterVerified: { to: 'ERROR_RETRY_ELIGIBLE', trigger: 'error-lineage' },
    finalAnswerVerifies: false,
    onAccepted: { from: 'OPTIONAL_CLIENT_RETRY', to: 'RETRY_RESPONSE_ACCEPTED', trigger: 'retry-response' },
    consentOnWire: false,
    repeatIsRetry: true,
    ruleOnRepeat(lineage, { maxRetries, maxRounds, progress }) {
      if (lineage.refused)
        return {
          allow: false,
          code: 'E_RETRY_NOT_ELIGIBLE',
          reason: 'the user declined or cancelled the URL elicitation this request required',
        };
      if (lineage.round >= maxRounds) {
        return {
          allow: false,
          code: 'E_RETRY_EXHAUSTED',
          reason:
            `the server answered this request with a URL elicitation requirement ${lineage.round} times in a row ` +
            `(policy retry.maxUrlRequiredRounds = ${maxRounds})`,
        };
      }
      if (lineage.retriesUsed >= maxRetries) {
        return {
          allow: false,
          code: 'E_RETRY_EXHAUSTED',
          reason:
            `the request was already retried ${lineage.retriesUsed} time(s) after its URL elicitation (policy ` +
            `retry.maxRetries = ${maxRetries})`,
        };
      }
      if (lineage.retryIds.size > 0) return inFlightRefusal('a retry of this request is already in flight');
      if (progress === 'pending') {
        return {
          allow: false,
          code: 'E_RETRY_NOT_ELIGIBLE',
          reason: 'the URL elicitation this request requires is not completed yet: wait for the completion notice or confirm it by hand',
        };
      }
      return { allow: true, generation: lineage.retriesUsed + 1 };
    },
  },
  /**
   * Spec 2026-07-28: the server answers a request with input-required results and the host retries
   * it with the answers (flow/input-required.ts keeps the rounds). A URL step is verified by the
   * server's next answer, like a nested lineage's, and the final result is accepted once. Retries
   * are ruled on by the round book (by requestState), never by digest here.
   */
  'input-required': {
    afterVerified: { to: 'NESTED_SERVER_CONTINUES', trigger: 'nested-lineage' },
    finalAnswerVerifies: true,
    onAccepted: { from: 'NESTED_SERVER_CONTINUES', to: 'ORIGINAL_RESPONSE_ACCEPTED', trigger: 'final-response' },
    consentOnWire: true,
    repeatIsRetry: true,
    ruleOnRepeat() {
      return { allow: true, generation: 0 };
    },
  },
} satisfies { readonly [K in LineageKind]: LineageRules });

/** Rules on a host request that repeats the original of `lineage` (same digest). */
export function ruleOnRetry(
  lineage: Lineage,
  maxRetries: number,
  originalInFlight: boolean,
  progress: RequirementProgress = 'unseen',
  maxRounds = Number.POSITIVE_INFINITY,
): RetryRuling {
  return LINEAGE_RULES[lineage.kind].ruleOnRepeat(lineage, { maxRetries, maxRounds, originalInFlight, progress });
}

export type Acceptance =
  | { readonly accepted: true; readonly receipt: BusinessReceipt }
  | { readonly accepted: false; readonly code: 'E_ALREADY_ACCEPTED'; readonly reason: string };

/**
 * The only place where a final response for an original operation is accepted: the nested
 * original's answer (retry generation 0) or the answer to a retry after `-32042`. Marks the lineage
 * accepted and returns the business receipt to write; a second acceptance is refused.
 */
export function acceptOriginalOperation(
  lineage: Lineage,
  response: JsonRpcMessage & { id: JsonRpcId },
  retryGeneration: number,
  deps: RecordDeps,
): Acceptance {
  if (lineage.accepted)
    return { accepted: false, code: 'E_ALREADY_ACCEPTED', reason: 'a final answer for this operation was already accepted' };
  const receipt = createBusinessReceipt(
    {
      lineage: lineage.key,
      requestId: response.id,
      retryGeneration,
      requirementReceiptIds: [...lineage.consentReceiptIds],
      responseDigest: canonicalDigest(response),
    },
    deps,
  );
  lineage.accepted = true;
  return { accepted: true, receipt };
}
