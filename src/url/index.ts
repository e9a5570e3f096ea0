export { analyzeUrl } from './analyze.js';
export { UrlFinding, type UrlFindingCode } from './codes.js';
export { applyUrlExceptions, EXCUSABLE_BY_DOMAIN, AUDITABLE } from './exceptions.js';
export {
  isProtectedDomain,
  protectedDomains,
  CURATED_PROTECTED_DOMAINS,
  TOP_SITES_SOURCE,
  CHROMIUM_TOP_DOMAINS_SOURCE,
} from './protected.js';
export { judgeLabel, type LabelProblem } from './idn.js';
export type { UrlAnalysis, UrlDisplay, UrlSegment } from './types.js';
