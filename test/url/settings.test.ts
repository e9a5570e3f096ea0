/**
 * `settingsOf` caches the URL settings of a frozen policy by the policy's identity; a policy that
 * can still change is read again on every call.
 */
import { describe, expect, it } from 'vitest';
import { parsePolicy, type Policy } from '../../src/policy/index.js';
import { settingsOf } from '../../src/url/settings.js';

describe('settingsOf', () => {
  it('answers each of two alternating policies with its own settings', () => {
    const short = parsePolicy({ url: { maxLength: 100, allowedHosts: ['example.com'] } }).base;
    const development = parsePolicy({ profile: 'development' }).base;
    for (let i = 0; i < 3; i++) {
      expect(settingsOf(short).maxLength).toBe(100);
      expect(settingsOf(short).allowedHosts).toEqual(['example.com']);
      expect(settingsOf(short).development).toBe(false);
      expect(settingsOf(development).maxLength).toBe(2048);
      expect(settingsOf(development).development).toBe(true);
    }
    expect(settingsOf(short)).toBe(settingsOf(short));
  });

  it('reads a policy that is not frozen again, so a change shows', () => {
    const policy = { profile: 'production', url: { maxLength: 100 } } as unknown as Policy;
    expect(settingsOf(policy).maxLength).toBe(100);
    (policy.url as { maxLength: number }).maxLength = 300;
    expect(settingsOf(policy).maxLength).toBe(300);
    (policy as { profile: string }).profile = 'development';
    expect(settingsOf(policy).development).toBe(true);
  });

  it('falls back to the defaults for a missing or malformed policy', () => {
    for (const policy of [undefined, null, 42, 'policy', { url: null }, { url: { maxLength: -1, allowedHosts: 'x' } }]) {
      const settings = settingsOf(policy as unknown as Policy);
      expect(settings.maxLength).toBe(2048);
      expect(settings.allowedHosts).toEqual([]);
    }
  });
});
