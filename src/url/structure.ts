/**
 * The structure of a URL: what the raw text hides (control, invisible and bidi characters,
 * backslashes), the scheme, userinfo, IP literals in every notation, host spelling and DNS limits,
 * the registrable domain, special-use names, the allow list, the script rules of each label and
 * look-alikes of protected domains.
 */
import { rawAuthority, type UrlView } from './canonical.js';
import { describeCodePoints, type HiddenCharacter, type HiddenKind } from './characters.js';
import { UrlFinding, type UrlFindingCode } from './codes.js';
import type { Findings } from './findings.js';
import { hostParts, isLocalhostName, labelsOf, toUnicodeHost, type HostParts } from './host.js';
import { judgeLabel } from './idn.js';
import { classifyIp } from './ip.js';
import { findLookalike } from './lookalike.js';
import { isProtectedDomain, isSameOrSubdomain } from './protected.js';
import { hostSet, type Settings } from './settings.js';

const MAX_HOST_LENGTH = 253;
const MAX_LABEL_LENGTH = 63;

const HIDDEN_CODES: Record<HiddenKind, readonly [UrlFindingCode, string]> = {
  control: [UrlFinding.controlCharacter, 'control characters'],
  bidi: [UrlFinding.bidiControl, 'bidirectional text controls'],
  invisible: [UrlFinding.invisibleCharacter, 'invisible characters'],
};

export function reportHidden(findings: Findings, hidden: readonly HiddenCharacter[]): void {
  if (hidden.length === 0) return;
  for (const kind of ['control', 'bidi', 'invisible'] as const) {
    const ofKind = hidden.filter((h) => h.kind === kind);
    if (ofKind.length === 0) continue;
    const [code, words] = HIDDEN_CODES[kind];
    findings.add(code, 'error', `The URL contains ${words} (${describeCodePoints(ofKind)}) that hide or change what is shown.`);
  }
}

export interface HostJudgement {
  readonly parts: HostParts | null;
  readonly unicodeSafe: boolean;
}

const EMPTY_LABEL = 1;
const TOO_LONG = 2;
const BAD_CHARACTER = 4;

/** One pass over a canonical host: empty labels, DNS lengths, characters outside a domain name (bit flags). */
function scanHost(host: string): number {
  let flags = host.length === 0 ? EMPTY_LABEL : 0;
  if (host.length > MAX_HOST_LENGTH) flags |= TOO_LONG;
  let labelStart = 0;
  for (let i = 0; i <= host.length; i++) {
    const c = i < host.length ? host.charCodeAt(i) : 0x2e;
    if (c === 0x2e) {
      const length = i - labelStart;
      if (length === 0) flags |= EMPTY_LABEL;
      if (length > MAX_LABEL_LENGTH) flags |= TOO_LONG;
      labelStart = i + 1;
    } else if (!((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x5f)) {
      flags |= BAD_CHARACTER;
    }
  }
  return flags;
}

// Special-use and reserved names (RFC 6761, 6762, 7686, 8375, 9476; ICANN's .internal) and the
// private top-level names networks commonly use.
const SPECIAL_USE_TLDS = [
  'local',
  'localdomain',
  'internal',
  'intranet',
  'lan',
  'test',
  'example',
  'invalid',
  'onion',
  'alt',
  'corp',
  'private',
];
// The last label of a suffix, when it is one of those or `arpa`: one regex test per host instead
// of cutting the last label out of every suffix and looking it up.
const SPECIAL_USE_TLD = new RegExp(`(?:^|\\.)(${[...SPECIAL_USE_TLDS, 'arpa'].join('|')})$`);

// The shape of those names: for each first letter, the lengths (one bit each) of the names that
// start with it. A last label of another shape (`com`, `net`, `de`, `io`) skips the regex: a last
// letter alone let a quarter of the hosts through (every `.net`, `.de`, `.jp`, `.in`).
const SPECIAL_USE_SHAPE = new Uint16Array(128);
for (const name of [...SPECIAL_USE_TLDS, 'arpa']) SPECIAL_USE_SHAPE[name.charCodeAt(0)]! |= 1 << name.length;

/** True when the last label of `suffix` has the first letter and length of a special-use name. */
function specialUseShape(suffix: string): boolean {
  let start = suffix.length;
  while (start > 0 && suffix.charCodeAt(start - 1) !== 0x2e) start--;
  const first = suffix.charCodeAt(start);
  const length = suffix.length - start;
  return first < 128 && length < 16 && (SPECIAL_USE_SHAPE[first]! & (1 << length)) !== 0;
}

/** The special-use name a host is under, from its public suffix (tldts treats unknown TLDs as suffixes). */
function specialUseSuffix(host: string, suffix: string | null): string | null {
  if (suffix === null || !specialUseShape(suffix)) return null;
  const tld = SPECIAL_USE_TLD.exec(suffix)?.[1];
  if (tld === undefined) return null;
  if (tld !== 'arpa') return tld;
  return host === 'home.arpa' || host.endsWith('.home.arpa') ? 'home.arpa' : null;
}

// A host name right after an `@` outside the authority (`#@paypal.com`, `/@paypal.com`), where an
// e-mail address would have its local part instead.
const AT_HOST = /(?<![A-Za-z0-9._%+-])@([A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+)/g;

export function decoyHost(url: UrlView, ownSite: string | null, protectedExtra: readonly string[]): string | null {
  if (!url.pathname.includes('@') && !url.search.includes('@') && !url.hash.includes('@')) return null;
  const tail = url.pathname + url.search + url.hash;
  for (const m of tail.matchAll(AT_HOST)) {
    const candidate = m[1]!.toLowerCase();
    if (!isProtectedDomain(candidate, protectedExtra)) continue;
    if (ownSite !== null && (candidate === ownSite || candidate.endsWith('.' + ownSite))) continue;
    return candidate;
  }
  return null;
}

function looksLikeIpLiteral(host: string): boolean {
  if (host.length === 0) return false;
  const last = host.charCodeAt(host.length - 1);
  return host.charCodeAt(0) === 0x5b || (last >= 0x30 && last <= 0x39);
}

/**
 * What the host as written shows (userinfo, an IP address in any notation, percent-escapes,
 * empty or long labels, characters outside a domain name, compatibility characters) next to what
 * the parser made of it. True when the host is an IP address (its findings are then complete).
 */
function writtenHost(url: UrlView, input: string, plain: boolean, http: boolean, settings: Settings, findings: Findings): boolean {
  const host = url.hostname;
  const maybeIp = looksLikeIpLiteral(host);
  // The raw authority matters only when the input could hide something there.
  const raw = maybeIp || !plain ? rawAuthority(input) : null;
  const rawHost = raw?.host ?? host;

  if (url.username !== '' || url.password !== '' || (raw !== null && raw.userinfo !== null)) {
    findings.add(
      UrlFinding.userinfo,
      'error',
      'The URL carries a user name or password before the host ("user:pass@host"), a common way to disguise the real host.',
    );
  }

  const ip = maybeIp ? classifyIp(host, rawHost) : null;
  if (ip !== null) {
    if (ip.obfuscated) {
      findings.add(UrlFinding.ipObfuscated, 'error', `The host is the IP address ${host} written as ${ip.notation}.`);
    } else if (settings.development && ip.loopback) {
      findings.add(UrlFinding.loopbackDevelopment, 'info', `Loopback address ${host} allowed by the development profile.`);
    } else {
      findings.add(UrlFinding.ipHost, 'error', `The host is an IP address (${host}), not a domain name.`);
    }
    if (http && !(settings.development && ip.loopback && !ip.obfuscated)) schemeFinding(findings, settings, 'http');
    return true;
  }

  if (raw !== null && rawHost.includes('%'))
    findings.add(UrlFinding.hostPercentEncoded, 'error', `The host was written with percent-escapes; it is really ${host}.`);
  const scan = scanHost(host);
  if (scan & EMPTY_LABEL)
    findings.add(UrlFinding.emptyLabel, 'error', `The host ${host} has an empty label (a leading, doubled or trailing dot).`);
  if (scan & TOO_LONG)
    findings.add(
      UrlFinding.hostTooLong,
      'error',
      `The host is longer than DNS allows (${MAX_HOST_LENGTH} characters, ${MAX_LABEL_LENGTH} per label).`,
    );
  if (scan & BAD_CHARACTER)
    findings.add(UrlFinding.hostCharacter, 'error', 'The host contains characters that are not allowed in a domain name.');
  if (!plain && /[^\x00-\x7f]/.test(rawHost)) {
    const lower = rawHost.toLowerCase();
    // A string that NFKC leaves as it is is in NFC too: the second normalisation runs only when NFKC changes it.
    const nfkc = lower.normalize('NFKC');
    if (/[\u3002\uff0e\uff61]/.test(lower) || (nfkc !== lower && nfkc !== lower.normalize('NFC'))) {
      findings.add(
        UrlFinding.hostNormalized,
        'error',
        `The host was written with look-alike compatibility characters (fullwidth or styled letters, ligatures, ideographic ` +
          `full stops); it is really ${toUnicodeHost(host)}.`,
      );
    }
  }
  return false;
}

/** The judgement of a host that is not a domain name (an IP literal, a loopback name): shown as it is. */
const NOT_A_DOMAIN: HostJudgement = Object.freeze({ parts: null, unicodeSafe: true });

/**
 * Judges the host of a web URL. `canonical` says that `url` is the input as written and passed
 * `canonicalView`: then its host is lower-case letters, digits and hyphens in labels of 1 to 63
 * characters, at most 253 long, the last label starting with a letter, so it cannot be an IP
 * address and holds nothing `writtenHost` looks for.
 */
export function judgeHost(
  url: UrlView,
  input: string,
  plain: boolean,
  canonical: boolean,
  settings: Settings,
  findings: Findings,
): HostJudgement {
  const host = url.hostname;
  const http = url.protocol === 'http:';
  if (!canonical && writtenHost(url, input, plain, http, settings, findings)) return NOT_A_DOMAIN;

  if (isLocalhostName(host)) {
    if (settings.development) {
      findings.add(UrlFinding.loopbackDevelopment, 'info', `Loopback host ${host} allowed by the development profile.`);
      return NOT_A_DOMAIN;
    }
    findings.add(
      UrlFinding.noRegistrableDomain,
      'error',
      `The host ${host} points to this computer; loopback hosts are allowed only in the development profile.`,
    );
    if (http) schemeFinding(findings, settings, 'http');
    return NOT_A_DOMAIN;
  }

  if (http) schemeFinding(findings, settings, 'http');
  const parts = hostParts(host);
  const special = specialUseSuffix(host, parts.suffix);
  if (special !== null) {
    findings.add(
      UrlFinding.specialUseHost,
      'error',
      `The host ${parts.unicode} is under ".${special}", a special-use name that is not on the public internet.`,
    );
    return { parts, unicodeSafe: !parts.idn };
  }
  if (!parts.knownSuffix) {
    findings.add(
      UrlFinding.unknownSuffix,
      'error',
      `The top-level domain of ${parts.unicode} is not a public suffix, so the host has no registrable owner.`,
    );
  } else if (parts.registrable === null) {
    findings.add(UrlFinding.noRegistrableDomain, 'error', `The host ${parts.unicode} is a public suffix, not a site anyone owns.`);
  }

  if (settings.allowedHosts.length > 0 && !isSameOrSubdomain(host, hostSet(settings.allowedHosts))) {
    findings.add(UrlFinding.hostNotAllowed, 'error', `The host ${parts.unicode} is not in the policy's allowed hosts.`);
  }

  let unicodeSafe = true;
  if (parts.idn) {
    const delimiter = delimiterLookalike(parts.unicode, parts.suffix ?? '');
    if (delimiter !== null) {
      unicodeSafe = false;
      const codePoint = `U+${delimiter.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
      findings.add(
        UrlFinding.hostDelimiterLookalike,
        'error',
        `The host ${host} holds ${codePoint}, a character that looks like a URL delimiter (a slash, dot, colon or at-sign): ` +
          `it reads as another site followed by a path.`,
      );
    }
    const unicodeLabels = labelsOf(parts.unicode);
    const tld = unicodeLabels[unicodeLabels.length - 1] ?? '';
    for (const label of unicodeLabels) {
      const problem = judgeLabel(label, tld);
      if (problem === null) continue;
      unicodeSafe = false;
      findings.add(
        problem.code,
        'warning',
        `The host is shown as ${host} because its label "${punyOf(label)}" is not safe to show in Unicode: ${problem.reason}.`,
      );
    }
  }

  if (parts.registrable !== null) {
    const match = findLookalike(parts, settings.protectedDomains);
    if (match !== null) {
      unicodeSafe = false;
      const shownAs = parts.idn ? `${host} (${parts.unicode})` : host;
      findings.add(match.code, match.severity, `The host ${shownAs} ${match.how} ${match.target} but is not ${match.target}.`);
    }
  }
  return { parts, unicodeSafe };
}

// Characters that look like the delimiters of a URL (Chromium's idn_spoof_checker.cc and
// Firefox's IDN blocklist): slashes, colons, dots, at-signs, question and number signs.
const DELIMITER_LOOKALIKES =
  /[\u2215\u2044\u29f8\u2571\u2afd\u2afb\uff0f\u29f5\uff3c\ua789\u0589\u05c3\u2236\u02f8\u205a\uff1a\ufe55\ufe30\u16ec\u2024\u2027\u2219\u2e31\u02d9\ufe52\uff0e\uff61\u3002\u06d4\u0701\u0702\ufe6b\uff20\uff1f\ufe56\uff03\ufe5f\u00b7]/u;
// Kana and CJK strokes that read as a slash or a dot next to Latin letters (`paypalノcom`), but
// are ordinary inside Japanese or Chinese text.
const CONTEXTUAL_DELIMITERS =
  /[a-z0-9][\u30ce\u30bd\u30be\u30f3\u4e36\u4e40\u4e41\u4e3f\u30fb\u3033]|[\u30ce\u30bd\u30be\u30f3\u4e36\u4e40\u4e41\u4e3f\u30fb\u3033][a-z0-9]/u;
// Catalan's `l·l` is the one legitimate middle dot in a host name, under .cat.
const CATALAN_MIDDLE_DOT = /l\u00b7l/g;

/** The first delimiter look-alike in a Unicode host, or null. */
function delimiterLookalike(unicodeHost: string, suffix: string): string | null {
  const host = suffix === 'cat' ? unicodeHost.replace(CATALAN_MIDDLE_DOT, 'll') : unicodeHost;
  const found = DELIMITER_LOOKALIKES.exec(host) ?? CONTEXTUAL_DELIMITERS.exec(host);
  if (found === null) return null;
  const text = found[0];
  return /^[a-z0-9]/.test(text) ? text.slice(1) : text.length > 1 ? text.slice(0, -1) : text;
}

function punyOf(unicodeLabel: string): string {
  if (/^[\x00-\x7f]*$/.test(unicodeLabel)) return unicodeLabel;
  try {
    return new URL(`https://${unicodeLabel}.invalid/`).hostname.split('.')[0] ?? unicodeLabel;
  } catch {
    return '(label)';
  }
}

export function schemeFinding(findings: Findings, settings: Settings, scheme: string): void {
  const allowed = settings.development ? 'https, or http to a loopback host in the development profile' : 'https only';
  findings.add(UrlFinding.scheme, 'error', `The scheme "${scheme}" is not allowed (${allowed}).`);
}

/** A backslash before the query: browsers read it as "/", other parsers do not. */
export function reportBackslash(input: string, findings: Findings): void {
  const backslashAt = input.indexOf('\\');
  if (backslashAt < 0) return;
  const queryAt = input.search(/[?#]/);
  if (queryAt < 0 || backslashAt < queryAt) {
    findings.add(
      UrlFinding.backslash,
      'error',
      'The URL is written with backslashes, which browsers read as "/" while other parsers do not: it can show one host and open another.',
    );
  }
}
