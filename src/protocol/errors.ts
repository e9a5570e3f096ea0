/**
 * Stable guard codes. On the wire they travel in `error.data.code` next to a JSON-RPC code;
 * locally they are the `code` of a `GuardError`, which never crosses the wire itself.
 */
export const GuardCode = {
  modeNotNegotiated: 'E_MODE_NOT_NEGOTIATED',
  invalidParams: 'E_INVALID_PARAMS',
  schemaNotAllowed: 'E_SCHEMA_NOT_ALLOWED',
  sensitiveField: 'E_SENSITIVE_FIELD',
  urlBlocked: 'E_URL_BLOCKED',
  contentInvalid: 'E_CONTENT_INVALID',
  secretInContent: 'E_SECRET_IN_CONTENT',
  issuingStopped: 'E_ISSUING_STOPPED',
  internal: 'E_GUARD_INTERNAL',
  policyInvalid: 'E_POLICY_INVALID',
  policyUnreadable: 'E_POLICY_UNREADABLE',
  input: 'E_INPUT',
  /** URL mode needs a verified user subject (policy `subject.required`) and the host gave none. */
  subjectRequired: 'E_SUBJECT_REQUIRED',
  /** The host sent a request again while the original is still in flight. */
  retryWhileInFlight: 'E_RETRY_WHILE_IN_FLIGHT',
  /** The host retried an operation after -32042 more often than `retry.maxRetries` allows. */
  retryExhausted: 'E_RETRY_EXHAUSTED',
  /** The host retried an operation whose URL elicitation the user declined or cancelled. */
  retryNotEligible: 'E_RETRY_NOT_ELIGIBLE',
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
  /** `MCP_GUARD_VAULT_KEY` is not set (or empty): the encrypted vault has no key. */
  vaultKeyMissing: 'E_VAULT_KEY_MISSING',
  /** The vault key is not base64 of exactly 32 bytes. */
  vaultKeyInvalid: 'E_VAULT_KEY_INVALID',
  /** A vault record failed authentication: the file was altered, a record was moved, or the key is wrong. */
  vaultAuthFailed: 'E_VAULT_AUTH_FAILED',
  /** The vault file is not a vault: bad JSON, unknown version or a malformed record. */
  vaultCorrupt: 'E_VAULT_CORRUPT',
  /** The vault file cannot be read or written (permissions, disk). */
  vaultUnavailable: 'E_VAULT_UNAVAILABLE',
  /** A URL elicitation a server is about to send is malformed (mode, id, https URL, message). */
  urlElicitationInvalid: 'E_URL_ELICITATION_INVALID',
  /** An elicitation id was registered while it is still open or was recently completed. */
  duplicateElicitation: 'E_DUPLICATE_ELICITATION',
  /** An approver tried to approve their own request. */
  selfApproval: 'E_SELF_APPROVAL',
  /** No pending approval with that id: unknown, already decided or expired. */
  unknownApproval: 'E_UNKNOWN_APPROVAL',
  /** The approval queue is at its cap of pending requests. */
  approvalQueueFull: 'E_APPROVAL_QUEUE_FULL',
  /** The proxy's server exited (or its connection closed) before answering a host request. */
  serverExited: 'E_SERVER_EXITED',
} as const;

export type GuardCode = (typeof GuardCode)[keyof typeof GuardCode];

/** A local error with a stable string code. Never sent on the wire as is. */
export class GuardError extends Error {
  override readonly name = 'GuardError';
  readonly code: string;
  readonly details: Readonly<Record<string, unknown>> | undefined;

  constructor(code: string, message: string, details?: Record<string, unknown>) {
    super(message);
    this.code = code;
    this.details = details;
  }

  /** Brand check that works across bundles and realms, unlike `instanceof`. */
  static is(value: unknown): value is GuardError {
    return value instanceof Error && (value as { name?: unknown }).name === 'GuardError' && typeof (value as { code?: unknown }).code === 'string';
  }
}
