import type { ExceptionUse, Finding, Verdict } from '../protocol/verdict.js';

/** One piece of a URL as it is shown to a user. Concatenating every `text` gives `display.full`. */
export interface UrlSegment {
  readonly kind: 'scheme' | 'separator' | 'userinfo' | 'subdomain' | 'registrable' | 'host' | 'port' | 'path' | 'query' | 'fragment';
  readonly text: string;
  /** True only on the registrable domain (or the whole host when there is none). */
  readonly highlight: boolean;
}

/** The display model of a URL: every key always present (`null` when absent). */
export interface UrlDisplay {
  /** The full canonical URL, never truncated; the host in Unicode only when judged safe. */
  readonly full: string;
  readonly segments: readonly UrlSegment[];
  readonly scheme: string | null;
  /** The host as the user should read it: Unicode when safe, otherwise the ASCII (Punycode) form. */
  readonly host: string | null;
  readonly hostUnicode: string | null;
  readonly hostAscii: string | null;
  /** The registrable domain (eTLD+1) in the form shown in `host`. */
  readonly registrableDomain: string | null;
  /** True when the host is shown in Punycode because its Unicode form is not safe to show. */
  readonly punycodeShown: boolean;
}

/** What `analyzeUrl` returns: a fixed shape. */
export interface UrlAnalysis {
  readonly verdict: Verdict;
  readonly findings: readonly Finding[];
  readonly display: UrlDisplay;
  /** The server's `url.allow` rules this analysis applied (only present when one was). */
  readonly exceptions?: readonly ExceptionUse[];
  /** Under `url.onBlock: "audit"`: the codes that would have blocked and were let through as warnings. */
  readonly audited?: readonly string[];
}
