/**
 * The server's own browser session: an HMAC-signed cookie naming the verified user subject. The
 * connect page and the OAuth callback compare it with the subject an elicitation was issued for,
 * so a forwarded link is useless to anyone not signed in as that user. The cookie is the server's
 * word, never the client's: it is set only after the server authenticated the user itself.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { GuardCode, GuardError } from '../protocol/errors.js';

export interface SessionCookieOptions {
  /** At least 32 bytes of key material for the HMAC. */
  readonly secret: Uint8Array;
  /** The cookie's name; `mcp_session` when omitted. */
  readonly name?: string;
  /** How long a signed session stays valid; 12 hours when omitted. */
  readonly ttlMs?: number;
  /** Adds `Secure`: leave it on everywhere but plain-HTTP development. */
  readonly secure?: boolean;
  readonly clock?: () => number;
}

export interface SessionCookie {
  /** The `Set-Cookie` header value that signs `subject` in. */
  issue(subject: string): string;
  /** The subject of a valid, unexpired session cookie on the request, else `null`. */
  authenticate(req: IncomingMessage): string | null;
  /** The `Set-Cookie` header value that signs the browser out. */
  clear(): string;
}

const COOKIE_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Creates a signed session cookie. Bad options throw here, not at the first request. */
export function createSessionCookie(options: SessionCookieOptions): SessionCookie {
  const name = options.name ?? 'mcp_session';
  const ttlMs = options.ttlMs ?? 12 * 60 * 60 * 1000;
  const clock = options.clock ?? Date.now;
  if (!(options.secret instanceof Uint8Array) || options.secret.length < 32)
    throw new GuardError(GuardCode.input, 'the session cookie secret must be at least 32 bytes');
  if (!COOKIE_NAME.test(name)) throw new GuardError(GuardCode.input, 'the session cookie name must be 1 to 64 letters, digits, "-" or "_"');
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0)
    throw new GuardError(GuardCode.input, 'the session cookie ttlMs must be a positive integer');
  const key = Buffer.from(options.secret);
  // SameSite=Lax, not Strict: the OAuth callback is a top-level navigation from the provider's
  // site, and it must carry this cookie so the callback can check the subject again.
  const attributes = `Path=/; HttpOnly; SameSite=Lax${options.secure === false ? '' : '; Secure'}`;

  const mac = (payload: string): Buffer => createHmac('sha256', key).update(payload, 'utf8').digest();

  return {
    issue(subject) {
      if (typeof subject !== 'string' || subject === '') throw new GuardError(GuardCode.input, 'a session needs a non-empty subject');
      const payload = `${Buffer.from(subject, 'utf8').toString('base64url')}.${clock() + ttlMs}`;
      return `${name}=${payload}.${mac(payload).toString('base64url')}; ${attributes}; Max-Age=${Math.floor(ttlMs / 1000)}`;
    },
    authenticate(req) {
      const value = cookieValue(req.headers.cookie, name);
      if (value === null) return null;
      const parts = value.split('.');
      if (parts.length !== 3) return null;
      const [encodedSubject = '', expiresText = '', signature = ''] = parts;
      const given = Buffer.from(signature, 'base64url');
      const expected = mac(`${encodedSubject}.${expiresText}`);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
      const expiresAt = Number(expiresText);
      if (!Number.isSafeInteger(expiresAt) || clock() >= expiresAt) return null;
      const subject = Buffer.from(encodedSubject, 'base64url').toString('utf8');
      return subject === '' ? null : subject;
    },
    clear() {
      return `${name}=; ${attributes}; Max-Age=0`;
    },
  };
}

/** The value of the one cookie called `name` in a `Cookie` header; `null` when absent or present twice. */
export function cookieValue(header: string | undefined | null, name: string): string | null {
  if (header === null) return null;
  if (header === undefined) return null;
  let found: string | null = null;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at < 0 || part.slice(0, at).trim() !== name) continue;
    // Two cookies of the same name (one planted on a parent domain, say): trust neither.
    if (found !== null) return null;
    found = part.slice(at + 1).trim();
  }
  return found;
}
