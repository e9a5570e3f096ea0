import { generateMnemonic } from '@scure/bip39';
import { wordlist as english } from '@scure/bip39/wordlists/english.js';
import { wordlist as spanish } from '@scure/bip39/wordlists/spanish.js';
import { describe, expect, it } from 'vitest';
import {
  allSeedWords,
  findCardNumber,
  findSecret,
  isSeedPhrase,
  looksLikeRandomSecret,
  luhnValid,
  scanValue,
} from '../../src/secrets/index.js';

// Fake, format-valid values assembled at run time (never a real secret).
const b64url = (n: number, seed = 7): string => {
  const abc = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  let out = '';
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out += abc[x % 64];
  }
  return out;
};

describe('findSecret: the formats the answer scan used to miss', () => {
  it.each([
    [
      'encrypted-jwt',
      'eyJhbGciOiJSU0EtT0FFUCIsImVuYyI6IkEyNTZHQ00ifQ.' + b64url(40) + '.' + b64url(16, 3) + '.' + b64url(60, 5) + '.' + b64url(22, 9),
    ],
    ['encrypted-jwt', 'eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..' + b64url(16, 3) + '.' + b64url(60, 5) + '.' + b64url(22, 9)],
    ['connection-string', 'postgres://app:' + 'S3cretPass@db.internal:5432/app'],
    ['connection-string', 'mongodb+srv://admin:' + 'Passw0rd1@cluster0.abcd.mongodb.net/test'],
    ['connection-string', 'Server=tcp:sql.example.net;Database=app;User Id=sa;' + 'Password=Yukon900;'],
    ['connection-string', 'redis://:' + 'Sup3rS3cret@cache:6379/0'],
    ['api-key', '123456789:' + 'AA' + b64url(33)],
    ['api-key', 'MTk4NjIyNDgzNDcxOTI1MjQ4.' + 'Cl2FMQ.' + b64url(30)],
    ['api-key', '1//0' + b64url(40)],
    ['api-key', 'https://hooks.slack.com/services/' + 'T00000000/B00000000/' + 'XXXXXXXXXXXXXXXXXXXXXXXX'],
    ['api-key', 'DefaultEndpointsProtocol=https;AccountName=acct;' + 'AccountKey=' + 'A'.repeat(86) + '=='],
    ['api-key', '{"type": "service_account", "project_id": "p", "private_key": "x"}'],
    ['api-key', 'lin_api_' + b64url(40).replace(/[-_]/g, 'a')],
    ['api-key', 'dckr_pat_' + b64url(27)],
  ])('%s: %#', (kind, value) => {
    expect(findSecret(value)?.kind).toBe(kind);
  });

  it('leaves ordinary values alone', () => {
    for (const text of [
      'https://example.com/docs',
      'postgres://db.internal:5432/app',
      'User Id=sa;Database=app',
      'The meeting is at 10:30',
      'sk-learn',
    ]) {
      expect(findSecret(text)).toBeNull();
    }
  });
});

describe('card numbers', () => {
  it('checks Luhn and the schemes', () => {
    expect(luhnValid('4111111111111111')).toBe(true);
    expect(luhnValid('4111111111111112')).toBe(false);
    expect(findCardNumber('card 4111 1111 1111 1111 exp 12/27')).toBe(true);
    expect(findCardNumber('3782-822463-10005')).toBe(true);
    // A millisecond timestamp can pass Luhn; it is in no scheme's range.
    expect(luhnValid('1733040000007')).toBe(true);
    expect(findCardNumber('1733040000007')).toBe(false);
  });
});

describe('seed phrases', () => {
  it('recognises 12/15/18/21/24 words from one BIP-39 list', () => {
    for (const strength of [128, 160, 192, 224, 256]) expect(isSeedPhrase(generateMnemonic(english, strength))).toBe(true);
    expect(isSeedPhrase(generateMnemonic(spanish))).toBe(true);
    const numbered = generateMnemonic(english)
      .split(' ')
      .map((w, i) => `${i + 1}. ${w}`)
      .join('\n');
    expect(isSeedPhrase(numbered)).toBe(true);
  });

  it('does not take prose or mixed lists for a phrase', () => {
    expect(isSeedPhrase('the quick brown fox jumps over the lazy dog again and again')).toBe(false);
    const eleven = generateMnemonic(english).split(' ').slice(0, 11).join(' ');
    expect(isSeedPhrase(eleven)).toBe(false);
    const mixed = [...english.slice(0, 6), ...spanish.slice(100, 106)].join(' ');
    expect(isSeedPhrase(mixed)).toBe(false);
  });

  it('recognises a choice field whose options are seed words', () => {
    expect(allSeedWords(english.slice(0, 12))).toBe(true);
    expect(allSeedWords(['red', 'green', 'blue', 'yellow', 'purple', 'black', 'white', 'pink'])).toBe(false);
  });
});

describe('scanValue', () => {
  it('adds seed phrases, cards and, on request, random strings', () => {
    expect(scanValue(generateMnemonic(english))?.kind).toBe('seed-phrase');
    expect(scanValue('4111111111111111')?.kind).toBe('card-number');
    const awsSecretShape = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCY' + 'EXAMPLEKEY';
    expect(scanValue(awsSecretShape)).toBeNull();
    expect(scanValue(awsSecretShape, { entropy: true })?.kind).toBe('high-entropy');
  });

  it('keeps identifiers and words out of the entropy rule', () => {
    for (const v of [
      '3f2504e0-4f89-11d3-9a0c-0305e82c3301',
      'da39a3ee5e6b4b0d3255bfef95601890afd80709',
      'my-project-name-2024',
      'reports/2024/Q1-summary.csv',
      'Hello World, how are you?',
    ]) {
      expect(looksLikeRandomSecret(v)).toBe(false);
    }
  });
});

describe('mentionsKeyPrefix', () => {
  it('sees a key prefix named on its own, not inside a word', async () => {
    const { mentionsKeyPrefix } = await import('../../src/secrets/index.js');
    expect(mentionsKeyPrefix('The long string that starts with sk-')).toBe(true);
    expect(mentionsKeyPrefix('Paste the token (it begins with "ghp_")')).toBe(true);
    expect(mentionsKeyPrefix('We use sk-learn and Node.js')).toBe(false);
    expect(mentionsKeyPrefix('The SG. office')).toBe(false);
  });
});
