import type { Policy } from '../policy/policy.js';
import { GuardCode } from '../protocol/errors.js';
import type { Finding, Verdict } from '../protocol/verdict.js';
import { analyzeUrl } from '../url/index.js';
import type { UrlDisplay } from '../url/types.js';

/** What the commands report for one URL; `display` is `null` only when the engine itself failed. */
export interface Judgement {
  readonly verdict: Verdict;
  readonly findings: readonly Finding[];
  readonly display: UrlDisplay | null;
}

const INTERNAL_FINDING: Finding = {
  code: GuardCode.internal,
  severity: 'error',
  message: 'the URL check failed internally; the URL is blocked',
};
const INTERNAL_FAILURE: Judgement = Object.freeze({ verdict: 'block', findings: Object.freeze([INTERNAL_FINDING]), display: null });

/** `analyzeUrl`, failing closed: a throw never lets a URL through, it blocks it. */
export function judgeUrl(url: string, policy: Policy): Judgement {
  try {
    return analyzeUrl(url, policy);
  } catch {
    return INTERNAL_FAILURE;
  }
}
