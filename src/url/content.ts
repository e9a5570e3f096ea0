/**
 * What a URL carries in its query, fragment, path and host labels: credentials, personal and
 * payment data, and redirect targets.
 */
import type { Finding, Severity } from '../protocol/verdict.js';
import type { UrlView } from './canonical.js';
import { UrlFinding } from './codes.js';
import { findAuthorizationResponse, findCredentials, findPreauthenticatedUrl, findSecretInHost } from './credentials.js';
import type { Findings } from './findings.js';
import { hostParts, isLocalhostName } from './host.js';
import { classifyIp } from './ip.js';
import { findLookalike } from './lookalike.js';
import { contentParts } from './gate.js';
import { describePart, type UrlPart } from './parts.js';
import { CENSUS_STRIDE, findPersonalData, type PersonalHit } from './personal.js';
import { isSameOrSubdomain } from './protected.js';
import { findRedirectTargets, isShortener, pathRedirectTarget, type RedirectTarget } from './redirects.js';
import { hostSet, type Settings } from './settings.js';
import type { HostJudgement } from './structure.js';

const DATA_WORDS: Record<PersonalHit['kind'], string> = {
  email: 'an e-mail address',
  phone: 'a phone number',
  identity: 'an identity number',
  'birth-date': 'a date of birth',
  'ip-address': 'an IP address',
  location: 'a precise location',
  'postal-address': 'a postal address',
  card: 'a payment card number',
  'card-code': 'a card security code',
  iban: 'an IBAN',
  'bank-account': 'a bank account number',
};

function credentialMessage(where: string, rule: string): string {
  return `The URL carries a credential in ${where} (${rule}); a URL is logged and shared, so anything in it leaks.`;
}

/** What the analysis of a redirect target tells about it: its findings and its host as shown. */
export interface TargetAnalysis {
  readonly findings: readonly Finding[];
  readonly shownHost: string | null;
}

/**
 * Analyses a redirect target like the URL itself; `view` is `canonicalView(href)` when the caller
 * already read it (null: not read, or not canonical). Null when the analysis would nest too deep.
 */
export type TargetAnalyzer = (href: string, view: UrlView | null) => TargetAnalysis | null;

export function judgeContent(
  url: UrlView,
  host: HostJudgement,
  settings: Settings,
  findings: Findings,
  analyzeTarget: TargetAnalyzer,
): void {
  const preauthenticated = findPreauthenticatedUrl(url.hostname, url.pathname, host.parts?.registrable ?? null);
  if (preauthenticated !== null)
    findings.add(
      UrlFinding.credential,
      'error',
      `The URL is ${preauthenticated.rule}: whoever holds it can use it, so it must not be shown or logged.`,
    );
  const inHost = findSecretInHost(url.hostname);
  if (inHost !== null) findings.add(UrlFinding.credential, 'error', credentialMessage('the host name', inHost.rule));

  const { loud, oauth, response: responseParts } = contentParts(url);
  const response = oauth || responseParts.length === 0 ? null : findAuthorizationResponse(responseParts, url.pathname);
  if (response !== null) {
    findings.add(
      UrlFinding.credential,
      'error',
      `The URL is an OAuth authorization response: its ${describePart(response.part!)} is ${response.rule}, a ` +
        `pre-authenticated bearer that whoever opens or sees the URL can redeem.`,
    );
  }
  // The content gate (`gate.ts`) let through only the parts a rule can match: most URLs have none.
  if (loud.length > 0) judgeParts(loud, oauth, findings);
  judgeRedirects(url, host, settings, findings, loud, oauth, analyzeTarget);
}

/** The censuses of one `judgeParts` call (it runs to its end before the next), grown as needed. */
let censusBuffer = new Int32Array(16 * CENSUS_STRIDE);

/** The credential and personal-data rules on the parts that passed the gate. */
function judgeParts(loud: readonly UrlPart[], oauth: boolean, findings: Findings): void {
  // The secret screen counts what the personal-data rules read of each value it reads whole.
  const size = loud.length * CENSUS_STRIDE;
  if (censusBuffer.length < size) censusBuffer = new Int32Array(size);
  const census = censusBuffer;
  // A loop rather than `fill`: a few dozen numbers, and the call into the built-in costs more.
  for (let i = 0; i < size; i++) census[i] = 0;
  for (const hit of findCredentials(loud, oauth, census)) {
    findings.add(UrlFinding.credential, 'error', credentialMessage(hit.part === null ? 'the URL' : describePart(hit.part), hit.rule));
  }
  for (const hit of findPersonalData(loud, census)) {
    const what = DATA_WORDS[hit.kind];
    if (hit.payment) {
      findings.add(
        UrlFinding.paymentData,
        'error',
        `The URL carries ${what} in ${describePart(hit.part)}; payment data must never travel in a URL.`,
      );
    } else if (hit.part.key === 'loginhint') {
      findings.add(
        UrlFinding.personalData,
        'error',
        `The sign-in link carries ${what} as a login hint; personal data must not travel in an elicitation URL (it is logged and shared).`,
      );
    } else {
      findings.add(
        UrlFinding.personalData,
        'error',
        `The URL carries ${what} in ${describePart(hit.part)}; a URL is logged and shared, so personal data in it leaks.`,
      );
    }
  }
}

/** What a redirect target's own analysis found that makes it blocked (http alone does not: native and test clients use it). */
function blockingReason(analysis: TargetAnalysis): string | null {
  for (const f of analysis.findings) if (f.severity === 'error' && f.code !== UrlFinding.scheme) return f.message;
  return null;
}

function targetWhere(target: RedirectTarget): string {
  const where = target.part === null ? 'path' : describePart(target.part);
  return target.encoded ? `${where} (a base64-encoded URL)` : where;
}

/**
 * Redirect-like parameters, base64-encoded URLs, a redirector's path target, and shorteners.
 * Every target is shown and analysed like the URL itself (`analyzeTarget`; null when the
 * analysis would nest too deep): a target that would be blocked blocks, another site warns, the
 * `redirect_uri` of an OAuth authorization request is information, and the policy's
 * `redirectHosts` (per server) turn any other target into a block.
 */
function judgeRedirects(
  url: UrlView,
  host: HostJudgement,
  settings: Settings,
  findings: Findings,
  parts: readonly UrlPart[],
  oauth: boolean,
  analyzeTarget: TargetAnalyzer,
): void {
  const ownSite = host.parts?.registrable ?? null;
  if (ownSite !== null && url.pathname.length > 1 && isShortener(ownSite)) {
    findings.add(
      UrlFinding.shortener,
      'warning',
      `The link goes through ${ownSite}, a URL shortener or redirector: where it leads cannot be shown before it is opened.`,
    );
  }
  const targets = parts.length === 0 ? [] : findRedirectTargets(parts, url.href);
  const inPath = pathRedirectTarget(host.parts?.label ?? null, url.pathname);
  if (inPath !== null) targets.push({ kind: 'web', part: null, url: inPath, encoded: false, view: null });
  if (targets.length === 0) return;
  const redirectSet = settings.redirectHosts.length > 0 ? hostSet(settings.redirectHosts) : null;
  for (const target of targets) {
    const where = targetWhere(target);
    if (target.kind === 'script') {
      findings.add(
        UrlFinding.redirectUnsafe,
        'error',
        `The ${where} points to a "${target.scheme}:" URL, which runs code or opens local data instead of a web page.`,
      );
      continue;
    }
    const targetHost = target.url.hostname;
    const ip = classifyIp(targetHost, targetHost);
    if (isLocalhostName(targetHost) || ip?.loopback === true) {
      findings.add(
        UrlFinding.redirectLoopback,
        'info',
        `The ${where} sends the result to this computer (${targetHost}), as native apps do.`,
      );
      continue;
    }
    const targetParts = ip === null ? hostParts(targetHost) : null;
    if (targetParts !== null && targetParts.registrable !== null && targetParts.registrable === ownSite) continue;
    if (redirectSet !== null && !isSameOrSubdomain(targetHost, redirectSet)) {
      findings.add(
        UrlFinding.redirectNotAllowed,
        'error',
        `The ${where} points to ${targetHost}, which is not in the policy's redirect hosts.`,
      );
      continue;
    }
    if (ip !== null || (targetParts !== null && (targetParts.registrable === null || !targetParts.knownSuffix))) {
      findings.add(UrlFinding.redirectUnsafe, 'error', `The ${where} points to ${targetHost}, which is not a registrable domain.`);
      continue;
    }
    const lookalike =
      targetParts !== null && targetParts.registrable !== null ? findLookalike(targetParts, settings.protectedDomains) : null;
    if (lookalike !== null && lookalike.severity === 'error') {
      findings.add(UrlFinding.redirectUnsafe, 'error', `The ${where} points to ${targetHost}, which imitates ${lookalike.target}.`);
      continue;
    }
    const analysis = analyzeTarget(target.url.href, target.view);
    const reason = analysis === null ? null : blockingReason(analysis);
    if (reason !== null) {
      findings.add(UrlFinding.redirectUnsafe, 'error', `The ${where} points to ${targetHost}, which would itself be blocked: ${reason}`);
      continue;
    }
    const severity: Severity = oauth && target.part?.key === 'redirecturi' ? 'info' : 'warning';
    const shown = analysis?.shownHost ?? targetHost;
    const hop =
      analysis !== null && analysis.findings.some((f) => f.code === UrlFinding.shortener)
        ? ' (a URL shortener: its final target cannot be shown)'
        : '';
    findings.add(UrlFinding.redirectOffsite, severity, `The ${where} sends you on to another site: ${shown}${hop}.`);
  }
}
