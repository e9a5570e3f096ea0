/**
 * What a URL carries in its query, fragment, path and host labels: credentials, personal and
 * payment data, and redirect targets.
 */
import type { Severity } from '../../../../src/protocol/verdict.js';
import type { UrlView } from './canonical.js';
import { UrlFinding } from './codes.js';
import { findAuthorizationResponse, findCredentials, findPreauthenticatedUrl, findSecretInHost } from './credentials.js';
import type { Findings } from './findings.js';
import { hostParts, isLocalhostName } from './host.js';
import { classifyIp } from './ip.js';
import { findLookalike } from './lookalike.js';
import { describePart, urlParts, type UrlPart } from './parts.js';
import { findPersonalData, type PersonalHit } from './personal.js';
import { isSameOrSubdomain } from './protected.js';
import { findRedirectTargets } from './redirects.js';
import { hostSet, type Settings } from './settings.js';
import type { HostJudgement } from './structure.js';

const OAUTH_MARKERS = ['responsetype', 'redirecturi', 'codechallenge', 'scope', 'request', 'requesturi'];
/** The shortest marker's length: shorter keys (`q`, `id`) skip the list. */
const MIN_OAUTH_MARKER = 5;

/** An OAuth 2.0 / OIDC authorization request: a `client_id` plus one of its companions. */
function isOAuthRequest(parts: readonly UrlPart[]): boolean {
  let clientId = false;
  let marker = false;
  for (const p of parts) {
    if (p.where !== 'query' || p.name === null) continue;
    if (p.key === 'clientid') clientId = true;
    else if (p.key.length >= MIN_OAUTH_MARKER && OAUTH_MARKERS.includes(p.key)) marker = true;
  }
  return clientId && marker;
}

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

export function judgeContent(url: UrlView, host: HostJudgement, settings: Settings, findings: Findings): void {
  const preauthenticated = findPreauthenticatedUrl(url.hostname, url.pathname, host.parts?.registrable ?? null);
  if (preauthenticated !== null) findings.add(UrlFinding.credential, 'error', `The URL is ${preauthenticated.rule}: whoever holds it can use it, so it must not be shown or logged.`);
  const inHost = findSecretInHost(url.hostname);
  if (inHost !== null) findings.add(UrlFinding.credential, 'error', credentialMessage('the host name', inHost.rule));

  const parts = urlParts(url);
  if (parts.length === 0) return;
  const oauth = isOAuthRequest(parts);

  const response = oauth ? null : findAuthorizationResponse(parts, url.pathname);
  if (response !== null) {
    findings.add(UrlFinding.credential, 'error', `The URL is an OAuth authorization response: its ${describePart(response.part!)} is ${response.rule}, a pre-authenticated bearer that whoever opens or sees the URL can redeem.`);
  }
  for (const hit of findCredentials(parts, oauth)) {
    findings.add(UrlFinding.credential, 'error', credentialMessage(hit.part === null ? 'the URL' : describePart(hit.part), hit.rule));
  }
  for (const hit of findPersonalData(parts)) {
    const what = DATA_WORDS[hit.kind];
    if (hit.payment) {
      findings.add(UrlFinding.paymentData, 'error', `The URL carries ${what} in ${describePart(hit.part)}; payment data must never travel in a URL.`);
    } else if (hit.part.key === 'loginhint') {
      findings.add(UrlFinding.personalData, 'error', `The sign-in link carries ${what} as a login hint; personal data must not travel in an elicitation URL (it is logged and shared).`);
    } else {
      findings.add(UrlFinding.personalData, 'error', `The URL carries ${what} in ${describePart(hit.part)}; a URL is logged and shared, so personal data in it leaks.`);
    }
  }

  const ownSite = host.parts?.registrable ?? null;
  const redirectSet = settings.redirectHosts.length > 0 ? hostSet(settings.redirectHosts) : null;
  for (const target of findRedirectTargets(parts, url.href)) {
    const where = describePart(target.part);
    if (target.kind === 'script') {
      findings.add(UrlFinding.redirectUnsafe, 'error', `The ${where} points to a "${target.scheme}:" URL, which runs code or opens local data instead of a web page.`);
      continue;
    }
    const targetHost = target.url.hostname;
    const ip = classifyIp(targetHost, targetHost);
    if (isLocalhostName(targetHost) || ip?.loopback === true) {
      findings.add(UrlFinding.redirectLoopback, 'info', `The ${where} sends the result to this computer (${targetHost}), as native apps do.`);
      continue;
    }
    const targetParts = ip === null ? hostParts(targetHost) : null;
    if (targetParts !== null && targetParts.registrable !== null && targetParts.registrable === ownSite) continue;
    if (redirectSet !== null && !isSameOrSubdomain(targetHost, redirectSet)) {
      findings.add(UrlFinding.redirectNotAllowed, 'error', `The ${where} points to ${targetHost}, which is not in the policy's redirect hosts.`);
      continue;
    }
    const lookalike = targetParts !== null && targetParts.registrable !== null ? findLookalike(targetParts, settings.protectedDomains) : null;
    if (lookalike !== null && lookalike.severity === 'error') {
      findings.add(UrlFinding.redirectUnsafe, 'error', `The ${where} points to ${targetHost}, which imitates ${lookalike.target}.`);
      continue;
    }
    if (ip !== null || (targetParts !== null && (targetParts.registrable === null || !targetParts.knownSuffix))) {
      findings.add(UrlFinding.redirectUnsafe, 'error', `The ${where} points to ${targetHost}, which is not a registrable domain.`);
      continue;
    }
    const severity: Severity = oauth && target.part.key === 'redirecturi' ? 'info' : 'warning';
    findings.add(UrlFinding.redirectOffsite, severity, `The ${where} sends you on to another site: ${targetHost}.`);
  }
}

