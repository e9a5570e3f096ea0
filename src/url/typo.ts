import { foldAscii } from './skeleton.js';

/**
 * String distances for typosquat detection: one edit or one swap (Chromium's
 * `IsEditDistanceAtMostOne`, `HasOneCharacterSwap`), Chromium's false-positive exclusions, a
 * typing model that tells a typo from another word, a phonetic key, and the hashed
 * deletion neighbourhood that finds one-edit candidates without scanning the protected list.
 */

/** Levenshtein distance ≤ 1 in O(n) (Chromium `IsEditDistanceAtMostOne`). */
export function editDistanceAtMostOne(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  let j = 0;
  let edits = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      i++;
      j++;
      continue;
    }
    if (++edits > 1) return false;
    if (a.length > b.length) i++;
    else if (b.length > a.length) j++;
    else {
      i++;
      j++;
    }
  }
  if (i < a.length || j < b.length) edits++;
  return edits <= 1;
}

/** Exactly one swap of two adjacent characters (`githbu` / `github`). */
export function hasOneSwap(a: string, b: string): boolean {
  if (a.length !== b.length || a.length < 2) return false;
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  if (i >= a.length - 1) return false;
  return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
}

const KEYBOARD_ROWS = ['1234567890', 'qwertyuiop', 'asdfghjkl', 'zxcvbnm'];
const KEYBOARD_NEIGHBOURS: ReadonlyMap<string, ReadonlySet<string>> = (() => {
  const map = new Map<string, Set<string>>();
  KEYBOARD_ROWS.forEach((row, r) => {
    for (let c = 0; c < row.length; c++) {
      const near = new Set<string>();
      const add = (rr: number, cc: number): void => {
        const ch = KEYBOARD_ROWS[rr]?.[cc];
        if (ch !== undefined) near.add(ch);
      };
      add(r, c - 1);
      add(r, c + 1);
      add(r - 1, c);
      add(r - 1, c + 1);
      add(r + 1, c - 1);
      add(r + 1, c);
      map.set(row[c]!, near);
    }
  });
  return map;
})();
// Letters that read alike in most fonts, beyond what the skeleton and the ASCII fold map.
const SIMILAR = new Set(['il', 'li', 'ij', 'ji', 'lj', 'jl', 'ce', 'ec', 'uv', 'vu', 'oa', 'ao', 'nh', 'hn']);

export function lookAlikeLetters(a: string, b: string): boolean {
  return SIMILAR.has(a + b);
}

function nearOrSimilar(a: string, b: string): boolean {
  return KEYBOARD_NEIGHBOURS.get(a)?.has(b) === true || SIMILAR.has(a + b);
}

/**
 * Chromium's `IsLikelyEditDistanceFalsePositive` on the labels: only the suffix differs, only a
 * numeric suffix differs, the change is at the first character (`hank`/`tank`, unless the two
 * letters look alike: `lcloud`), or a hyphen.
 */
export function isLikelyEditDistanceFalsePositive(label: string, target: string): boolean {
  if (label === target) return true;
  if (label.replace(/[0-9]+$/, '') === target.replace(/[0-9]+$/, '')) return true;
  if (label.length === target.length) {
    if (label.slice(1) === target.slice(1) && !lookAlikeLetters(label[0]!, target[0]!)) return true;
  } else if (label.length < target.length ? label === target.slice(1) : label.slice(1) === target) {
    return true;
  }
  if (label.length !== target.length) {
    const [longer, shorter] = label.length > target.length ? [label, target] : [target, label];
    let k = 0;
    while (k < shorter.length && longer[k] === shorter[k]) k++;
    if (longer[k] === '-') return true;
  }
  return false;
}

/**
 * Whether a one-edit difference between `label` and the protected `target` is a typo a person
 * makes or misreads (a neighbouring key, a look-alike letter, a doubled or dropped letter, a
 * plural `s`), rather than another word: `tiktokv`, `slackb` (a letter appended) and `googl`
 * (the last letter dropped) name other things far more often than they squat.
 */
export function isPlausibleTypo(label: string, target: string): boolean {
  let i = 0;
  while (i < label.length && i < target.length && label[i] === target[i]) i++;
  if (label.length === target.length) return nearOrSimilar(label[i]!, target[i]!);
  if (label.length === target.length + 1) {
    // An extra character at i.
    const extra = label[i]!;
    const before = label[i - 1];
    const after = label[i + 1];
    if (i === 0) return false;
    if (after === undefined) return extra === before || extra === 's';
    return extra === before || extra === after || nearOrSimilar(extra, before!) || nearOrSimilar(extra, after);
  }
  // A dropped character at i: anywhere but the first; the last only when it was doubled (`whatsap`).
  if (i === 0) return false;
  return i < target.length - 1 || target[i] === target[i - 1];
}

/**
 * A spelling-by-sound key: `ph`→`f`, `ck`→`k`, `ks`/`cs`→`x`, soft `c`→`s`, `z`→`s`
 * (`salesforse`, `dropboks`, `amason` read as the brand).
 */
export function phoneticKey(label: string): string {
  // Most labels hold no sound-alike spelling: return them as they are without copying, and copy
  // the others in runs between the places a rule applies.
  let at = firstPhoneticChange(label, 0);
  if (at < 0) return label;
  let out = '';
  let copied = 0;
  while (at >= 0) {
    out += label.slice(copied, at);
    const ch = label.charCodeAt(at);
    const next = at + 1 < label.length ? label.charCodeAt(at + 1) : -1;
    if (ch === 0x70) {
      out += 'f'; // ph
      copied = at + 2;
    } else if ((ch === 0x63 || ch === 0x6b) && (next === 0x73 || next === 0x6b)) {
      out += next === 0x73 ? 'x' : 'k'; // cs, ks, ck
      copied = at + 2;
    } else {
      out += 's'; // ce, ci, cy, z
      copied = at + 1;
    }
    at = firstPhoneticChange(label, copied);
  }
  return out + label.slice(copied);
}

/**
 * `keyHash(phoneticKey(label))` without building the key: the same rules in one pass, each
 * character of the key hashed as it is produced.
 */
export function phoneticKeyHash(label: string): number {
  let h = 0;
  let produced = 0;
  const base = HASH_BASE;
  for (let i = 0; i < label.length && produced < MAX_HASHED; produced++) {
    const c = label.charCodeAt(i);
    const next = i + 1 < label.length ? label.charCodeAt(i + 1) : -1;
    let out = c;
    let step = 1;
    if (c === 0x7a) {
      out = 0x73; // z
    } else if (c === 0x70 && next === 0x68) {
      out = 0x66; // ph
      step = 2;
    } else if ((c === 0x63 || c === 0x6b) && next === 0x73) {
      out = 0x78; // cs, ks
      step = 2;
    } else if (c === 0x63 && next === 0x6b) {
      out = 0x6b; // ck
      step = 2;
    } else if (c === 0x63 && (next === 0x65 || next === 0x69 || next === 0x79)) {
      out = 0x73; // ce, ci, cy
    }
    h = (Math.imul(h, base) + out) | 0;
    i += step;
  }
  return h & 0x3fffffff;
}

/**
 * What a character is as the first of a pair that `phoneticKey` or `foldAscii` rewrites (`p` of
 * `ph`, `k` of `ks`, `c` of `cs`/`ck`/`ce`/`ci`/`cy`, `r` of `rn`, `v` of `vv`), or whether it
 * separates tokens (`.`, `-`, `_`: `SEPARATOR_ROLE`), by its low seven bits; 0 for the rest.
 * With `PAIR_FLAGS`, a pass that reads a key for its hashes learns in two table reads a
 * character whether either rewrite may apply, instead of testing each pattern.
 */
export const CHAR_ROLES = new Uint8Array(128);
export const SEPARATOR_ROLE = 6;
/** A `PAIR_FLAGS` bit: a rule of `phoneticKey` may apply. */
export const MAY_SOUND = 1;
/** A `PAIR_FLAGS` bit: `foldAscii` may change the text. */
export const MAY_FOLD = 2;
/**
 * `PAIR_FLAGS[(role << 7) | (c & 0x7f)]`: the rewrites that may apply at a character `c` after
 * one of `CHAR_ROLES` `role`. A character past ASCII reads as its low seven bits, which can only
 * raise a flag that does not apply (the caller then reads the rewritten text, equal to the text).
 */
export const PAIR_FLAGS = new Uint8Array((SEPARATOR_ROLE + 1) << 7);
{
  const roles: readonly (readonly [string, number])[] = [
    ['p', 1],
    ['k', 2],
    ['c', 3],
    ['r', 4],
    ['v', 5],
    ['.', SEPARATOR_ROLE],
    ['-', SEPARATOR_ROLE],
    ['_', SEPARATOR_ROLE],
  ];
  for (const [ch, role] of roles) CHAR_ROLES[ch.charCodeAt(0)] = role;
  const pair = (role: number, next: string, flag: number): void => {
    for (const ch of next) PAIR_FLAGS[(role << 7) | ch.charCodeAt(0)]! |= flag;
  };
  // `z`, `0` and `1` are rewritten whatever comes before them.
  for (let role = 0; role <= SEPARATOR_ROLE; role++) {
    pair(role, 'z', MAY_SOUND);
    pair(role, '01', MAY_FOLD);
  }
  pair(1, 'h', MAY_SOUND);
  pair(2, 's', MAY_SOUND);
  pair(3, 'skeiy', MAY_SOUND);
  pair(4, 'n', MAY_FOLD);
  pair(5, 'v', MAY_FOLD);
}

/** The `PAIR_FLAGS` of every pair of `text`, as a pass over it gathers them: no `MAY_SOUND`, no rule of `phoneticKey` applies; no `MAY_FOLD`, `foldAscii` returns it as it is. */
export function pairFlags(text: string): number {
  let flags = 0;
  let role = 0;
  for (let i = 0; i < text.length; i++) {
    const low = text.charCodeAt(i) & 0x7f;
    flags |= PAIR_FLAGS[(role << 7) | low]!;
    role = CHAR_ROLES[low]!;
  }
  return flags;
}

/** Where a rule of `phoneticKey` first applies at or after `from` (`ph`, `cs`, `ks`, `ck`, `ce`/`ci`/`cy`, `z`), or -1. */
function firstPhoneticChange(label: string, from: number): number {
  for (let i = from; i < label.length; i++) {
    const c = label.charCodeAt(i);
    if (c === 0x7a) return i;
    if ((c === 0x70 || c === 0x63 || c === 0x6b) && i + 1 < label.length) {
      const next = label.charCodeAt(i + 1);
      if (
        c === 0x70
          ? next === 0x68
          : c === 0x6b
            ? next === 0x73
            : next === 0x73 || next === 0x6b || next === 0x65 || next === 0x69 || next === 0x79
      )
        return i;
    }
  }
  return -1;
}

export const HASH_BASE = 131;
export const MAX_HASHED = 253;
/** `HASH_BASE` to the power `i` (mod 2^32) at `i`: the hash of a piece of a text from its prefix hashes. */
export const POWERS: Int32Array = (() => {
  const p = new Int32Array(MAX_HASHED + 1);
  p[0] = 1;
  for (let i = 1; i <= MAX_HASHED; i++) p[i] = Math.imul(p[i - 1]!, HASH_BASE);
  return p;
})();
const PREFIX = new Int32Array(MAX_HASHED + 1);
/** Output buffer of `neighbourhoodHashes`, reused (the engine is synchronous). */
export const HASHES = new Int32Array(MAX_HASHED + 1);

/** The polynomial hash of `text` (the first value `neighbourhoodHashes` writes). */
export function keyHash(text: string): number {
  let h = 0;
  const n = Math.min(text.length, MAX_HASHED);
  for (let i = 0; i < n; i++) h = (Math.imul(h, HASH_BASE) + text.charCodeAt(i)) | 0;
  return h & 0x3fffffff;
}

/**
 * `keyHash` of `text` from `start` to `end` followed by `text` from `start2` to `end2` (none by
 * default), without cutting either out.
 */
export function rangeKeyHash(text: string, start: number, end: number, start2 = 0, end2 = 0): number {
  let h = 0;
  let read = 0;
  for (let i = start; i < end && read < MAX_HASHED; i++, read++) h = (Math.imul(h, HASH_BASE) + text.charCodeAt(i)) | 0;
  for (let i = start2; i < end2 && read < MAX_HASHED; i++, read++) h = (Math.imul(h, HASH_BASE) + text.charCodeAt(i)) | 0;
  return h & 0x3fffffff;
}

/** The token of `key` from `start` to `end` has more than six characters and starts with "www" (`embedding` strips it). */
export function isWwwToken(key: string, start: number, end: number): boolean {
  return end - start > 6 && key.charCodeAt(start) === 0x77 && key.charCodeAt(start + 1) === 0x77 && key.charCodeAt(start + 2) === 0x77;
}

/**
 * Appends the `keyHash` of each token of `foldAscii(text)` (split at dots, hyphens and
 * underscores) to `out` from `count` and returns the new count; after a token that
 * `isWwwToken`, also the hash of the token without its "www" (`embedding` looks `wwwpaypal` up
 * as `paypal`). The hashes are computed as the text is read, so no token string is cut, and the
 * same pass tells (`PAIR_FLAGS`) whether the fold may change the text: only then is the folded
 * text built and read instead (`ns1`, `mx0`: most text has no fold).
 */
export function pushTokenHashes(text: string, out: Int32Array, count: number): number {
  const first = count;
  const roles = CHAR_ROLES;
  const pairs = PAIR_FLAGS;
  const base = HASH_BASE;
  let flags = 0;
  let role = 0;
  let h = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const low = c & 0x7f;
    flags |= pairs[(role << 7) | low]!;
    role = roles[low]!;
    if (role === SEPARATOR_ROLE && (c === 0x2e || c === 0x2d || c === 0x5f)) {
      if (i > start) count = pushToken(text, start, i, h, out, count);
      h = 0;
      start = i + 1;
    } else h = (Math.imul(h, base) + c) | 0;
  }
  if (text.length > start) count = pushToken(text, start, text.length, h, out, count);
  if ((flags & MAY_FOLD) === 0) return count;
  const folded = foldAscii(text);
  return folded === text ? count : pushTokenHashes(folded, out, first);
}

/** `pushTokenHashes` of one token, `h` the hash of all its characters. */
function pushToken(text: string, start: number, end: number, h: number, out: Int32Array, count: number): number {
  // `keyHash` reads at most `MAX_HASHED` characters of a key.
  out[count++] = end - start > MAX_HASHED ? rangeKeyHash(text, start, end) : h & 0x3fffffff;
  if (isWwwToken(text, start, end)) out[count++] = rangeKeyHash(text, start + 3, end);
  return count;
}

/**
 * Polynomial hashes (mod 2^32, masked to 30 bits so they stay small integers) of `text` and of
 * `text` with each single character removed, in O(n) and without building the strings, written
 * to `HASHES`; returns how many. Two strings within one edit or one swap share a hash of this
 * neighbourhood; collisions only add candidates, which are verified.
 *
 * With `filter` (a bit per hash, indexed like `hashFilterHas`), only the hashes whose bit is set
 * are written, in the same order: a lookup that nearly every hash misses then reads none back.
 * `out` is the buffer written (`HASHES` unless given).
 */
export function neighbourhoodHashes(text: string, filter?: Uint32Array, out: Int32Array = HASHES): number {
  const n = prefixHashes(text, PREFIX);
  if (filter === undefined) return deletionHashes(PREFIX, n, out);
  return filteredDeletionHashes(PREFIX, n, filter, out);
}

/**
 * `neighbourhoodHashes` of a text of `n` characters (at most `MAX_HASHED`) from its prefix
 * hashes (`prefix[i]` is the hash of its first `i` characters, as `keyHash` computes them),
 * for a caller that computed them while reading the text for something else.
 */
export function deletionHashes(prefix: Int32Array, n: number, out: Int32Array): number {
  const powers = POWERS;
  const full = prefix[n]!;
  out[0] = full & 0x3fffffff;
  for (let i = 0; i < n; i++) {
    const power = powers[n - 1 - i]!;
    const after = (full - Math.imul(prefix[i + 1]!, power)) | 0;
    out[i + 1] = ((Math.imul(prefix[i]!, power) + after) | 0) & 0x3fffffff;
  }
  return n + 1;
}

function filteredDeletionHashes(prefix: Int32Array, n: number, filter: Uint32Array, out: Int32Array): number {
  const full = prefix[n]!;
  let count = 0;
  let hash = full & 0x3fffffff;
  if (hashFilterHas(filter, hash)) out[count++] = hash;
  for (let i = 0; i < n; i++) {
    const tail = n - 1 - i;
    const after = (full - Math.imul(prefix[i + 1]!, POWERS[tail]!)) | 0;
    hash = ((Math.imul(prefix[i]!, POWERS[tail]!) + after) | 0) & 0x3fffffff;
    if (hashFilterHas(filter, hash)) out[count++] = hash;
  }
  return count;
}

/** The bit of `hash` in a filter of `filter.length` (a power of two) 32-bit words. */
export function hashFilterHas(filter: Uint32Array, hash: number): boolean {
  return (filter[(hash >>> 5) & (filter.length - 1)]! & (1 << (hash & 31))) !== 0;
}

/** Keys of this many characters have their one-edit neighbours sought by `pieceHashes` first; longer keys probe their whole neighbourhood. */
export const MAX_PIECED = 64;

/**
 * Three hashes that a key of `n` characters (`MAX_PIECED` at most) shares with every key within
 * one edit or one swap of it, at least one of them: its first `t` characters, its last `t`, and
 * its first and last `m` together, where `t = ⌊2(n − 1)/3⌋` and `m = n − t − 1`, each tagged with
 * `n`. An edit at position `i` (for a swap, of positions `i` and `i + 1`) leaves the first `t`
 * characters as they were when `i ≥ t`, the last `t` when `i ≤ n − t − 2`, and the first and last
 * `m` when `m ≤ i ≤ n − m − 2`; with these lengths the three ranges cover every position. A
 * filter of these hashes (three reads) thus stands before the deletion neighbourhood (`n + 1`
 * reads), and most keys share none of them with any site.
 *
 * `prefix` holds the prefix hashes of a key of `length` characters (`length ≤ MAX_HASHED`, as
 * `neighbourhoodHashes` computes them): the key's own pieces for `length === n`; for a protected
 * label of `length` within one of `n`, the pieces a key of `n` characters shares with it.
 */
export function pieceHashes(prefix: Int32Array, length: number, n: number, out: Int32Array): void {
  const t = (((n - 1) * 2) / 3) | 0;
  const m = n - t - 1;
  const full = prefix[length]!;
  const powers = POWERS;
  out[0] = mixPiece(prefix[t]!, n, 1);
  out[1] = mixPiece((full - Math.imul(prefix[length - t]!, powers[t]!)) | 0, n, 2);
  const ends = (Math.imul(prefix[m]!, 0x9e3779b1) + ((full - Math.imul(prefix[length - m]!, powers[m]!)) | 0)) | 0;
  out[2] = mixPiece(ends, n, 3);
}

/** A piece's polynomial hash mixed with the key length and which piece it is (murmur3's finaliser), 30 bits. */
function mixPiece(hash: number, n: number, piece: number): number {
  let h = hash ^ Math.imul(n * 4 + piece, 0x27d4eb2d);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) & 0x3fffffff;
}

/** The prefix hashes of `text` (its first `MAX_HASHED` characters) into `out`, as `neighbourhoodHashes` computes them; returns how many characters. */
export function prefixHashes(text: string, out: Int32Array): number {
  const n = Math.min(text.length, MAX_HASHED);
  out[0] = 0;
  for (let i = 0; i < n; i++) out[i + 1] = (Math.imul(out[i]!, HASH_BASE) + text.charCodeAt(i)) | 0;
  return n;
}
