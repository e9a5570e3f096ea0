/**
 * Plain-HTTP development switches (`allowInsecureRequests`, `allowHttpLoopback`, an unsecured
 * cookie) are for this computer only: every URL they let through must be a loopback host.
 */

const LOOPBACK_NAMES = new Set(['localhost', '[::1]']);

/** `localhost`, `[::1]` or an IPv4 address in 127.0.0.0/8 (as the URL parser normalises hosts). */
export function isLoopbackHost(hostname: string): boolean {
  if (LOOPBACK_NAMES.has(hostname)) return true;
  const quad = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(hostname);
  return quad !== null && quad[1] === '127' && quad.slice(2).every((part) => Number(part) <= 255);
}

/** Whether a URL is allowed under a plain-HTTP development switch: https anywhere, http only on loopback. */
export function isSecureOrLoopback(url: URL): boolean {
  return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
}
