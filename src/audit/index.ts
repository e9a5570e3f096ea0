export type { GuardEvent, GuardEventType, ServerIdentity } from './events.js';
export { redact } from './redact.js';
export { createAuditLog, type AuditLog } from './log.js';
