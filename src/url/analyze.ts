/**
 * `analyzeUrl`: one URL, one policy, one fixed-shape judgement. Nothing here fetches, resolves
 * or opens anything. The order matters: canonicalise with the WHATWG parser first (IDNA mapping,
 * dots, backslashes), then split the canonical host with the PSL, then judge labels and
 * look-alikes on the Unicode form; the original text is judged too, for what the parser hid.
 */
import type { Policy } from '../policy/policy.js';
import { canonicalView, parseUrl, type UrlView, viewOf } from './canonical.js';
import { findHiddenCharacters, hasLoneSurrogate } from './characters.js';
import { UrlFinding } from './codes.js';
import { judgeContent, type TargetAnalysis, type TargetAnalyzer } from './content.js';
import { buildDisplay, type DisplayHost, EMPTY_DISPLAY, shownHost } from './display.js';
import { applyUrlExceptions } from './exceptions.js';
import { Findings, result } from './findings.js';
import { type Settings, settingsOf } from './settings.js';
import { decoyHost, judgeHost, reportBackslash, reportHidden, schemeFinding } from './structure.js';
import type { UrlAnalysis } from './types.js';

// Printable ASCII without space, `%`, `@` and `\`: nothing hidden, no escapes, no userinfo, no
// backslash, so the scans of the raw text can all be skipped.
const PLAIN = /^[\x21-\x24\x26-\x3f\x41-\x5b\x5d-\x7e]*$/;
const HIDDEN_POSSIBLE = /[^\x21-\x7e]/;

/** How deep redirect targets are followed: the URL, its target and the target's target. */
const MAX_TARGET_DEPTH = 2;

/** What an analysis found, and what its display is built from (no URL: the empty display). */
interface Judged {
  readonly findings: Findings;
  readonly url: UrlView | null;
  readonly host: DisplayHost;
}

const NO_HOST: DisplayHost = Object.freeze({ parts: null, unicodeSafe: true });

function judged(findings: Findings, url: UrlView | null = null, host: DisplayHost = NO_HOST): Judged {
  return { findings, url, host };
}

/** `known` is `canonicalView(input)` when a caller already read it (a redirect target), else null. */
function judge(input: unknown, settings: Settings, depth: number, known: UrlView | null = null): Judged {
  const findings = new Findings();
  if (typeof input !== 'string') {
    findings.add(UrlFinding.invalidInput, 'error', `Expected a URL string, got ${input === null ? 'null' : typeof input}.`);
    return judged(findings);
  }
  if (input.length > settings.maxLength) {
    findings.add(UrlFinding.tooLong, 'error', `The URL is ${input.length} characters long; the policy allows ${settings.maxLength}.`);
    return judged(findings);
  }
  // An input already in canonical form is read as it is (printable ASCII with no `@` or
  // backslash, and `%` only in its path, query or fragment, which the raw-text scans do not
  // read); anything else goes through the parser below.
  const canonical = known ?? canonicalView(input);
  // Printable ASCII without spaces holds no surrogate and no hidden character: skip both scans.
  const plain = canonical !== null || PLAIN.test(input);
  if (!plain && HIDDEN_POSSIBLE.test(input)) {
    if (hasLoneSurrogate(input)) {
      findings.add(UrlFinding.malformedUnicode, 'error', 'The URL contains malformed Unicode (an unpaired surrogate).');
      return judged(findings);
    }
    reportHidden(findings, findHiddenCharacters(input));
  }

  let url = canonical;
  if (url === null) {
    const parsed = parseUrl(input);
    if (parsed === null) {
      findings.add(UrlFinding.notAbsolute, 'error', 'Not an absolute URL that a browser would open.');
      return judged(findings);
    }
    url = viewOf(parsed);
  }
  // A canonical view's `href` is the input, whose length was checked above.
  if (url !== canonical && url.href.length > settings.maxLength) {
    findings.add(
      UrlFinding.tooLong,
      'error',
      `Once canonicalised the URL is ${url.href.length} characters long; the policy allows ${settings.maxLength}.`,
    );
  }
  const protocol = url.protocol;
  if (protocol !== 'https:' && protocol !== 'http:') {
    schemeFinding(findings, settings, protocol.slice(0, -1));
    return judged(findings, url);
  }
  if (!plain) reportBackslash(input, findings);
  const host = judgeHost(url, input, plain, url === canonical, settings, findings);
  // `PLAIN` input has no `@`, and parsing never adds one: no decoy host to look for.
  const decoy = plain ? null : decoyHost(url, host.parts?.registrable ?? null, settings.protectedDomains);
  if (decoy !== null)
    findings.add(
      UrlFinding.decoyHost,
      'error',
      `The URL shows ${decoy} after an "@" outside the host, where it reads as the destination; the browser opens ${url.hostname}.`,
    );
  judgeContent(url, host, settings, findings, TARGET_ANALYZERS[depth]!);
  return judged(findings, url, host);
}

// The settings of the analysis under way, which its redirect targets are judged under too. An
// analysis runs to its end before the next starts, so the analyzers below can read them here
// rather than each URL allocating a closure over its policy and depth.
let targetSettings: Settings;

/** A redirect target is judged like the URL itself; of its display only the host is shown. */
function judgeTarget(href: string, view: UrlView | null, depth: number): TargetAnalysis {
  const { findings, url, host } = judge(href, targetSettings, depth, view);
  return { findings: findings.list, shownHost: url === null ? null : shownHost(url, host) };
}

/** What a URL judged at depth `d` hands `judgeContent` for its redirect targets: their analysis one level deeper, or none. */
const TARGET_ANALYZERS: readonly TargetAnalyzer[] = Array.from({ length: MAX_TARGET_DEPTH + 1 }, (_, depth) =>
  depth < MAX_TARGET_DEPTH ? (href: string, view: UrlView | null) => judgeTarget(href, view, depth + 1) : () => null,
);

function analyze(input: unknown, policy: Policy | undefined): UrlAnalysis {
  const settings = settingsOf(policy);
  targetSettings = settings;
  const { findings, url, host } = judge(input, settings, 0);
  return result(findings, url === null ? EMPTY_DISPLAY : buildDisplay(url, host));
}

/**
 * Judges a URL an MCP server asks the user to open: `block` for structural problems,
 * credentials or personal data in it, and look-alikes of protected domains; `warn` for hosts
 * that must be shown in Punycode and off-site redirects; `allow` otherwise. Never throws.
 *
 * @example analyzeUrl('https://pаypal.com/', defaultPolicy.base).verdict // 'block'
 */
export function analyzeUrl(url: unknown, policy: Policy): UrlAnalysis {
  try {
    return applyUrlExceptions(analyze(url, policy), policy);
  } catch {
    const findings = new Findings();
    findings.add(UrlFinding.internalError, 'error', 'The URL could not be analysed; it is blocked rather than shown unchecked.');
    return result(findings, EMPTY_DISPLAY);
  }
}
