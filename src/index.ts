// The public API of mcp-elicitation-guard: explicit named exports only.

// core
export { createGuard, type Guard, type GuardOptions, type GuardSessionView, type Decision, type GuardMetrics } from './core/index.js';

// adapters
export {
  guardTransport,
  createElicitationHandler,
  presentUrlElicitationRequired,
  pendingFlowControls,
  createTerminalConsentUi,
  systemBrowserOpener,
  functionOpener,
  type ElicitationHandler,
  type ElicitationHandlerOptions,
  type FlowControls,
  type PresentOptions,
  type UrlRequirementOutcome,
  type ConsentUi,
  type UrlReview,
  type FormReview,
  type FormAnswer,
  type UrlDecision,
  type AfterOpenAnswer,
  type TerminalConsentUi,
  type Opener,
} from './adapters/sdk/index.js';

// URL-mode flows, lineages and the ledger
export type { FlowView, OpenTicket } from './core/flows.js';
export { acceptOriginalOperation, type Lineage } from './lineage/index.js';
export { MemoryLedger, SqliteLedger, type Ledger } from './ledger/index.js';
export { PostgresLedger, openLedger, parseLedgerSpec, type PostgresLedgerOptions, type OpenLedgerOptions, type LedgerLocation } from './ledger/index.js';
export { FLOW_STATES, TRANSITIONS, type FlowState, type FlowTrigger, type NavigationRecord, type ConsentReceipt, type BusinessReceipt } from './flow/index.js';

// policy
export { parsePolicy, loadPolicy, defaultPolicy, policyJsonSchema, policySchema, examplePolicy, type Policy, type PolicyDocument, type PolicyInput, type Profile } from './policy/index.js';

// checkers
export { auditForm, checkContent, schemaDigest } from './form/index.js';
export type { FieldClass, FieldReport, FormAudit, ContentCheck } from './form/types.js';
export { analyzeUrl, UrlFinding } from './url/index.js';
export { renderUrl } from './render/index.js';
export type { UrlAnalysis, UrlDisplay, UrlSegment } from './url/types.js';
export { declaredModes, type Modes } from './negotiation/index.js';

// audit
export { createAuditLog, redact, type AuditLog, type GuardEvent, type GuardEventType, type ServerIdentity } from './audit/index.js';
export { describeEvent, readAuditLog, parseAuditLine, matchesFilter, type AuditFilter, type EventLine, type LogLevel } from './audit/index.js';

// wire facts and errors
export { GuardError, GuardCode, Method, RpcCode, GuardMetaKey, requestDigest, verdictOf, type Finding, type Severity, type Verdict } from './protocol/index.js';
export type { ExceptionKind, ExceptionUse } from './protocol/verdict.js';
