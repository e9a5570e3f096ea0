/**
 * Stable guard codes. On the wire they travel in `error.data.code` next to a JSON-RPC code;
 * locally they are the `code` of a `GuardError`, which never crosses the wire itself.
 */
export const GuardCode = {
  modeNotNegotiated: 'E_MODE_NOT_NEGOTIATED',
  notInitialized: 'E_NOT_INITIALIZED',
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
