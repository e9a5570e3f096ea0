export { acceptOriginalOperation, createLineage, ruleOnRetry, type Acceptance, type Lineage, type LineageScope, type RetryRuling, type RequirementProgress } from './lineage.js';
