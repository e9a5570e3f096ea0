export { createGuard, type Guard, type GuardOptions, type GuardSessionView } from './guard.js';
export type { Decision } from './decision.js';
export type { GuardMetrics } from './metrics.js';
