/**
 * Stable codes of the server companion (`mcp-elicitation-guard/server`): the vault, URL elicitations
 * a server is about to send, and manual approvals. They are the `code` of a `GuardError` thrown by
 * the companion, local to the server, never sent on the wire. Codes shared with the client side
 * (`E_INPUT`, `E_GUARD_INTERNAL`, `E_SUBJECT_REQUIRED`, `E_SECRET_IN_CONTENT`) stay in `GuardCode`.
 */
export const ServerCode = {
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
  /**
   * 2026-07-28: a retry's `requestState` is not one this server's `ConnectRounds` signed for this
   * request: malformed, tampered with (bad MAC), signed with another key, expired, or bound to
   * another subject, provider or method (`details.reason`).
   */
  requestStateInvalid: 'E_REQUEST_STATE_INVALID',
  /** 2026-07-28: a `requestState` whose flow already let its tool go on once (a replay after success). */
  requestStateReplayed: 'E_REQUEST_STATE_REPLAYED',
  /**
   * 2026-07-28: the connect flow a valid `requestState` names has ended without a token: retired
   * by a refused callback, expired, or no longer known. The user starts again by calling the tool.
   */
  connectFlowEnded: 'E_CONNECT_FLOW_ENDED',
} as const;

export type ServerCode = (typeof ServerCode)[keyof typeof ServerCode];
