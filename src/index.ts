/**
 * The public API of mcp-elicitation-guard: explicit named exports only. What is listed here is a
 * contract (the README documents it); everything else is internal and may change.
 *
 * Deliberately not exported:
 * - the flow book (`FlowBook`), its rulings and the mutable `Lineage` records: the guard owns them,
 *   a host reads flows through `guard.flow()` / `guard.pendingFlows()` and acts through the guard;
 * - the lineage rules, the transition table (`TRANSITIONS`, `TRANSITION_TRIGGERS`) and the raw zod
 *   schemas (the policy's and the records'): a policy is read with `parsePolicy` / `loadPolicy` and
 *   described by `policyJsonSchema`; flow states are named by `FLOW_STATES`;
 * - the wire codecs (`src/wire/`) and the decision executor: adapters use them, hosts use adapters.
 * Tests and tools inside this repository import internals by path.
 */

// core
export { createGuard, type Guard, type GuardOptions, type GuardSessionView, type Decision, type GuardMetrics } from './core/index.js';
export type { GuardEvent, GuardEventType, ServerIdentity } from './core/events.js';

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

// URL-mode flows, at-most-once acceptance and the ledger
export type { FlowView, OpenTicket } from './core/flows.js';
export { acceptOriginalOperation } from './flow/lineage.js';
export { MemoryLedger, SqliteLedger, type Ledger } from './ledger/index.js';
export {
  PostgresLedger,
  openLedger,
  parseLedgerSpec,
  type PostgresLedgerOptions,
  type OpenLedgerOptions,
  type LedgerLocation,
} from './ledger/index.js';
export {
  FLOW_STATES,
  type FlowState,
  type FlowTrigger,
  type NavigationRecord,
  type ConsentReceipt,
  type BusinessReceipt,
} from './flow/index.js';

// policy
export {
  parsePolicy,
  loadPolicy,
  defaultPolicy,
  policyJsonSchema,
  examplePolicy,
  type Policy,
  type PolicyDocument,
  type PolicyInput,
  type Profile,
} from './policy/index.js';

// checkers
export { auditForm, checkContent, schemaDigest } from './form/index.js';
export type { FieldClass, FieldReport, FormAudit, ContentCheck } from './form/types.js';
export { analyzeUrl, UrlFinding } from './url/index.js';
export { renderUrl } from './render/index.js';
export type { UrlAnalysis, UrlDisplay, UrlSegment } from './url/types.js';
export { declaredModes, type Modes } from './negotiation/index.js';

// audit
export { createAuditLog, redact, type AuditLog, type AuditRecord } from './audit/index.js';

// wire facts and errors
export {
  GuardError,
  GuardCode,
  WIRE_ANSWERS,
  Method,
  RpcCode,
  GuardMetaKey,
  requestDigest,
  verdictOf,
  type Finding,
  type Severity,
  type Verdict,
} from './protocol/index.js';
export type { ExceptionKind, ExceptionUse } from './protocol/verdict.js';
