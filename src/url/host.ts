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

const PRIVATE = {
  allowPrivateDomains: true,
  extractHostname: false,
  detectIp: false,
  validateHostname: false,
  mixedInputs: false,
} as const;
const ICANN = { allowPrivateDomains: false, extractHostname: false, detectIp: false, validateHostname: false, mixedInputs: false } as const;

// A label of an ASCII host: no dot, no `@` and no IDNA separator, so `punycode.toUnicode` would
// only strip the `xn--` and decode; calling `decode` directly skips its domain splitting.
const PLAIN_LABEL = /^[\x00-\x2d\x2f-\x3f\x41-\x7f]*$/;

/** The Unicode form of one ASCII label; a label that does not decode stays as it is. */
function toUnicodeLabel(label: string): string {
  if (!label.startsWith('xn--')) return label;
  try {
    return PLAIN_LABEL.test(label) ? punycode.decode(label.slice(4).toLowerCase()) : punycode.toUnicode(label);
  } catch {
    return label;
  }
}

/**
 * The labels of a host, cut at its dots (`String.prototype.split` costs about three times this
 * loop of `indexOf` and `slice` on Node 20).
 */
export function labelsOf(host: string): string[] {
  const labels: string[] = [];
  let start = 0;
  for (let dot = host.indexOf('.'); dot >= 0; dot = host.indexOf('.', start)) {
    labels.push(host.slice(start, dot));
    start = dot + 1;
  }
  labels.push(start === 0 ? host : host.slice(start));
  return labels;
}

/** Unicode form of an ASCII host; labels that do not decode stay as they are. */
export function toUnicodeHost(ascii: string): string {
  if (!ascii.includes('xn--')) return ascii;
  return labelsOf(ascii).map(toUnicodeLabel).join('.');
}

/**
 * The Unicode form of a piece of a host (its registrable domain, label, suffix, subdomain),
 * reusing the labels the whole host already decoded: an IDN host would otherwise decode each
 * Punycode label three times.
 */
function toUnicodePiece(piece: string, asciiLabels: readonly string[], unicodeLabels: readonly string[]): string {
  if (!piece.includes('xn--')) return piece;
  return labelsOf(piece)
    .map((label) => {
      const known = asciiLabels.indexOf(label);
      return known >= 0 ? unicodeLabels[known]! : toUnicodeLabel(label);
    })
    .join('.');
}

/** How many labels of `ascii` the trailing `piece` spans, or 0 when it does not end `ascii` at a label boundary. */
function trailingLabels(ascii: string, piece: string): number {
  if (piece.length === 0 || !ascii.endsWith(piece)) return 0;
  if (piece.length < ascii.length && ascii.charCodeAt(ascii.length - piece.length - 1) !== 0x2e) return 0;
  let count = 1;
  for (let i = piece.indexOf('.'); i >= 0; i = piece.indexOf('.', i + 1)) count++;
  return count;
}

/** The Unicode form of a trailing piece of `ascii`, cut out of `unicode` when it lines up with the labels. */
function trailingUnicode(
  ascii: string,
  piece: string,
  asciiLabels: readonly string[],
  unicodeLabels: readonly string[],
  unicode: string,
  unicodeStarts: readonly number[],
): string {
  const count = trailingLabels(ascii, piece);
  return count > 0 ? unicode.slice(unicodeStarts[asciiLabels.length - count]) : toUnicodePiece(piece, asciiLabels, unicodeLabels);
}

// The last host split: a redirect target is split where it is found and again when it is analysed.
let lastAscii: string | undefined;
let lastParts: HostParts | undefined;

/** Splits a canonical, non-IP host into its PSL parts (the result is shared: never change it). */
export function hostParts(ascii: string): HostParts {
  if (ascii === lastAscii) return lastParts!;
  const parts = splitHost(ascii);
  lastAscii = ascii;
  lastParts = parts;
  return parts;
}

function splitHost(ascii: string): HostParts {
  let parsed = parse(ascii, PRIVATE);
  if (parsed.domain === null && parsed.isPrivate === true) parsed = parse(ascii, ICANN);
  const idn = ascii.includes('xn--');
  const registrable = parsed.domain;
  const suffix = parsed.publicSuffix;
  const label = parsed.domainWithoutSuffix;
  const subdomain = parsed.subdomain ?? '';
  const knownSuffix = parsed.isIcann === true || parsed.isPrivate === true;
  if (!idn) {
    return {
      ascii,
      unicode: ascii,
      idn,
      registrable,
      registrableUnicode: registrable,
      label,
      labelUnicode: label,
      suffix,
      suffixUnicode: suffix,
      subdomain,
      subdomainUnicode: subdomain,
      knownSuffix,
    };
  }
  // The pieces are normally whole trailing (registrable domain, suffix) or leading (subdomain)
  // labels of the host: their Unicode forms are then cut out of `unicode` at label starts.
  // A piece that does not line up (a trailing dot the PSL split drops) is decoded on its own.
  // One pass cuts the labels, decodes them and records where each starts in both forms.
  const asciiLabels: string[] = [];
  const unicodeLabels: string[] = [];
  const asciiStarts: number[] = [];
  const unicodeStarts: number[] = [];
  for (let start = 0, at = 0; ; ) {
    const dot = ascii.indexOf('.', start);
    const label = dot < 0 ? (start === 0 ? ascii : ascii.slice(start)) : ascii.slice(start, dot);
    const decoded = toUnicodeLabel(label);
    asciiLabels.push(label);
    unicodeLabels.push(decoded);
    asciiStarts.push(start);
    unicodeStarts.push(at);
    if (dot < 0) break;
    at += decoded.length + 1;
    start = dot + 1;
  }
  // A join makes one flat string; appending label by label would make a rope that every later
  // slice of it flattens.
  const unicode = unicodeLabels.join('.');
  const registrableLabels = registrable === null ? 0 : trailingLabels(ascii, registrable);
  // The index of the registrable domain's first label, when it lines up.
  const first = registrableLabels > 0 ? asciiLabels.length - registrableLabels : -1;
  const subdomainAligned =
    first >= 0 && (first === 0 ? subdomain === '' : subdomain.length === asciiStarts[first]! - 1 && ascii.startsWith(subdomain));
  return {
    ascii,
    unicode,
    idn,
    registrable,
    registrableUnicode:
      registrable === null ? null : trailingUnicode(ascii, registrable, asciiLabels, unicodeLabels, unicode, unicodeStarts),
    label,
    labelUnicode:
      label === null
        ? null
        : first >= 0 && label === asciiLabels[first]
          ? unicodeLabels[first]!
          : toUnicodePiece(label, asciiLabels, unicodeLabels),
    suffix,
    suffixUnicode: suffix === null ? null : trailingUnicode(ascii, suffix, asciiLabels, unicodeLabels, unicode, unicodeStarts),
    subdomain,
    subdomainUnicode: subdomainAligned
      ? first === 0
        ? ''
        : unicode.slice(0, unicodeStarts[first]! - 1)
      : toUnicodePiece(subdomain, asciiLabels, unicodeLabels),
    knownSuffix,
  };
}

/** `localhost` and `*.localhost` (RFC 6761: always loopback). */
export function isLocalhostName(ascii: string): boolean {
  // Most hosts do not end in `t`: one character read instead of a string search.
  return ascii.charCodeAt(ascii.length - 1) === 0x74 && (ascii === 'localhost' || ascii.endsWith('.localhost'));
}
