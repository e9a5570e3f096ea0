export { acceptOriginalOperation, createLineage, ruleOnRetry, type Acceptance, type Lineage, type LineageScope, type RetryRuling } from './lineage.js';
