/**
 * The browser binding of a connect attempt: the connect page sets a random cookie (only its digest
 * is stored with the attempt), scoped to the callback path, and the callback is honoured only in a
 * browser that sends it back. A callback URL pasted into another browser (the attacker's, or a
 * fresh one) is refused before the subject check and retires the flow.
 */
import { timingSafeEqual } from 'node:crypto';
import { sha256Hex, shortDigest } from '../protocol/digest.js';
import { cookieValue } from './session-cookie.js';

export interface BindingCookieOptions {
  /** The callback's path: the cookie is sent there only. */
  readonly path: string;
  /** `Secure` (and the `__Secure-` name prefix): everywhere but plain-HTTP development on loopback. */
  readonly secure: boolean;
}

/** The cookie's name for one flow: distinct per flow, so two flows open at once do not clobber each other. */
export function bindingCookieName(flowId: string, secure: boolean): string {
  return `${secure ? '__Secure-' : ''}mcp_connect_${shortDigest(flowId)}`;
}

export function bindingCookie(flowId: string, value: string, maxAgeMs: number, options: BindingCookieOptions): string {
  const maxAge = Math.max(1, Math.ceil(maxAgeMs / 1000));
  return (
    `${bindingCookieName(flowId, options.secure)}=${value}; Path=${options.path}; HttpOnly; ` +
    `SameSite=Lax${options.secure ? '; Secure' : ''}; Max-Age=${maxAge}`
  );
}

export function clearBindingCookie(flowId: string, options: BindingCookieOptions): string {
  return `${bindingCookieName(flowId, options.secure)}=; Path=${options.path}; HttpOnly; SameSite=Lax${
    options.secure ? '; Secure' : ''
  }; Max-Age=0`;
}

/** Whether the request's cookies carry this flow's binding whose digest is `expectedDigest`. */
export function hasBinding(cookieHeader: string | null | undefined, flowId: string, expectedDigest: string, secure: boolean): boolean {
  const value = cookieValue(cookieHeader ?? undefined, bindingCookieName(flowId, secure));
  if (value === null || value === '') return false;
  const given = Buffer.from(sha256Hex(value), 'utf8');
  const expected = Buffer.from(expectedDigest, 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
