/**
 * What a URL carries in its query, fragment, path and host labels: credentials, personal and
 * payment data, and redirect targets.
 */
import type { Finding, Severity } from '../protocol/verdict.js';
import type { UrlView } from './canonical.js';
import { UrlFinding } from './codes.js';
import {
  findAuthorizationResponse,
  findCredentials,
  findPreauthenticatedUrl,
  findSecretInHost,
  isCredentialName,
  isSecretContext,
  mayBePrefixedSecret,
} from './credentials.js';
import type { Findings } from './findings.js';
import { hostParts, isLocalhostName } from './host.js';
import { classifyIp } from './ip.js';
import { findLookalike } from './lookalike.js';
import { describePart, normalizeName, urlParts, type UrlPart } from './parts.js';
import { findPersonalData, isPersonalName, type PersonalHit } from './personal.js';
import { isSameOrSubdomain } from './protected.js';
import { findRedirectTargets, isRedirectName, isShortener, pathRedirectTarget, type RedirectTarget } from './redirects.js';
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
    if (p.key === 'clientid' || p.key === 'clientkey') clientId = true;
    else if (p.key.length >= MIN_OAUTH_MARKER && OAUTH_MARKERS.includes(p.key)) marker = true;
  }
  return clientId && marker;
}

/**
 * False only for a part that no content rule can match: a name that no name list knows and that
 * cannot itself be a secret (`nameMayBeSecret`), for a path segment no secret-naming segment
 * before it, and a value that none of the value rules can read. Every rule of `credentials.ts`,
 * `personal.ts` and `redirects.ts` needs one of those (test/url/differential.test.ts holds the
 * gated engine to the ungated reference).
 */
function isKnownName(key: string): boolean {
  const known = KNOWN_NAMES.get(key);
  if (known !== undefined) return known;
  const answer = isCredentialName(key) || isPersonalName(key) || isRedirectName(key);
  // Servers use a few names over and over; a name flood only restarts the memo.
  if (KNOWN_NAMES.size >= MAX_KNOWN_NAMES) KNOWN_NAMES.clear();
  KNOWN_NAMES.set(key, answer);
  return answer;
}

/** `isKnownName` answers by name (it reads only fixed lists), kept for the names seen last. */
const KNOWN_NAMES = new Map<string, boolean>();
const MAX_KNOWN_NAMES = 4096;

function mayCarryData(part: UrlPart): boolean {
  if (part.name !== null) {
    if (nameMayBeSecret(part.name, 0, part.name.length) || isKnownName(part.key)) return true;
  } else if (part.context !== '' && isSecretContext(part.context)) {
    return true;
  }
  return valueMayCarryData(part.value);
}

/**
 * Whether `shapedSecret` can match the name `text.slice(start, end)` itself: 16 characters, or
 * 12 that start like a prefixed key (a `+` read as a space changes neither).
 */
function nameMayBeSecret(text: string, start: number, end: number): boolean {
  const length = end - start;
  return length >= 16 || (length >= 12 && mayBePrefixedSecret(start === 0 && end === text.length ? text : text.slice(start, end)));
}

/**
 * What the value rules need, whatever the name: 16 characters (secret shapes, base64 e-mail), an
 * `@`, `(` or `[` (e-mail), seven digits (phone and card numbers), 15 characters with two digits
 * (IBAN), or 12 characters that start like a prefixed key or like base64 of "http" (`a`). The
 * phone rules read the part's `literal`, which differs from `value` only where a `+` became a
 * space: the same length and the same digits.
 */
function valueMayCarryData(value: string): boolean {
  if (value.length >= 16) return true;
  let digits = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39) digits++;
    else if (c === 0x40 || c === 0x28 || c === 0x5b) return true;
  }
  if (digits >= 7 || (value.length >= 15 && digits >= 2)) return true;
  return value.length >= 12 && (value.charCodeAt(0) === 0x61 || mayBePrefixedSecret(value));
}

/**
 * `valueMayCarryData` of `text.slice(start, end)`, read in place: most values are short and
 * plain, and this answers them without cutting a string.
 */
function rangeMayCarryData(text: string, start: number, end: number): boolean {
  const length = end - start;
  if (length >= 16) return true;
  let digits = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39) digits++;
    else if (c === 0x40 || c === 0x28 || c === 0x5b) return true;
  }
  if (digits >= 7 || (length >= 15 && digits >= 2)) return true;
  return length >= 12 && (text.charCodeAt(start) === 0x61 || mayBePrefixedSecret(text.slice(start, end)));
}

/**
 * False when a `name=value` pair of `text` from `from` on (split at `&`) could pass the content
 * gate, or is named `code` (the authorization-response rule reads every named part, loud or not).
 */
function quietParams(text: string, from: number): boolean {
  let start = from;
  while (start <= text.length) {
    let end = text.indexOf('&', start);
    if (end < 0) end = text.length;
    if (end > start) {
      let eq = start;
      while (eq < end && text.charCodeAt(eq) !== 0x3d) eq++;
      if (nameMayBeSecret(text, start, eq)) return false;
      const key = normalizeName(text.slice(start, eq));
      if (key === 'code' || isKnownName(key)) return false;
      if (eq < end && rangeMayCarryData(text, eq + 1, end)) return false;
    }
    start = end + 1;
  }
  return true;
}

/**
 * True when no part `urlParts` would cut from `url` passes the content gate (`mayCarryData`) and
 * none is named `code`: then no credential, personal-data, authorization-response or parameter
 * redirect rule can match, and the parts need not be built. Read straight from the URL's text,
 * for a URL without percent-escapes and without matrix parameters (`;` in the path), where every
 * part is a plain slice of it; any other URL takes the full path (`urlParts`). A `+` (a space in
 * a query value) changes neither a value's length, its digits, its `@`, `(` or `[`, nor whether
 * it starts with `a` or two letters, and `normalizeName` drops both, so it is read as written. It reads
 * every piece, also past `urlParts`' 256-part cap, so it is never quiet where the parts are not.
 */
function quietTail(url: UrlView): boolean {
  const href = url.href;
  const pathname = url.pathname;
  if (href.indexOf('%') >= 0 || pathname.indexOf(';') >= 0) return false;
  const search = url.search;
  if (search.length > 1 && !quietParams(search, 1)) return false;
  const hash = url.hash;
  if (hash.length > 1) {
    if (rangeMayCarryData(hash, 1, hash.length)) return false;
    const q = hash.indexOf('?', 1);
    const params = q >= 0 ? q + 1 : 1;
    if (hash.indexOf('=', params) >= 0 && !quietParams(hash, params)) return false;
  }
  // Path segments: the value rules, or a secret-naming segment before this one.
  let previous = -1;
  let previousEnd = -1;
  let start = 0;
  while (start <= pathname.length) {
    let end = pathname.indexOf('/', start);
    if (end < 0) end = pathname.length;
    if (end > start) {
      if (rangeMayCarryData(pathname, start, end)) return false;
      if (previous >= 0) {
        const context = normalizeName(pathname.slice(previous, previousEnd));
        if (context !== '' && isSecretContext(context)) return false;
      }
      previous = start;
      previousEnd = end;
    }
    start = end + 1;
  }
  return true;
}

const NO_PARTS: readonly UrlPart[] = Object.freeze([]);

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

export function judgeContent(
  url: UrlView,
  host: HostJudgement,
  settings: Settings,
  findings: Findings,
  analyzeTarget: (href: string) => TargetAnalysis | null,
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

  if (quietTail(url)) {
    judgeRedirects(url, host, settings, findings, NO_PARTS, false, analyzeTarget);
    return;
  }
  const parts = urlParts(url);
  if (parts.length === 0) {
    judgeRedirects(url, host, settings, findings, parts, false, analyzeTarget);
    return;
  }
  const oauth = isOAuthRequest(parts);

  const response = oauth ? null : findAuthorizationResponse(parts, url.pathname);
  if (response !== null) {
    findings.add(
      UrlFinding.credential,
      'error',
      `The URL is an OAuth authorization response: its ${describePart(response.part!)} is ${response.rule}, a ` +
        `pre-authenticated bearer that whoever opens or sees the URL can redeem.`,
    );
  }
  // The content gate: most parts are short values under names no rule knows, and no credential,
  // personal-data or redirect rule can match them; the scans below only see the others.
  const loud = parts.filter(mayCarryData);
  for (const hit of findCredentials(loud, oauth)) {
    findings.add(UrlFinding.credential, 'error', credentialMessage(hit.part === null ? 'the URL' : describePart(hit.part), hit.rule));
  }
  for (const hit of findPersonalData(loud)) {
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

  judgeRedirects(url, host, settings, findings, loud, oauth, analyzeTarget);
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
  analyzeTarget: (href: string) => TargetAnalysis | null,
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
  if (inPath !== null) targets.push({ kind: 'web', part: null, url: inPath, encoded: false });
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
    const analysis = analyzeTarget(target.url.href);
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
