/**
 * What keeps the query page to its one user: an access secret exchanged once for an HttpOnly,
 * SameSite=Strict session cookie; a CSRF token per session on every POST; the `Host` header checked
 * against the address the server is bound to (so a DNS-rebinding page cannot talk to it); and
 * headers that forbid framing, inline script and referrers.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

export const SESSION_COOKIE = 'meg_session';
/** Sessions kept at once; the oldest is dropped first (each login makes one). */
const MAX_SESSIONS = 32;

/** The page's Content-Security-Policy: nothing inline, nothing from elsewhere, no framing, forms post here only. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cache-Control': 'no-store',
};

export interface Flash {
  readonly kind: 'ok' | 'refused';
  readonly text: string;
  readonly code: string | null;
}

export interface Session {
  readonly csrf: string;
  /** A result to show once on the next page (Post/Redirect/Get). */
  flash: Flash | null;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** Compares two secrets in time independent of where they differ (digests have equal length). */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/** The sessions of one page server, keyed by their cookie value. Bounded. */
export class Sessions {
  readonly #sessions = new Map<string, Session>();
  readonly #token: () => string;

  constructor(token: () => string) {
    this.#token = token;
  }

  create(): { readonly id: string; readonly session: Session } {
    const id = this.#token();
    const session: Session = { csrf: this.#token(), flash: null };
    this.#sessions.set(id, session);
    for (const [old] of this.#sessions) {
      if (this.#sessions.size <= MAX_SESSIONS) break;
      this.#sessions.delete(old);
    }
    return { id, session };
  }

  get(id: string | undefined): Session | null {
    if (id === undefined || id === '') return null;
    for (const [known, session] of this.#sessions) if (sameSecret(id, known)) return session;
    return null;
  }
}

/**
 * The `Host` values a browser sends for this server: the bound address with its port, and
 * `localhost` for a loopback bind. Anything else (a rebound DNS name) is refused.
 */
export function allowedHosts(bound: string, port: number, extra: readonly string[] = []): ReadonlySet<string> {
  const hosts = new Set<string>();
  const add = (name: string) => hosts.add(`${isIP(name) === 6 ? `[${name}]` : name.toLowerCase()}:${port}`);
  add(bound);
  if (isLoopback(bound)) add('localhost');
  for (const name of extra) add(name);
  return hosts;
}

/** True for 127.0.0.0/8, ::1, and `localhost`. */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h === '::1') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (h.startsWith('::ffff:')) return isLoopback(h.slice(7));
  return false;
}
