import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createSessionCookie } from '../../src/server/session-cookie.js';

const request = (cookie: string | undefined) => ({ headers: cookie === undefined ? {} : { cookie } }) as IncomingMessage;
const valueOf = (setCookie: string) => setCookie.split(';')[0]!;

describe('createSessionCookie', () => {
  let now = 1_000_000;
  const cookie = createSessionCookie({ secret: randomBytes(32), ttlMs: 60_000, clock: () => now });

  it('signs a subject in and reads it back, HttpOnly, SameSite=Lax and Secure', () => {
    const header = cookie.issue('user|42');
    expect(header).toMatch(/HttpOnly; SameSite=Lax; Secure; Max-Age=60$/);
    expect(cookie.authenticate(request(`other=1; ${valueOf(header)}`))).toBe('user|42');
  });

  it('rejects a tampered subject, a foreign key, an expired session and duplicate cookies', () => {
    const good = valueOf(cookie.issue('alice'));
    const [name, payload] = good.split('=') as [string, string];
    const [, expires, mac] = payload.split('.');
    const forged = `${name}=${Buffer.from('bob').toString('base64url')}.${expires}.${mac}`;
    expect(cookie.authenticate(request(forged))).toBeNull();
    const foreign = createSessionCookie({ secret: randomBytes(32), clock: () => now });
    expect(cookie.authenticate(request(valueOf(foreign.issue('alice'))))).toBeNull();
    expect(cookie.authenticate(request(`${good}; ${valueOf(cookie.issue('bob'))}`))).toBeNull();
    expect(cookie.authenticate(request(undefined))).toBeNull();
    now += 60_000;
    expect(cookie.authenticate(request(good))).toBeNull();
  });

  it('refuses a short key at construction', () => {
    expect(() => createSessionCookie({ secret: randomBytes(16) })).toThrow(/32 bytes/);
  });
});
