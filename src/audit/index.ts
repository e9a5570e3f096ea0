export type { GuardEvent, GuardEventType, ServerIdentity } from './events.js';
export { redact } from './redact.js';
export { createAuditLog, type AuditLog } from './log.js';
export { describeEvent, shouldLog, LOG_LEVELS, type EventLine, type LogLevel } from './describe.js';
export { parseAuditLine, matchesFilter, readAuditLog, decisionOf, type AuditFilter, type ReadStats } from './read.js';
