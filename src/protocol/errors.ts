/**
 * Stable guard codes, each documented once here and in the README's table of codes. On the wire
 * they travel in `error.data.code` next to the JSON-RPC code `WIRE_ANSWERS` gives them; locally they
 * are the `code` of a `GuardError`, which never crosses the wire itself. The server companion's
 * codes are `ServerCode` (`mcp-elicitation-guard/server`).
 */
export const GuardCode = {
  /** An elicitation (or a `-32042` list) in a mode the host did not declare, the policy disabled, or before the handshake completed. */
  modeNotNegotiated: 'E_MODE_NOT_NEGOTIATED',
  /** A malformed elicitation: no params object, an unknown mode, a missing message, URL or id; also a request id reused while pending. */
  invalidParams: 'E_INVALID_PARAMS',
  /** A form schema outside the spec's flat subset (or a text too long to read whole); `data.fields` names the fields. */
  schemaNotAllowed: 'E_SCHEMA_NOT_ALLOWED',
  /** A form asks for credentials or payment data (or personal data under `form.blockPersonal`); `data.fields` names them. */
  sensitiveField: 'E_SENSITIVE_FIELD',
  /** The URL analysis blocked an elicitation URL; `data.findings` lists the finding codes. */
  urlBlocked: 'E_URL_BLOCKED',
  /** An accepted form answer does not match the requested schema: the server gets `cancel` instead. */
  contentInvalid: 'E_CONTENT_INVALID',
  /** An accepted form answer holds a secret-shaped value: the server gets `cancel` instead. */
  secretInContent: 'E_SECRET_IN_CONTENT',
  /** URL elicitations are stopped by the policy (`issuing: "stopped"`): declined, pending navigations revoked. */
  issuingStopped: 'E_ISSUING_STOPPED',
  /** The guard itself failed while judging an elicitation: it is refused (fail closed). */
  internal: 'E_GUARD_INTERNAL',
  /** The policy file does not validate; the message names the field and the rule. */
  policyInvalid: 'E_POLICY_INVALID',
  /** The policy file cannot be read or is not JSON. */
  policyUnreadable: 'E_POLICY_UNREADABLE',
  /** An argument of a call or a CLI input is not what it must be. */
  input: 'E_INPUT',
  /** URL mode needs a verified user subject (policy `subject.required`) and the host gave none. */
  subjectRequired: 'E_SUBJECT_REQUIRED',
  /** The host sent a request again while the original is still in flight. */
  retryWhileInFlight: 'E_RETRY_WHILE_IN_FLIGHT',
  /** The host retried an operation after -32042 more often than `retry.maxRetries` allows. */
  retryExhausted: 'E_RETRY_EXHAUSTED',
  /** The host retried an operation whose URL elicitation the user declined or cancelled (or another process cancelled it in the ledger). */
  retryNotEligible: 'E_RETRY_NOT_ELIGIBLE',
  /**
   * An elicitation arrived in a shape the connection's protocol era does not carry (an
   * `elicitation/create` pushed on a 2026-07-28 connection, an input-required result or a `-32042`
   * in the wrong era, a connection that mixes both eras): it never reaches the host.
   */
  eraMismatch: 'E_ERA_MISMATCH',
  /** 2026-07-28: the host answered an input key the guard never presented (or refused): the answer is dropped. */
  inputNotPresented: 'E_INPUT_NOT_PRESENTED',
  /** A final answer for this original operation was already accepted. */
  alreadyAccepted: 'E_ALREADY_ACCEPTED',
  /** A URL-mode flow was asked to move along an edge its transition table does not have. */
  illegalTransition: 'E_ILLEGAL_TRANSITION',
  /** No navigation record with that id in the ledger. */
  unknownNavigation: 'E_UNKNOWN_NAVIGATION',
  /** A compare-and-set on a flow's state lost: the stored state was not the expected one. */
  stateConflict: 'E_STATE_CONFLICT',
  /** A navigation record, consent receipt or business receipt failed validation. */
  recordInvalid: 'E_RECORD_INVALID',
  /** A record with that id is already in the ledger. */
  duplicateRecord: 'E_DUPLICATE_RECORD',
  /** The ledger cannot be opened or used: missing driver, closed, newer schema, corrupt row. */
  ledgerUnavailable: 'E_LEDGER_UNAVAILABLE',
  /** The proxy's server exited (or its connection closed) before answering a host request. */
  serverExited: 'E_SERVER_EXITED',
} as const;

export type GuardCode = (typeof GuardCode)[keyof typeof GuardCode];

/**
 * A local error with a stable string code. Never sent on the wire as is. `code` is a `GuardCode`;
 * the server companion throws it with its own `ServerCode`s (`mcp-elicitation-guard/server`).
 */
export class GuardError<C extends string = GuardCode> extends Error {
  override readonly name = 'GuardError';
  readonly code: C;
  readonly details: Readonly<Record<string, unknown>> | undefined;

  constructor(code: C, message: string, details?: Record<string, unknown>) {
    super(message);
    this.code = code;
    this.details = details;
  }

  /** Brand check that works across bundles and realms, unlike `instanceof`. */
  // The brand says it is a GuardError, not which code list it carries (the client's or the server companion's).
  // biome-ignore lint/suspicious/noExplicitAny: the code list is unknown at run time
  static is(value: unknown): value is GuardError<any> {
    return (
      value instanceof Error &&
      (value as { name?: unknown }).name === 'GuardError' &&
      typeof (value as { code?: unknown }).code === 'string'
    );
  }
}

/** Who receives an answer the guard writes in its own name. */
export type AnswerToward = 'server' | 'host';

/**
 * The JSON-RPC code of an answer in the guard's name. Toward the server (an elicitation refused)
 * it is `-32602` invalid params, or `-32603` when the guard itself failed. Toward the host (a host
 * request refused locally, or a server answer replaced) it is `-32600` invalid request for a refused
 * retry, otherwise `-32603`. The guard code always travels in `error.data.code`.
 */
export const WIRE_ANSWERS: { readonly [T in AnswerToward]: { readonly default: number } & { readonly [C in GuardCode]?: number } } =
  Object.freeze({
    server: { default: -32602, E_GUARD_INTERNAL: -32603 },
    host: { default: -32603, E_RETRY_WHILE_IN_FLIGHT: -32600, E_RETRY_EXHAUSTED: -32600, E_RETRY_NOT_ELIGIBLE: -32600 },
  });

/** The wire answer of a guard code: the JSON-RPC code and the `error.data` to send with it. */
export function wireAnswer(
  code: GuardCode,
  toward: AnswerToward,
  data?: Record<string, unknown>,
): { readonly rpc: number; readonly data: Record<string, unknown> } {
  const table = WIRE_ANSWERS[toward];
  return { rpc: table[code] ?? table.default, data: { code, ...data } };
}
