/**
 * IP-literal hosts. The WHATWG parser rewrites every IPv4 notation (`2130706433`, `0x7f.1`,
 * `0177.0.0.1`, `127.1`, fullwidth digits) to a dotted quad, so the canonical host tells *that*
 * it is an IP and the original text tells *how* it was written.
 */

export type IpKind = 'ipv4' | 'ipv6';

export interface IpHost {
  readonly kind: IpKind;
  readonly loopback: boolean;
  /** True when the host was written in a notation other than its canonical one. */
  readonly obfuscated: boolean;
  /** Why it counts as obfuscated, for the message; null when it is not. */
  readonly notation: string | null;
}

const DOTTED_QUAD = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
// IPv4-mapped (`::ffff:a.b.c.d`) and IPv4-compatible (`::a.b.c.d`) addresses, as the parser
// serialises them (`[::ffff:7f00:1]`, `[::7f00:1]`).
const IPV4_IN_IPV6 = /^\[::(?:ffff:)?[0-9a-f]{1,4}:[0-9a-f]{1,4}\]$/;

function ipv4Notation(raw: string): string {
  if (/^\d+$/.test(raw)) return 'a single decimal number';
  if (/0x/i.test(raw)) return 'hexadecimal parts';
  if (/(^|\.)0\d/.test(raw)) return 'octal parts';
  if (raw.endsWith('.')) return 'a trailing dot';
  if (raw.split('.').length < 4) return 'a shortened form';
  if (/[^\x00-\x7f]/.test(raw)) return 'non-ASCII digits or dots';
  return 'a non-canonical form';
}

/**
 * Classifies a canonical host (from `URL.hostname`) as an IP literal, or null. `rawHost` is the
 * host as written in the input, used only to tell whether the notation was obfuscated.
 */
export function classifyIp(canonicalHost: string, rawHost: string): IpHost | null {
  if (canonicalHost.startsWith('[')) {
    const mapped = IPV4_IN_IPV6.test(canonicalHost) || rawHost.includes('.');
    return {
      kind: 'ipv6',
      loopback: canonicalHost === '[::1]',
      obfuscated: mapped,
      notation: mapped ? 'an IPv4 address inside IPv6' : null,
    };
  }
  const quad = DOTTED_QUAD.exec(canonicalHost);
  if (quad === null) return null;
  const raw = rawHost.toLowerCase();
  const obfuscated = raw !== canonicalHost;
  return {
    kind: 'ipv4',
    loopback: quad[1] === '127',
    obfuscated,
    notation: obfuscated ? ipv4Notation(raw) : null,
  };
}
