/**
 * The parts of a canonical host: public suffix and registrable domain from the Public Suffix
 * List (`tldts`, run on the WHATWG-canonical host, never on raw input: tldts does no IDNA
 * mapping), and the Unicode form of every label (`punycode`).
 *
 * Private PSL sections count: `alice.github.io` and `bob.blogspot.com` are separate sites, so
 * their registrable domains are `alice.github.io` and `bob.blogspot.com`. A private suffix
 * itself (`github.io`, `s3.amazonaws.com`) is the operator's own site and falls back to its
 * ICANN registrable domain.
 */
import punycode from 'punycode/punycode.js';
import { parse } from 'tldts';

export interface HostParts {
  /** Canonical ASCII host (`URL.hostname`). */
  readonly ascii: string;
  readonly unicode: string;
  /** True when a label is Punycode (`xn--`). */
  readonly idn: boolean;
  readonly registrable: string | null;
  readonly registrableUnicode: string | null;
  /** The label in front of the public suffix (`paypal` in `www.paypal.com`), ASCII. */
  readonly label: string | null;
  readonly labelUnicode: string | null;
  readonly suffix: string | null;
  readonly suffixUnicode: string | null;
  /** Everything before the registrable domain, without the final dot; '' when none. */
  readonly subdomain: string;
  readonly subdomainUnicode: string;
  /** The public suffix is on the PSL (ICANN or private section). */
  readonly knownSuffix: boolean;
}

const PRIVATE = { allowPrivateDomains: true, extractHostname: false, detectIp: false, validateHostname: false, mixedInputs: false } as const;
const ICANN = { allowPrivateDomains: false, extractHostname: false, detectIp: false, validateHostname: false, mixedInputs: false } as const;

/** Unicode form of an ASCII host; labels that do not decode stay as they are. */
export function toUnicodeHost(ascii: string): string {
  if (!ascii.includes('xn--')) return ascii;
  return ascii
    .split('.')
    .map((label) => {
      if (!label.startsWith('xn--')) return label;
      try {
        return punycode.toUnicode(label);
      } catch {
        return label;
      }
    })
    .join('.');
}

/** Splits a canonical, non-IP host into its PSL parts. */
export function hostParts(ascii: string): HostParts {
  let parsed = parse(ascii, PRIVATE);
  if (parsed.domain === null && parsed.isPrivate === true) parsed = parse(ascii, ICANN);
  const idn = ascii.includes('xn--');
  const unicode = idn ? toUnicodeHost(ascii) : ascii;
  const registrable = parsed.domain;
  const suffix = parsed.publicSuffix;
  const label = parsed.domainWithoutSuffix;
  const subdomain = parsed.subdomain ?? '';
  const knownSuffix = parsed.isIcann === true || parsed.isPrivate === true;
  if (!idn) {
    return { ascii, unicode, idn, registrable, registrableUnicode: registrable, label, labelUnicode: label, suffix, suffixUnicode: suffix, subdomain, subdomainUnicode: subdomain, knownSuffix };
  }
  return {
    ascii,
    unicode,
    idn,
    registrable,
    registrableUnicode: registrable === null ? null : toUnicodeHost(registrable),
    label,
    labelUnicode: label === null ? null : toUnicodeHost(label),
    suffix,
    suffixUnicode: suffix === null ? null : toUnicodeHost(suffix),
    subdomain,
    subdomainUnicode: toUnicodeHost(subdomain),
    knownSuffix,
  };
}

/** `localhost` and `*.localhost` (RFC 6761: always loopback). */
export function isLocalhostName(ascii: string): boolean {
  return ascii === 'localhost' || ascii.endsWith('.localhost');
}
