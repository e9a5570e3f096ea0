import { describe, expect, it } from 'vitest';
import { bindingCookie, bindingCookieName, clearBindingCookie, hasBinding } from '../../src/server/browser-binding.js';
import { sha256Hex } from '../../src/protocol/digest.js';

describe('the browser binding cookie', () => {
  const value = 'b'.repeat(43);
  const digest = sha256Hex(value);
  const name = bindingCookieName('flow-1', true);

  it('is per flow, HttpOnly, Lax, scoped to the callback and Secure outside loopback development', () => {
    expect(name).toMatch(/^__Secure-mcp_connect_[0-9a-f]{16}$/);
    expect(bindingCookieName('flow-2', true)).not.toBe(name);
    expect(bindingCookie('flow-1', value, 600_000, { path: '/oauth/callback', secure: true })).toBe(
      `${name}=${value}; Path=/oauth/callback; HttpOnly; SameSite=Lax; Secure; Max-Age=600`,
    );
    expect(bindingCookie('flow-1', value, 1, { path: '/cb', secure: false })).toMatch(
      /^mcp_connect_[0-9a-f]{16}=b+; Path=\/cb; HttpOnly; SameSite=Lax; Max-Age=1$/,
    );
    expect(clearBindingCookie('flow-1', { path: '/cb', secure: true })).toContain('Max-Age=0');
  });

  it('is honoured only with the exact value, once, for its own flow', () => {
    expect(hasBinding(`${name}=${value}`, 'flow-1', digest, true)).toBe(true);
    expect(hasBinding(`other=1; ${name}=${value}; more=2`, 'flow-1', digest, true)).toBe(true);
    for (const header of [
      null,
      undefined,
      '',
      `${name}=`,
      `${name}=${value}x`,
      `${name.replace('__Secure-', '')}=${value}`,
      `${bindingCookieName('flow-2', true)}=${value}`,
      `${name}=${value}; ${name}=${value}`,
      `${name}=${'c'.repeat(43)}; ${name}=${value}`,
    ]) {
      expect(hasBinding(header, 'flow-1', digest, true), String(header)).toBe(false);
    }
  });
});
