/**
 * The secret screen (`src/secrets/prefilter.ts`) is a necessary condition for `findSecret`: a
 * value it clears must be one no pattern matches. Held here on values assembled from the pieces
 * every rule is made of, on the known fakes, and on small patterns whose screens can be reasoned
 * about one by one.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KEY_PREFIXES } from '../../src/secrets/data/known-formats.js';
import { findSecret, mayHoldSecret, mayHoldSecretCounting, secretScreen } from '../../src/secrets/patterns.js';
import { screenFor } from '../../src/secrets/prefilter.js';
import { propertyParameters } from '../properties/runs.js';

// Fake, format-valid values assembled at run time (no real credential).
const FAKES = [
  'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
  'eyJhbGciOiJSU0EtT0FFUCIsImVuYyI6IkEyNTZHQ00ifQ.OKOawDo13gRp2ojaHV7LFpZcgV7T6DVZKTyKOMTYUmKoTCVJRgckC' +
    'L9kiMT03JGeipsEdY3mx_etLbbWSrFr05kLzcSr4qKAq7YN7e9jwQRb23nfa6c9d-StnImGyFDbSv04uVuxIp5Zms1gNxKKK2Da1' +
    '4B8S4rzVRltdYwam_lDp5XnZAYpQdb76FdIKLaVmqgfwX7XWRxv2322i-vDxRfqNzo_tETKzpVLzfiwQyeyPGLBIO56YJ7eObdv0' +
    'je81860ppamavo35UgoRdbYaBcoh9QcfylQr66oc6vFWXRcZ_ZT2LawVCWTIy3brGPi6UklfCpIMfIjf7iGdXKHzg.48V1_ALb6U' +
    'S04U3b.5eym8TW_c8SuK0ltJ3rpYIzOeDQz7TALvtu6UG9oMo4vpzs9tX_EFShS8iB7j6jiSdiwkIr3ajwQzaBtQD_A.XFBoMYUZ' +
    'odetZdvTiFvSkQ',
  'sk-' + 'proj-' + 'A1b2C3d4E5f6G7h8I9j0K1l2',
  'sk_' + 'live_' + '4eC39HqLyjWDarjtT1zdp7dc',
  'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8',
  'github_pat_' + '11ABCDEFG0123456789_abcdefghijklmnopqrstuv',
  'glpat-' + 'xxxxxxxxxxxxxxxxxxxx',
  'xoxb-' + '1234567890-abcdefghij',
  'AKIA' + 'IOSFODNN7EXAMPLE',
  'AIza' + 'SyA-1234567890abcdefghijklmnopqrstu',
  '-----BEGIN ' + 'RSA PRIVATE KEY-----\nMIIEow',
  '123456789' + ':AA' + 'Hdqp2aN9vq8pL4oT0zmF5kX3yR2wQ1eZ',
  'MTk4NjIyNDgzNDcxOTI1MjQ4' + '.Cl2FMQ.' + 'ZnCjm1XVW7vRze4b7Cq4se7kKWsabcdefg',
  'https://hooks.slack.com/services/' + 'T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX',
  'https://discord.com/api/webhooks/' + '123456789012345678/abcdefghijklmnopqrstuvwxyz0123',
  'DefaultEndpointsProtocol=https;AccountName=x;' + 'AccountKey=' + 'a'.repeat(44) + '==',
  'Server=db;User Id=app;' + 'Password=' + 'hunter2hunter2;',
  'Password=' + 'hunter2hunter2',
  'postgres://app:' + 'S3cretPass@db.internal:5432/app',
  'Authorization: Bearer ' + 'abcdefghijklmnopqrstuvwxyz012345',
  'client-key-data: ' + 'QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9w',
  'PuTTY-User-Key-File-3: ' + 'ssh-ed25519',
  '1//0' + 'gAbCdEfGhIjKlMnOpQrStUvWxYz0123456789',
  'ya29.' + 'a0AfH6SMBx1234567890abcdefghij',
  'sig=' + 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789%2B%2F',
  'AGE-SECRET-KEY-1' + 'QQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQ',
];

// Pieces the rules are made of, and the text around them: values assembled from these are
// secrets often enough that the property below is exercised on both sides.
const PIECES = [
  ...KEY_PREFIXES,
  'eyJ',
  '.eyJ',
  'eyJhbGciOiJIUzI1NiJ9',
  ':AA',
  '123456789',
  'sig=',
  'AccountKey=',
  'SharedAccessKey=',
  'Password=',
  ';Pwd=',
  'pwd=',
  'Bearer ',
  '-----BEGIN ',
  'PRIVATE KEY-----',
  'https://hooks.slack.com/services/',
  'https://discord.com/api/webhooks/',
  'https://canary.discordapp.com/api/webhooks/',
  'PuTTY-User-Key-File-2:',
  'client-key-data:',
  'client-certificate-data: ',
  '1//0',
  'SG.',
  'hvs.',
  'dp.st.',
  'ATATT3',
  'PMAK-',
  'key-',
  'SK',
  'dapi',
  'MTk4NjIyNDgzNDcxOTI1MjQ4',
  'ops_ey',
  'ntn_',
  'secret_',
  '://',
  'user:pw@',
  '"type": "service_account", "private_key"',
  ' ',
  '-',
  '.',
  '/',
  ':',
  '=',
  ';',
  '_',
  '@',
  '%2B',
  '\u00e9',
];
const RUNS = [
  'a1B2c3D4e5F6g7H8',
  'ABCDEFGHIJKLMNOP',
  '0123456789abcdef',
  '0123456789',
  'abcdefghijklmnopqrstuvwxyz',
  'QUJDREVGR0hJSktMTU5P',
];

const value = fc
  .array(fc.oneof(fc.constantFrom(...PIECES), fc.constantFrom(...RUNS), fc.string({ minLength: 1, maxLength: 12 })), {
    minLength: 1,
    maxLength: 10,
  })
  .map((pieces) => pieces.join(''));

describe('the secret screen', () => {
  it('reads every shipped pattern, so it is on', () => {
    expect(secretScreen().reason).toBeNull();
    expect(secretScreen().enabled).toBe(true);
  });

  it.each(FAKES.map((fake) => [fake.slice(0, 12), fake] as const))('lets a secret through: %s…', (_name, fake) => {
    expect(findSecret(fake)).not.toBeNull();
    expect(mayHoldSecret(fake)).toBe(true);
    // Inside other text (where an anchored pattern no longer matches, the screen may clear it).
    const inText = `x ${fake} y`;
    if (findSecret(inText) !== null) expect(mayHoldSecret(inText)).toBe(true);
  });

  it('never clears a value the patterns match', () => {
    let secrets = 0;
    fc.assert(
      fc.property(value, (text) => {
        const found = findSecret(text) !== null;
        if (found) secrets++;
        return !found || mayHoldSecret(text);
      }),
      propertyParameters(5000),
    );
    // The property is only worth something if the assembled values are secrets often enough.
    expect(secrets).toBeGreaterThan(50);
  });

  it('answers the same when it counts, and counts a value it read whole by class', () => {
    // Classes by ASCII code: digits 1, letters 2, `(` 3, `+` 4, others 0.
    const classes = new Uint8Array(128);
    for (let c = 0x30; c <= 0x39; c++) classes[c] = 1;
    for (let c = 0x41; c <= 0x7a; c++) if (/[A-Za-z]/.test(String.fromCharCode(c))) classes[c] = 2;
    classes[0x28] = 3;
    classes[0x2b] = 4;
    let counted = 0;
    fc.assert(
      fc.property(fc.oneof(value, fc.string({ maxLength: 40 }), fc.stringMatching(/^[A-Za-z0-9+(_.-]{10,60}$/)), (text) => {
        // Counted from an offset, as the URL rules store one value's counts after another's.
        const counts = new Int32Array(16);
        const answer = mayHoldSecretCounting(text, classes, counts, 8);
        if (text.length < 16) return answer === 2;
        if ((answer === 1) !== mayHoldSecret(text)) return false;
        if (answer !== 0) return true;
        counted++;
        const expected = new Int32Array(8);
        for (const ch of text) expected[classes[ch.charCodeAt(0)]!]!++;
        return /^[\x00-\x7f]*$/.test(text) && counts.subarray(0, 8).every((n) => n === 0) && expected.every((n, k) => counts[8 + k] === n);
      }),
      propertyParameters(3000),
    );
    expect(counted).toBeGreaterThan(100);
  });

  it('clears the ids, nonces, words and URLs that URL parameters carry', () => {
    for (const text of [
      'Qyxo5z1hzh2zWPPK60-3l361enRUZcKd',
      '644728730276-ka0ef9nerbb7ro9txoeyh8t2bwl0pjd9.apps.googleusercontent.com',
      'http://127.0.0.1:53682/callback',
      'https://app.example.com/oauth2/callback',
      'openid profile email offline_access',
      '360012345678-How-do-I-reset-my-password',
    ]) {
      expect(findSecret(text)).toBeNull();
      expect(mayHoldSecret(text), text).toBe(false);
    }
  });
});

describe('screenFor', () => {
  it('turns off, letting everything through, for a pattern it cannot read or bound', () => {
    for (const source of ['a(?<name>b)c', 'ab', 'x\\1y', '(?:a|)*bcd']) {
      const screen = screenFor([source]);
      expect(screen.enabled, source).toBe(false);
      expect(screen.reason).not.toBeNull();
      expect(screen.mayMatch('anything')).toBe(true);
    }
  });

  it('looks for a pattern behind a word boundary only where a word starts', () => {
    const screen = screenFor(['(?<![A-Za-z0-9_])qzx[0-9]{4}']);
    expect(screen.mayMatch('aqzx1234')).toBe(false);
    expect(screen.mayMatch('a-qzx1234')).toBe(true);
    expect(screen.mayMatch('qzx1234')).toBe(true);
  });

  it('looks for an anchored pattern only at the start', () => {
    const screen = screenFor(['^qzx1']);
    expect(screen.mayMatch('qzx1')).toBe(true);
    expect(screen.mayMatch('aqzx1')).toBe(false);
  });

  it('clears text that lacks a character the pattern needs, and leaves text outside its alphabet to the pattern', () => {
    const screen = screenFor(['[a-z]+@[a-z]+']);
    expect(screen.mayMatch('abc def')).toBe(false);
    expect(screen.mayMatch('abc@def')).toBe(true);
    expect(screen.mayMatch('abc\u00e9def')).toBe(true);
  });

  it('finds a literal the pattern must hold anywhere, whatever comes before it', () => {
    const screen = screenFor(['[0-9]{8,10}:QZ[a-z]{4}']);
    expect(screen.mayMatch('x:QZy')).toBe(true);
    expect(screen.mayMatch('12345678:Bbcde')).toBe(false);
  });
});
