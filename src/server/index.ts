/** `mcp-elicitation-guard/server`: building blocks for MCP servers that use URL-mode elicitation. */

// Stable error codes of the companion (the `code` of the GuardErrors it throws).
export { ServerCode } from './errors.js';

// Secret vaults, URL-elicitation bookkeeping, capability leases and manual approvals.
export type { SecretVault, StoredSecret } from './vault-types.js';
export { EncryptedFileVault, MemorySecretVault, parseVaultKey, VAULT_KEY_ENV } from './vault.js';
export {
  createCompletionRegistry,
  revalidateFormContent,
  urlElicitationRequired,
  type CompleteOptions,
  type CompletionNotifier,
  type CompletionRegistry,
  type CompletionRegistryOptions,
  type IssuedElicitation,
  type IssuedElicitationInput,
  type UrlElicitationEntry,
  type UrlElicitationRequiredOptions,
} from './completion.js';
export { LeaseBook, type LeaseBookOptions } from './leases.js';
export {
  MemoryApprovalQueue,
  type ApprovalDecision,
  type ApprovalOutcome,
  type ApprovalQueue,
  type ApprovalRequest,
  type ApprovalScheduler,
  type MemoryApprovalQueueOptions,
  type PendingApproval,
} from './approvals.js';

// URL elicitations bound to the verified user, and the OAuth connect pages and callback behind them.
export {
  ConnectService,
  connectHandler,
  isCrossAccountBinding,
  isCrossSubjectBinding,
  type ConnectCompletion,
  type ConnectFlowView,
  type ConnectMetrics,
  type ConnectHandlerOptions,
  type ConnectOutcome,
  type ConnectProviderConfig,
  type ConnectServiceOptions,
  type IssueUrlElicitationInput,
  type UrlElicitationParams,
} from './connect.js';
// SDK v2 servers: the 2026-07-28 input-required rounds of a ConnectService (and the 2025 path for legacy requests).
export { ConnectRounds, type ConnectRoundInput, type ConnectRoundsOptions, type ConnectStep } from './connect-rounds.js';
export {
  ConnectCode,
  createConnectAuditLog,
  type ConnectAudit,
  type ConnectAuditLog,
  type ConnectEvent,
  type ConnectEventType,
} from './connect-audit.js';
export {
  MemoryConnectFlowStore,
  type Awaitable,
  type ConnectAttempt,
  type ConnectFlow,
  type ConnectFlowStatus,
  type ConnectFlowStore,
  type StateLookup,
} from './connect-store.js';
// Durable stores: connect flows that survive a restart, and a vault shared by several instances.
export { SqliteConnectFlowStore, type SqliteConnectFlowStoreOptions } from './sqlite-store.js';
export { PostgresConnectFlowStore, PostgresSecretVault, type PostgresStoreOptions } from './postgres-store.js';
export { createSessionCookie, type SessionCookie, type SessionCookieOptions } from './session-cookie.js';
