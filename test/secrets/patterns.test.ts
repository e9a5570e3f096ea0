import { describe, expect, it } from 'vitest';
import { findSecret, findSecretOrToken, looksRandomToken } from '../../src/secrets/patterns.js';

// Fake, format-valid values assembled at run time.
const fakes: Record<string, string> = {
  jwt: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
  'openai-key': 'sk-' + 'proj-' + 'A1b2C3d4E5f6G7h8I9j0K1l2',
  'stripe-secret-key': 'sk_' + 'live_' + '4eC39HqLyjWDarjtT1zdp7dc',
  'github-token': 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8',
  'github-fine-grained-token': 'github_pat_' + '11ABCDEFG0123456789_abcdefghijklmnopqrstuv',
  'gitlab-token': 'glpat-' + 'xxxxxxxxxxxxxxxxxxxx',
  'slack-token': 'xoxb-' + '1234567890-abcdefghij',
  'aws-access-key-id': 'AKIA' + 'IOSFODNN7EXAMPLE',
  'google-api-key': 'AIza' + 'SyA-1234567890abcdefghijklmnopqrstu',
  'private-key-block': '-----BEGIN ' + 'RSA PRIVATE KEY-----\nMIIEow',
};

describe('findSecret', () => {
  it.each(Object.entries(fakes))('recognises %s', (rule, value) => {
    const match = findSecret(`prefix ${value} suffix`);
    expect(match).not.toBeNull();
    if (rule !== 'jwt' && rule !== 'private-key-block') expect(match?.rule).toBe(rule);
  });

  it.each(['sk-learn is a library', 'my AKIA note', 'password123', 'https://example.com/a/b', 'ghp_short', 'The skeleton key'])(
    'leaves ordinary text alone: %s',
    (text) => {
      expect(findSecret(text)).toBeNull();
    },
  );
});

describe('looksRandomToken', () => {
  it('flags long random tokens and leaves words, ids and sentences alone', () => {
    expect(looksRandomToken('Zk8vQ2pL9xW4rT7yB1nM6cF3')).toBe(true);
    expect(looksRandomToken('9f86d081884c7d659a2feaa0c55ad015')).toBe(true);
    expect(looksRandomToken('internationalization')).toBe(false);
    expect(looksRandomToken('hello world this is text')).toBe(false);
    expect(looksRandomToken('short')).toBe(false);
    expect(findSecretOrToken('Zk8vQ2pL9xW4rT7yB1nM6cF3')?.kind).toBe('high-entropy');
  });
});
