/**
 * What a policy may excuse in a URL, and how. Two narrow mechanisms, both per server and logged:
 *
 * - `servers.<key>.url.allow: [{ domain, reason }]`: on that registrable domain (and its
 *   subdomains), the look-alike and IDN-display findings no longer block or warn.
 * - `url.onBlock: "audit"`: a URL blocked only by look-alike, IDN or allow-list findings reaches the
 *   host with the warning instead (the URL-mode rollout stage).
 *
 * Neither ever applies to a structural block: userinfo, a scheme the profile does not allow, IP
 * hosts, hidden characters, credentials, personal or payment data in the URL, unsafe redirects. Those
 * findings keep their severity whatever the policy says.
 */
import { domainToASCII } from 'node:url';
import type { Policy } from '../policy/policy.js';
import { verdictOf, type ExceptionUse, type Finding } from '../protocol/verdict.js';
import { UrlFinding } from './codes.js';
import type { UrlAnalysis } from './types.js';

/** Findings an `allow` rule for the URL's registrable domain excuses: "is this really that brand?" questions. */
export const EXCUSABLE_BY_DOMAIN: ReadonlySet<string> = new Set([
  UrlFinding.lookalikeHomoglyph,
  UrlFinding.lookalikeTyposquat,
  UrlFinding.lookalikeCombo,
  UrlFinding.lookalikeEmbedded,
  UrlFinding.brandInSubdomain,
  UrlFinding.idnMixedScript,
  UrlFinding.idnWholeScriptConfusable,
  UrlFinding.idnDigitLookalike,
  UrlFinding.idnDisallowedCharacter,
  UrlFinding.idnDeviationCharacter,
  UrlFinding.idnCombiningMark,
  UrlFinding.idnTldCharacter,
  UrlFinding.idnDangerousPattern,
]);

/** Blocks `url.onBlock: "audit"` lets through as warnings: the excusable ones plus the policy's own allow-lists. */
export const AUDITABLE: ReadonlySet<string> = new Set([...EXCUSABLE_BY_DOMAIN, UrlFinding.hostNotAllowed, UrlFinding.redirectNotAllowed]);

function onDomain(hostAscii: string, domain: string): boolean {
  return hostAscii === domain || hostAscii.endsWith('.' + domain);
}

/** Applies the policy's URL exceptions to an analysis. Returns the same object when none applies. */
export function applyUrlExceptions(analysis: UrlAnalysis, policy: Policy): UrlAnalysis {
  // Like the other settings, a missing or malformed policy means the defaults: no exception.
  const settings = (policy as Partial<Policy> | null | undefined)?.url;
  const rules = Array.isArray(settings?.allow) ? settings.allow : undefined;
  const audit = settings?.onBlock === 'audit';
  if ((rules === undefined || rules.length === 0) && !audit) return analysis;
  if (analysis.verdict === 'allow') return analysis;
  let findings: readonly Finding[] = analysis.findings;
  const uses: ExceptionUse[] = [];
  const host = analysis.display.hostAscii;
  if (rules !== undefined && rules.length > 0 && host !== null) {
    const rule = rules.find((r) => onDomain(host, domainToASCII(r.domain).toLowerCase()));
    const excused = rule === undefined ? [] : findings.filter((f) => f.severity !== 'info' && EXCUSABLE_BY_DOMAIN.has(f.code));
    if (rule !== undefined && excused.length > 0) {
      findings = findings.map((f) =>
        excused.includes(f) ? { ...f, severity: 'info' as const, message: `${f.message} (allowed for ${rule.domain}: ${rule.reason})` } : f,
      );
      uses.push({
        type: 'exception.used',
        kind: 'url-domain',
        target: rule.domain,
        reason: rule.reason,
        findings: [...new Set(excused.map((f) => f.code))],
      });
    }
  }
  let audited: string[] = [];
  if (audit && verdictOf(findings) === 'block') {
    const errors = findings.filter((f) => f.severity === 'error');
    if (errors.every((f) => AUDITABLE.has(f.code))) {
      audited = [...new Set(errors.map((f) => f.code))];
      findings = findings.map((f) =>
        f.severity === 'error' ? { ...f, severity: 'warning' as const, message: `${f.message} (would block; url.onBlock is "audit")` } : f,
      );
    }
  }
  if (uses.length === 0 && audited.length === 0) return analysis;
  return {
    ...analysis,
    verdict: verdictOf(findings),
    findings,
    ...(uses.length > 0 ? { exceptions: uses } : {}),
    ...(audited.length > 0 ? { audited } : {}),
  };
}
