import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  editDistanceAtMostOne,
  HASHES,
  hasOneSwap,
  isLikelyEditDistanceFalsePositive,
  isPlausibleTypo,
  isWwwToken,
  keyHash,
  MAX_HASHED,
  MAY_FOLD,
  MAY_SOUND,
  MAX_PIECED,
  neighbourhoodHashes,
  pairFlags,
  phoneticKey,
  phoneticKeyHash,
  pieceHashes,
  prefixHashes,
  pushTokenHashes,
} from '../../src/url/typo.js';
import { foldAscii } from '../../src/url/skeleton.js';

function hashSet(text: string): Set<number> {
  const n = neighbourhoodHashes(text);
  return new Set(Array.from(HASHES.subarray(0, n)));
}

function levenshtein(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++)
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
  }
  return d[a.length]![b.length]!;
}

const label = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789-'.split('')), minLength: 1, maxLength: 16 });

describe('editDistanceAtMostOne', () => {
  it('agrees with a full Levenshtein distance', () => {
    fc.assert(
      fc.property(label, label, (a, b) => editDistanceAtMostOne(a, b) === levenshtein(a, b) <= 1),
      { numRuns: 500 },
    );
  });
});

describe('hasOneSwap', () => {
  it('recognises one adjacent transposition only', () => {
    expect(hasOneSwap('githbu', 'github')).toBe(true);
    expect(hasOneSwap('micorsoft', 'microsoft')).toBe(true);
    expect(hasOneSwap('github', 'github')).toBe(false);
    expect(hasOneSwap('gtihbu', 'github')).toBe(false); // two swaps
  });
});

describe('neighbourhoodHashes', () => {
  it('gives every pair within one edit or one swap a shared hash', () => {
    fc.assert(
      fc.property(
        label,
        fc.nat(),
        fc.constantFrom('sub', 'ins', 'del', 'swap'),
        fc.constantFrom(...'abcxyz9'.split('')),
        (a, at, op, ch) => {
          const i = at % a.length;
          let b: string;
          if (op === 'sub') b = a.slice(0, i) + ch + a.slice(i + 1);
          else if (op === 'ins') b = a.slice(0, i) + ch + a.slice(i);
          else if (op === 'del') b = a.slice(0, i) + a.slice(i + 1);
          else b = i + 1 < a.length ? a.slice(0, i) + a[i + 1] + a[i] + a.slice(i + 2) : a;
          if (b === '') return true;
          const left = hashSet(a);
          return [...hashSet(b)].some((h) => left.has(h));
        },
      ),
      { numRuns: 500 },
    );
  });
});

/** Every text within one edit (at any position, the ends included) or one adjacent swap of `text`, over `alphabet`. */
function oneEditVariants(text: string, alphabet: string): string[] {
  const out: string[] = [];
  for (let i = 0; i <= text.length; i++) for (const c of alphabet) out.push(text.slice(0, i) + c + text.slice(i));
  for (let i = 0; i < text.length; i++) {
    out.push(text.slice(0, i) + text.slice(i + 1));
    for (const c of alphabet) out.push(text.slice(0, i) + c + text.slice(i + 1));
  }
  for (let i = 0; i + 1 < text.length; i++) out.push(text.slice(0, i) + text[i + 1]! + text[i]! + text.slice(i + 2));
  return out;
}

describe('pieceHashes', () => {
  const prefix = new Int32Array(MAX_HASHED + 1);
  const pieces = (text: string, n: number): number[] => {
    const out = new Int32Array(3);
    pieceHashes(prefix, prefixHashes(text, prefix), n, out);
    return Array.from(out);
  };

  it('gives a key one piece in common with every key within one edit or one swap of it, at every position and length', () => {
    // A small alphabet, so that most pieces of a variant differ from the key's only where the edit is.
    let seed = 7;
    const next = (n: number): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
    let pairs = 0;
    for (let length = 3; length <= 24; length++) {
      for (let round = 0; round < 12; round++) {
        let key = '';
        for (let i = 0; i < length; i++) key += 'abz'[next(3)];
        for (const variant of oneEditVariants(key, 'abz')) {
          const n = variant.length;
          if (n < 4 || n > MAX_PIECED) continue;
          const own = pieces(variant, n);
          const theirs = pieces(key, n);
          expect(
            own.some((hash, i) => hash === theirs[i]),
            `${key} / ${variant}`,
          ).toBe(true);
          pairs++;
        }
      }
    }
    expect(pairs).toBeGreaterThan(20_000);
  });

  it('tells most unrelated keys of the same length apart', () => {
    const a = pieces('kalominer', 9);
    const b = pieces('zenvadexo', 9);
    expect(a.filter((hash, i) => hash === b[i])).toEqual([]);
    // The length is part of every piece.
    expect(pieces('kalominer', 9).some((hash, i) => hash === pieces('kalominer', 10)[i])).toBe(false);
  });
});

describe("Chromium's edit-distance exclusions", () => {
  it.each([
    ['google', 'google'], // only the suffix differs
    ['site45', 'site35'], // numeric suffix
    ['tank', 'hank'], // first character
    ['oodle', 'poodle'],
    ['pay-pal', 'paypal'], // a hyphen
  ])('%s vs %s is a likely false positive', (a, b) => {
    expect(isLikelyEditDistanceFalsePositive(a, b)).toBe(true);
  });

  it('keeps a first-character swap of look-alike letters (lcloud / icloud)', () => {
    expect(isLikelyEditDistanceFalsePositive('lcloud', 'icloud')).toBe(false);
  });
});

describe('isPlausibleTypo', () => {
  it.each([
    ['paypak', 'paypal'], // neighbouring key
    ['gooogle', 'google'], // doubled letter
    ['paypall', 'paypal'], // doubled last letter
    ['gogle', 'google'], // dropped letter
    ['whatsap', 'whatsapp'], // dropped doubled last letter
    ['githubusercontents', 'githubusercontent'], // plural s
    ['paypai', 'paypal'], // look-alike letter
  ])('%s is a typo of %s', (a, b) => {
    expect(isPlausibleTypo(a, b)).toBe(true);
  });

  it.each([
    ['tiktokv', 'tiktok'], // another letter appended: another name
    ['slackb', 'slack'],
    ['googl', 'google'], // the last letter dropped
    ['deqik', 'detik'], // far-apart keys
    ['chanel', 'cpanel'],
  ])('%s is another word, not a typo of %s', (a, b) => {
    expect(isPlausibleTypo(a, b)).toBe(false);
  });
});

describe('phoneticKey', () => {
  it('spells alike what sounds alike', () => {
    expect(phoneticKey('salesforse')).toBe(phoneticKey('salesforce'));
    expect(phoneticKey('dropboks')).toBe(phoneticKey('dropbox'));
    expect(phoneticKey('amason')).toBe(phoneticKey('amazon'));
    expect(phoneticKey('icloud')).toBe('icloud');
  });

  it('phoneticKeyHash is the keyHash of the phonetic key, without building it', () => {
    // Letters the rules read (ph, cs, ks, ck, ce, ci, cy, z) next to others, and non-ASCII code units.
    const letter = fc.constantFrom('p', 'h', 'c', 'k', 's', 'z', 'e', 'i', 'y', 'a', 'x', '-', 'é', 'к');
    fc.assert(
      fc.property(fc.array(letter, { maxLength: 40 }), (letters) => {
        const label = letters.join('');
        expect(phoneticKeyHash(label)).toBe(keyHash(phoneticKey(label)));
      }),
      { numRuns: 2000 },
    );
    // Past the characters `keyHash` reads: the key is shorter than the label where two letters became one.
    for (const label of ['ph'.repeat(200), 'z'.repeat(MAX_HASHED + 7), `${'a'.repeat(MAX_HASHED - 1)}ck`, `${'ck'.repeat(130)}zz`])
      expect(phoneticKeyHash(label)).toBe(keyHash(phoneticKey(label)));
  });
});

describe('pairFlags', () => {
  // A key read for its hashes skips `phoneticKey` and `foldAscii` when its flags say neither applies.
  const holds = (text: string): void => {
    const flags = pairFlags(text);
    if ((flags & MAY_SOUND) === 0) expect(phoneticKey(text), text).toBe(text);
    if ((flags & MAY_FOLD) === 0) expect(foldAscii(text), text).toBe(text);
  };

  it('raises a flag for every pair a rewrite reads, after any character (all pairs of ASCII and some others)', () => {
    const units = [...Array.from({ length: 128 }, (_, c) => String.fromCharCode(c)), 'é', 'к', '\u0170', '\u00f0', '\u01e8'];
    for (const a of units) {
      holds(a);
      for (const b of units) holds(a + b);
    }
  });

  it('holds for longer text too', () => {
    const unit = fc.constantFrom(...'phcksziyenrvw01-._a'.split(''), 'é', '\u00f0');
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 24 }), (units) => holds(units.join(''))),
      { numRuns: 2000 },
    );
  });

  it('raises none for most labels', () => {
    for (const label of ['github', 'example', 'wikipedia', 'a-b_c.d']) expect(pairFlags(label)).toBe(0);
    expect(pairFlags('paypa1') & MAY_FOLD).not.toBe(0);
    expect(pairFlags('amazon') & MAY_SOUND).not.toBe(0);
  });
});

describe('pushTokenHashes', () => {
  /** The hashes the look-alike indexes key a host's tokens by: each token of the folded text, and a "www" token without it. */
  function tokenHashes(text: string): number[] {
    const out: number[] = [];
    for (const token of foldAscii(text).split(/[.\-_]/)) {
      if (token === '') continue;
      out.push(keyHash(token));
      if (isWwwToken(token, 0, token.length)) out.push(keyHash(token.slice(3)));
    }
    return out;
  }

  const pushed = (text: string, from = 0): number[] => {
    const out = new Int32Array(text.length * 2 + from + 2).fill(-1);
    const count = pushTokenHashes(text, out, from);
    // Nothing before `from` is written.
    expect(Array.from(out.subarray(0, from))).toEqual(Array<number>(from).fill(-1));
    return Array.from(out.subarray(from, count));
  };

  it('hashes the tokens of the folded text, "www" tokens also without it', () => {
    const unit = fc.constantFrom(...'wwwvvrn01pal.-_'.split(''), 'é');
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 30 }), fc.nat({ max: 3 }), (units, from) => {
        const text = units.join('');
        expect(pushed(text, from)).toEqual(tokenHashes(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('reads at most MAX_HASHED characters of a token, as keyHash does', () => {
    for (const text of [
      'a'.repeat(MAX_HASHED + 20),
      `x.${'w'.repeat(MAX_HASHED + 5)}-y`,
      `${'b'.repeat(MAX_HASHED)}1.c`,
      `www${'rn'.repeat(MAX_HASHED)}`,
      `vv${'v'.repeat(MAX_HASHED + 3)}`,
    ])
      expect(pushed(text)).toEqual(tokenHashes(text));
  });

  it('hashes the examples the rules read', () => {
    expect(pushed('login.wwwpaypal')).toEqual([keyHash('login'), keyHash('wwwpaypal'), keyHash('paypal')]);
    expect(pushed('ns1.rnail-x')).toEqual([keyHash('nsl'), keyHash('mail'), keyHash('x')]);
    expect(pushed('vvvvvvpaypal')).toEqual([keyHash('wwwpaypal'), keyHash('paypal')]);
  });
});
