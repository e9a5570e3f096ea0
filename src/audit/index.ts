export { redact } from './redact.js';
export { createAuditLog, type AuditLog, type AuditRecord } from './log.js';
