// The public API of mcp-elicitation-guard: explicit named exports only.

// core
export { createGuard, type Guard, type GuardOptions, type GuardSessionView, type Decision, type GuardMetrics } from './core/index.js';

// adapters
export { guardTransport } from './adapters/sdk/index.js';

// policy
export { parsePolicy, loadPolicy, defaultPolicy, policyJsonSchema, policySchema, examplePolicy, type Policy, type PolicyDocument, type PolicyInput, type Profile } from './policy/index.js';

// checkers
export { auditForm, checkContent } from './form/index.js';
export type { FieldClass, FieldReport, FormAudit, ContentCheck } from './form/types.js';
export { analyzeUrl } from './url/index.js';
export type { UrlAnalysis, UrlDisplay, UrlSegment } from './url/types.js';
export { declaredModes, type Modes } from './negotiation/index.js';

// audit
export { createAuditLog, redact, type AuditLog, type GuardEvent, type GuardEventType, type ServerIdentity } from './audit/index.js';

// wire facts and errors
export { GuardError, GuardCode, Method, RpcCode, GuardMetaKey, requestDigest, verdictOf, type Finding, type Severity, type Verdict } from './protocol/index.js';
