/**
 * Look-alikes of protected domains, after Chromium's `components/lookalikes`: skeleton matches
 * (homographs), one-edit typosquats with Chromium's false-positive exclusions, target embedding
 * (`paypal.com.evil.net`) and combo-squatting (`paypal-login-secure.com`).
 *
 * Every index is built once per set of protected sites (module load for the built-in list, once
 * per distinct `policy.url.protectedDomains`), so a call costs a few map lookups and regex tests
 * on a plain ASCII host, never a scan of the protected list.
 */
import { UrlFinding, type UrlFindingCode } from './codes.js';
import { toUnicodeHost, type HostParts } from './host.js';
import {
  BRAND_ALIASES,
  BUILT_IN_SITES,
  SKELETON_ONLY_SITES,
  COMMON_WORD_LABELS,
  GENERIC_WORD_LABELS,
  toProtectedSite,
  type ProtectedSite,
} from './protected.js';
import { cachedByList } from './settings.js';
import { foldAscii, labelKey as keyOf, labelKeys } from './skeleton.js';
import {
  editDistanceAtMostOne,
  HASH_BASE,
  HASHES,
  hasOneSwap,
  isLikelyEditDistanceFalsePositive,
  isPlausibleTypo,
  keyHash,
  MAX_HASHED,
  neighbourhoodHashes,
  phoneticKey,
} from './typo.js';

export interface LookalikeMatch {
  readonly code: UrlFindingCode;
  readonly severity: 'error' | 'warning';
  /** The protected domain it imitates. */
  readonly target: string;
  /** What kind of imitation, in words. */
  readonly how: string;
}

// Chromium's combo-squatting keywords, the words the issue adds, and the lures phishing kits pair
// with brands most (refunds, invoices, gifts, shared documents).
const KEYWORDS = [
  'account',
  'activate',
  'admin',
  'coin',
  'crypto',
  'login',
  'logout',
  'password',
  'secure',
  'security',
  'signin',
  'signout',
  'wallet',
  'verify',
  'verification',
  'update',
  'support',
  'billing',
  'auth',
  'confirm',
  'recovery',
  'recover',
  'unlock',
  'validate',
  'refund',
  'invoice',
  'payment',
  'gift',
  'giveaway',
  'reward',
  'claim',
  'airdrop',
  'share',
  'helpdesk',
  'trade',
  // The lures of combosquats in phishing reports (issue 12: `<brand>-support`, `docs-<brand>`):
  // account alerts, invitations, payouts, document envelopes, recovery and appeal pages, offers.
  'restore',
  'alert',
  'invite',
  'payout',
  'envelope',
  'copyright',
  'appeal',
  'premium',
  'offer',
  'findmy',
];
/** Short lure words that count only as a whole token (`docs-github`, `binance-kyc`), never inside a word (`video`). */
const WHOLE_TOKEN_KEYWORDS: ReadonlySet<string> = new Set(['id', 'kyc', 'free', 'jobs', 'docs', 'mfa', '2fa', 'otp', 'wallets']);
const KEYWORD_SET: ReadonlySet<string> = new Set(KEYWORDS);
const KEYWORD_RE = new RegExp(
  KEYWORDS.slice()
    .sort((a, b) => b.length - a.length)
    .join('|'),
  'g',
);

// Registrable domains of CDN and traffic-steering services whose edge host names are built from
// the customer's own host name (`www.example.com.edgekey.net`). Only the provider's customers can
// create such names and no user is sent to them, so an embedded protected domain there is a
// warning, not a block.
const EDGE_HOST_DOMAINS: ReadonlySet<string> = new Set([
  'akadns.net',
  'akamai.net',
  'akamaiedge.net',
  'akamaihd.net',
  'akamaized.net',
  'akahost.net',
  'edgekey.net',
  'edgesuite.net',
  'srip.net',
  'trafficmanager.net',
  'azureedge.net',
  'azurefd.net',
  'msedge.net',
  'a-msedge.net',
  'b-msedge.net',
  'l-msedge.net',
  's-msedge.net',
  'spo-msedge.net',
  'nsatc.net',
  'cloudflare.net',
  'fastly.net',
  'fastlylb.net',
  'cloudfront.net',
  'edgecastcdn.net',
  'llnwd.net',
  'alibabadns.com',
  'cdngslb.com',
  'tbcache.com',
  'aaplimg.com',
  'apple-dns.net',
  'k-msedge.net',
  'e-msedge.net',
  't-msedge.net',
  'dual-s-msedge.net',
  'ampproject.org',
  'ampproject.net',
]);

/**
 * Generic top-level domains among the most abused for phishing (Interisle Consulting's
 * "Phishing Landscape" and Spamhaus's most-abused TLD reports: cheap registrations), plus `.zip`
 * and `.mov`, which read as file names. A protected brand as the whole site name under one of
 * them blocks; under any other top-level domain (country codes included, where brands hold many
 * defensive registrations) it warns.
 */
const ABUSED_TLDS: ReadonlySet<string> = new Set([
  'top',
  'xyz',
  'icu',
  'cfd',
  'sbs',
  'click',
  'buzz',
  'site',
  'online',
  'live',
  'shop',
  'info',
  'ltd',
  'cyou',
  'co',
  'rest',
  'monster',
  'quest',
  'bond',
  'vip',
  'club',
  'work',
  'support',
  'fun',
  'space',
  'website',
  'store',
  'today',
  'cam',
  'mom',
  'lol',
  'bar',
  'beauty',
  'hair',
  'skin',
  'makeup',
  'boats',
  'autos',
  'homes',
  'pics',
  'best',
  'world',
  'life',
  'win',
  'bid',
  'loan',
  'men',
  'date',
  'racing',
  'review',
  'stream',
  'download',
  'accountant',
  'faith',
  'science',
  'party',
  'cricket',
  'country',
  'kim',
  'gdn',
  'link',
  'help',
  'email',
  'host',
  'press',
  'uno',
  'zip',
  'mov',
  'account',
  'services',
  'digital',
  'center',
  'sale',
  'wang',
  'ren',
]);

/** Minimum label length for edit-distance matches (Chromium `kMinLengthForEditDistance`); curated brands from 4. */
const MIN_EDIT_DISTANCE_LABEL = 5;
const MIN_EDIT_DISTANCE_CURATED = 4;
/** Minimum label length of an embedding target (Chromium `kMinE2LDLengthForTargetEmbedding`). */
const MIN_EMBEDDED_LABEL = 4;
/** Shortest brand matched inside a longer label; shorter brands (`aws`) only as whole tokens. */
const MIN_COMBO_SUBSTRING = 4;

interface IndexedSite {
  readonly site: ProtectedSite;
  /** Look-alike key of the label. */
  readonly labelKey: string;
  readonly suffixLabels: readonly string[];
}

interface Tokens {
  readonly keys: readonly string[];
  /** The separator after each token: '.', '-' or '' (last token). */
  readonly separators: readonly string[];
  /** `keyHash` of each key, shared by every map the tokens are looked up in. */
  readonly hashes: readonly number[];
  /** How many of the tokens come from the subdomain (they come first). */
  readonly subdomainCount: number;
}

const NONE: readonly never[] = Object.freeze([]);
const KEY_FILTER_WORDS = 1 << 12;

/**
 * Test-only: when set, every probabilistic filter of this module (key maps' bits, the token
 * filter, the neighbourhood filter, the word-start filters) answers "maybe", so every gate lets
 * every host through and only the rules decide. A sound gate skips only work that finds nothing,
 * so the results are the same either way (test/url/gates.test.ts).
 */
let filtersAlwaysMaybe = false;

/** Test-only switch: `true` makes every filter of the look-alike engine answer "maybe". */
export function setFiltersAlwaysMaybe(on: boolean): void {
  filtersAlwaysMaybe = on;
}

/**
 * A map from look-alike keys to sites with a bit filter in front: most labels are no key at
 * all, and the filter answers that from the label's own hash without hashing a fresh string
 * into the map.
 */
class KeyMap {
  private readonly map = new Map<string, IndexedSite[]>();
  private readonly bits = new Uint32Array(KEY_FILTER_WORDS);

  add(key: string, site: IndexedSite): void {
    push(this.map, key, site);
    const h = keyHash(key);
    this.bits[(h >>> 5) & (KEY_FILTER_WORDS - 1)]! |= 1 << (h & 31);
  }

  get(key: string, hash = keyHash(key)): readonly IndexedSite[] | undefined {
    if (!this.mayHave(hash)) return undefined;
    return this.map.get(key);
  }

  /** False when no key with this `keyHash` is in the map. */
  mayHave(hash: number): boolean {
    if (filtersAlwaysMaybe) return true;
    return (this.bits[(hash >>> 5) & (KEY_FILTER_WORDS - 1)]! & (1 << (hash & 31))) !== 0;
  }

  has(key: string, hash = keyHash(key)): boolean {
    return this.get(key, hash) !== undefined;
  }

  keys(): IterableIterator<string> {
    return this.map.keys();
  }

  /** Adds this map's filter bits to `filter` (same size and hash). */
  orInto(filter: Uint32Array): void {
    for (let i = 0; i < KEY_FILTER_WORDS; i++) filter[i]! |= this.bits[i]!;
  }
}

const NO_TOKENS: Tokens = Object.freeze({ keys: NONE, separators: NONE, hashes: NONE, subdomainCount: 0 });

/**
 * True when a token of `text` (split at dots and hyphens) may be a key of a map whose bits are in
 * `filter`, or a token of more than six characters that starts with "www" may be one without it
 * (`embedding` looks up `wwwpaypal` as `paypal`): the `keyHash` of each token, computed as the
 * text is read, so no token string is cut.
 */
function anyTokenInFilter(text: string, filter: Uint32Array): boolean {
  if (filtersAlwaysMaybe) return true;
  let h = 0;
  let length = 0;
  // The hash of the token after its first three characters, while it starts with "www".
  let rest = 0;
  let www = false;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 0x2e;
    if (c !== 0x2e && c !== 0x2d && c !== 0x5f) {
      // `keyHash` reads at most MAX_HASHED characters of a key.
      if (length < MAX_HASHED) h = (Math.imul(h, HASH_BASE) + c) | 0;
      if (length < 3) www = (length === 0 || www) && c === 0x77;
      else if (www && length < MAX_HASHED + 3) rest = (Math.imul(rest, HASH_BASE) + c) | 0;
      length++;
      continue;
    }
    if (length > 0) {
      const hash = h & 0x3fffffff;
      if ((filter[(hash >>> 5) & (KEY_FILTER_WORDS - 1)]! & (1 << (hash & 31))) !== 0) return true;
      const stripped = rest & 0x3fffffff;
      if (www && length > 6 && (filter[(stripped >>> 5) & (KEY_FILTER_WORDS - 1)]! & (1 << (stripped & 31))) !== 0) return true;
    }
    h = 0;
    rest = 0;
    www = false;
    length = 0;
  }
  return false;
}
/** 2^20 bits: with a few thousand hashes indexed, a miss is almost always decided here. */
const HASH_FILTER_WORDS = 1 << 15;

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else if (!list.includes(value)) list.push(value);
}

/**
 * A bit per hash of each word's first four characters (every word has four or more). Text in
 * which no four-character window hits a bit contains none of the words, which settles most
 * labels without running a regex of every word over them.
 */
class WordStartFilter {
  private static readonly LOG2_BITS = 12;
  private readonly bits = new Uint32Array((1 << WordStartFilter.LOG2_BITS) >>> 5);

  constructor(words: Iterable<string>) {
    for (const word of words) {
      let window = 0;
      for (let i = 0; i < 4; i++) window = (window << 8) | (word.charCodeAt(i) & 0xff);
      const bit = WordStartFilter.bitOf(window);
      this.bits[bit >>> 5]! |= 1 << (bit & 31);
    }
  }

  private static bitOf(window: number): number {
    return Math.imul(window, 0x9e3779b1) >>> (32 - WordStartFilter.LOG2_BITS);
  }

  mayContain(text: string): boolean {
    if (filtersAlwaysMaybe) return true;
    // Only the low byte of each character enters the window: a word (ASCII) still hashes to its
    // own bit, and other text can only collide. The window stays a signed 32-bit integer (no
    // `>>> 0`), so it never leaves the engine's integer range.
    let window = 0;
    for (let i = 0; i < text.length; i++) {
      window = (window << 8) | (text.charCodeAt(i) & 0xff);
      if (i < 3) continue;
      const bit = WordStartFilter.bitOf(window);
      if ((this.bits[bit >>> 5]! & (1 << (bit & 31))) !== 0) return true;
    }
    return false;
  }
}

/**
 * Finds brands inside a label with one hashed-set probe per (position, brand length): the cost
 * grows with the label and the number of distinct brand lengths, not with the number of brands
 * (a regex of alternatives tries every brand at every position). A `WordStartFilter` on the
 * brands' first four characters skips the positions where no brand starts.
 */
class BrandScanner {
  private readonly brands: ReadonlySet<string>;
  /** Distinct brand lengths, longest first. */
  private readonly lengths: readonly number[];
  private readonly starts: WordStartFilter;

  constructor(brands: readonly string[]) {
    this.brands = new Set(brands);
    this.lengths = [...new Set(brands.map((b) => b.length))].sort((a, b) => b - a);
    this.starts = new WordStartFilter(brands);
  }

  /** False when no brand can occur in `text`. */
  mayContain(text: string): boolean {
    return this.lengths.length > 0 && this.starts.mayContain(text);
  }

  /** The longest brand that starts at `at` in `text`, or null. */
  longestAt(text: string, at: number): string | null {
    for (const length of this.lengths) {
      if (at + length > text.length) continue;
      const piece = text.slice(at, at + length);
      if (this.brands.has(piece)) return piece;
    }
    return null;
  }
}

const KEYWORD_STARTS = new WordStartFilter(KEYWORDS);

function anyKeyword(keys: readonly string[]): boolean {
  for (let i = 0; i < keys.length; i++) if (containsKeyword(keys[i]!)) return true;
  return false;
}

function containsKeyword(text: string): boolean {
  if (KEYWORD_STARTS.mayContain(text)) {
    KEYWORD_RE.lastIndex = 0;
    if (KEYWORD_RE.test(text)) return true;
  }
  return hasWholeTokenKeyword(text);
}

/** A token of `text` (split at hyphens and dots) that is one of the short lure words. */
function hasWholeTokenKeyword(text: string): boolean {
  let start = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 0x2e;
    if (c !== 0x2e && c !== 0x2d) continue;
    if (i - start >= 2 && i - start <= 7 && WHOLE_TOKEN_KEYWORDS.has(text.slice(start, i))) return true;
    start = i + 1;
  }
  return false;
}

function match(code: UrlFindingCode, target: IndexedSite, how: string, severity: 'error' | 'warning' = 'error'): LookalikeMatch {
  return { code, severity, target: target.site.domain, how };
}

/** The precomputed look-alike tables of one set of protected sites. */
export class LookalikeIndex {
  readonly sites: ReadonlyMap<string, ProtectedSite>;
  /** `key(label) + '.' + suffix` → sites: homographs of the whole registrable domain. */
  private readonly byRegistrableKey = new Map<string, IndexedSite[]>();
  /** `key(label)` → sites: the same brand on any suffix. */
  private readonly byLabelKey = new KeyMap();
  private readonly byPhoneticKey = new KeyMap();
  /**
   * Deletion neighbourhood of label keys, per public suffix: the hash of every key and of every
   * key with one character removed. A query looks up its own hash and its own deletions, which
   * finds every site within one edit or one swap without comparing against each site.
   */
  private readonly deletions = new Map<string, Map<number, IndexedSite[]>>();
  private lastSuffix: string | null = null;
  private lastDeletions: ReadonlyMap<number, readonly IndexedSite[]> | undefined = undefined;
  /** One bit per neighbourhood hash (any suffix): most queries miss here and skip the map. */
  private readonly hashFilter = new Uint32Array(HASH_FILTER_WORDS);
  /** Dotted embedding targets (`apple` + `com` in `apple.com.evil.net`): every site with a label of 4+. */
  private readonly dottedTargets = new KeyMap();
  /** Glued embedding targets, distinctive labels only (`paypalcom`). */
  private readonly gluedTargets = new KeyMap();
  /** Combo-squatting brands that are not words: matched inside longer labels too. */
  private readonly distinctiveBrands = new KeyMap();
  /** The distinctive brands of 4+ characters, matched inside a label by `BrandScanner` (no regex of alternatives). */
  private readonly distinctiveBrandScanner: BrandScanner;
  /** Combo-squatting brands that are words (`apple`, `zoom`): matched only as whole tokens. */
  private readonly wordBrands = new Map<string, IndexedSite[]>();
  /** `wordBrands` as pairs in insertion order, for the scan that cannot look a brand up. */
  private readonly wordBrandList: readonly (readonly [string, readonly IndexedSite[]])[];
  /** The filter bits of every map a host token is looked up in (dotted, glued, distinctive). */
  private readonly tokenFilter = new Uint32Array(KEY_FILTER_WORDS);

  constructor(sites: Iterable<ProtectedSite>, aliases: ReadonlyMap<string, string> = new Map()) {
    const all = new Map<string, ProtectedSite>();
    for (const site of sites) all.set(site.domain, site);
    this.sites = all;
    const indexedByDomain = new Map<string, IndexedSite>();
    for (const site of all.values()) {
      const labelKey = labelKeys(toUnicodeHost(site.label))[0]!;
      const indexed: IndexedSite = { site, labelKey, suffixLabels: site.suffix.split('.') };
      indexedByDomain.set(site.domain, indexed);
      push(this.byRegistrableKey, `${labelKey}.${site.suffix}`, indexed);
      this.byLabelKey.add(labelKey, indexed);
      if (labelKey.length >= (site.curated ? MIN_EDIT_DISTANCE_CURATED : MIN_EDIT_DISTANCE_LABEL)) {
        this.byPhoneticKey.add(phoneticKey(labelKey), indexed);
        let bySuffix = this.deletions.get(site.suffix);
        if (bySuffix === undefined) this.deletions.set(site.suffix, (bySuffix = new Map()));
        const count = neighbourhoodHashes(labelKey);
        for (let h = 0; h < count; h++) {
          const hash = HASHES[h]!;
          push(bySuffix, hash, indexed);
          this.hashFilter[(hash >>> 5) & (HASH_FILTER_WORDS - 1)]! |= 1 << (hash & 31);
        }
      }
      if (site.label.length >= MIN_EMBEDDED_LABEL) {
        this.dottedTargets.add(labelKey, indexed);
        if (!site.commonWord) {
          // `paypalcom`: only for suffixes of three letters or more, since `youtu`+`be` is `youtube`.
          const joinedSuffix = site.suffix.replaceAll('.', '');
          if (joinedSuffix.length >= 3) this.gluedTargets.add(labelKey + joinedSuffix, indexed);
        }
      }
      if (site.curated) this.addBrand(labelKey, indexed, site.commonWord);
    }
    for (const [alias, domain] of aliases) {
      const indexed = indexedByDomain.get(domain);
      if (indexed !== undefined) this.addBrand(alias, indexed, COMMON_WORD_LABELS.has(alias));
    }
    const substrings = [...this.distinctiveBrands.keys()]
      .filter((b) => b.length >= MIN_COMBO_SUBSTRING)
      .sort((a, b) => b.length - a.length);
    this.distinctiveBrandScanner = new BrandScanner(substrings);
    this.wordBrandList = [...this.wordBrands];
    this.dottedTargets.orInto(this.tokenFilter);
    this.gluedTargets.orInto(this.tokenFilter);
    this.distinctiveBrands.orInto(this.tokenFilter);
  }

  private addBrand(brand: string, indexed: IndexedSite, word: boolean): void {
    if (KEYWORD_SET.has(brand) || GENERIC_WORD_LABELS.has(brand) || brand.length < 3) return;
    if (word) {
      if (brand.length >= 4) push(this.wordBrands, brand, indexed);
    } else {
      this.distinctiveBrands.add(brand, indexed);
    }
  }

  /** Finds the strongest imitation of a protected site by `host`, or null: an error wins over a warning. */
  match(host: HostParts): LookalikeMatch | null {
    if (host.registrable === null || host.label === null || host.suffix === null) return null;
    const keys = host.idn ? labelKeys(host.labelUnicode!) : [foldAscii(host.label!)];
    const firstHash = keyHash(keys[0]!);
    // A protected site is not a look-alike of another protected site. A protected site's own
    // label key is in `byLabelKey`, so a key that misses its filter settles this without the
    // lookup.
    if (this.byLabelKey.mayHave(firstHash) && this.sites.has(host.registrable)) return null;
    return this.strongest(host, keys, firstHash);
  }

  /** Only the homograph (skeleton) match of an IDN host, for lists that protect against nothing else. */
  homographOf(host: HostParts): LookalikeMatch | null {
    if (!host.idn || host.registrable === null || host.labelUnicode === null || this.sites.has(host.registrable)) return null;
    if (!/[^\x00-\x7f]/.test(host.labelUnicode)) return null;
    // The whole registrable domain's skeleton, as Chromium matches its top domains (not the label
    // alone under another suffix: `sağlık.net` is not `saglik.gov.tr`).
    for (const key of labelKeys(host.labelUnicode)) {
      const same = this.firstForeign(this.byRegistrableKey.get(`${key}.${host.suffix}`), host);
      if (same !== null) return match(UrlFinding.lookalikeHomoglyph, same, 'looks the same as');
    }
    return null;
  }

  /** `keys` are the label's look-alike keys, `firstHash` the `keyHash` of the first. */
  private strongest(host: HostParts, keys: readonly string[], firstHash: number): LookalikeMatch | null {
    const homoglyph = this.homoglyph(host, keys);
    if (homoglyph !== null) return homoglyph;
    const typosquat = this.typosquat(host, keys, firstHash);
    if (typosquat !== null) return typosquat;
    const foreign = this.brandUnderForeignTld(host, keys[0]!, firstHash);
    if (foreign !== null) return foreign;
    // The host's tokens serve the embedding, combo and subdomain checks: split them once, and
    // only for a host that has more than one token. Most ASCII hosts have no token that any of
    // those tables knows (one hashing pass over the text tells), and then no token can match.
    const tokens =
      host.subdomain === '' && !/[-_]/.test(host.label!) && !keys[0]!.includes('-')
        ? null
        : host.idn || this.asciiTokensMayMatch(host, keys[0]!)
          ? this.tokens(host, keys[0]!)
          : NO_TOKENS;
    // Then the checks below need a token some table knows (for a single label, the label as a
    // glued target), a keyword in the label or a brand in a label that ends a part in "id" (the
    // identity lure `combo` pairs brands with without a keyword); most hosts have none, and are
    // done here.
    if ((tokens === null ? !this.gluedTargets.mayHave(firstHash) : tokens === NO_TOKENS) && !anyKeyword(keys) && !this.mayPairWithId(keys))
      return null;
    const embedding = this.embedding(host, keys[0]!, firstHash, tokens);
    if (embedding?.severity === 'error') return embedding;
    const combo = this.combo(host, keys, tokens);
    if (combo !== null) return combo;
    return embedding ?? this.brandInSubdomain(host, tokens);
  }

  /**
   * False when `combo` cannot pair a brand with "id" in any of `keys` (which hold no keyword): it
   * does so only for a key that ends in "id" or holds "id-" (a part that ends in "id"), with a
   * distinctive brand of four characters or more in it (`githubid`, the brand as the part's stem,
   * or `kycgithubid`, a brand next to a short lure word the brand's removal leaves whole).
   */
  private mayPairWithId(keys: readonly string[]): boolean {
    for (const key of keys) if ((key.endsWith('id') || key.includes('id-')) && this.distinctiveBrandScanner.mayContain(key)) return true;
    return false;
  }

  /**
   * A protected brand as the whole site name under a top-level domain it does not own
   * (`paypal.xyz`): the brand's own domains are protected sites themselves and never get here.
   */
  private brandUnderForeignTld(host: HostParts, labelKey: string, labelHash: number): LookalikeMatch | null {
    if (labelKey.length < MIN_EDIT_DISTANCE_CURATED || !this.distinctiveBrands.mayHave(labelHash)) return null;
    const brand = this.firstForeign(this.distinctiveBrands.get(labelKey, labelHash), host);
    if (brand === null || brand.site.label !== labelKey) return null;
    const suffix = host.suffix ?? '';
    const tld = suffix.slice(suffix.lastIndexOf('.') + 1);
    // Country codes are where brands hold their national sites and defensive registrations.
    if (tld.length === 2 && !ABUSED_TLDS.has(tld)) return null;
    const severity = ABUSED_TLDS.has(tld) ? 'error' : 'warning';
    return match(UrlFinding.lookalikeBrandTld, brand, 'puts under a top-level domain the brand does not own the brand of', severity);
  }

  private owns(indexed: IndexedSite, host: HostParts): boolean {
    const domain = indexed.site.domain;
    return host.ascii === domain || host.ascii.endsWith('.' + domain);
  }

  private firstForeign(candidates: readonly IndexedSite[] | undefined, host: HostParts): IndexedSite | null {
    if (candidates === undefined) return null;
    for (const c of candidates) if (!this.owns(c, host)) return c;
    return null;
  }

  private homoglyph(host: HostParts, keys: readonly string[]): LookalikeMatch | null {
    if (!host.idn || !/[^\x00-\x7f]/.test(host.labelUnicode ?? '')) return null;
    for (const key of keys) {
      const same = this.firstForeign(this.byRegistrableKey.get(`${key}.${host.suffix}`), host);
      if (same !== null) return match(UrlFinding.lookalikeHomoglyph, same, 'looks the same as');
      // The same brand spelled in another script under another suffix (`pаypal.net`).
      const sameBrand = this.byLabelKey.get(key);
      if (sameBrand === undefined) continue;
      for (const candidate of sameBrand) {
        if (candidate.site.label.length >= MIN_EDIT_DISTANCE_LABEL && !this.owns(candidate, host))
          return match(UrlFinding.lookalikeHomoglyph, candidate, 'spells the brand of');
      }
    }
    return null;
  }

  /** `firstHash` is the `keyHash` of `keys[0]`. */
  private typosquat(host: HostParts, keys: readonly string[], firstHash: number): LookalikeMatch | null {
    const label = host.idn ? (host.labelUnicode ?? host.label!) : host.label!;
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k]!;
      const hash = k === 0 ? firstHash : keyHash(key);
      // Digit-for-letter and letter-pair tricks fold to the brand exactly (`paypa1`, `rnicrosoft`,
      // and `autho` for `auth0`).
      const folded = this.byLabelKey.get(key, hash);
      for (let i = 0; folded !== undefined && i < folded.length; i++) {
        const candidate = folded[i]!;
        if (candidate.site.label === label || candidate.site.label.length < 4 || this.owns(candidate, host)) continue;
        if (host.idn && candidate.site.label.length < MIN_EDIT_DISTANCE_LABEL) continue;
        return match(UrlFinding.lookalikeTyposquat, candidate, 'swaps look-alike characters into');
      }
      if (key.length < MIN_EDIT_DISTANCE_CURATED) continue;
      // `www-paypal.com`, `wwwpaypal.com`: the brand behind a glued "www".
      if (key.startsWith('www')) {
        const rest = key.charCodeAt(3) === 0x2d ? key.slice(4) : key.slice(3);
        const www = this.firstForeign(this.byLabelKey.get(rest), host);
        if (www !== null && rest.length >= MIN_EDIT_DISTANCE_CURATED) return match(UrlFinding.lookalikeTyposquat, www, 'glues "www" to');
        // `wwwpaypal-com.info`: "www", the brand and its suffix joined by hyphens.
        const hyphen = rest.indexOf('-');
        if (hyphen >= MIN_EDIT_DISTANCE_CURATED) {
          const suffix = rest.slice(hyphen + 1).replaceAll('-', '.');
          const joined = this.byLabelKey.get(rest.slice(0, hyphen))?.find((c) => c.site.suffix === suffix && !this.owns(c, host));
          if (joined !== undefined) return this.embedded(joined, host, 'error');
        }
      }
      // Sound-alike and one-edit matches count only under the suffix of the site they imitate,
      // and most suffixes have no protected site long enough for them.
      const bySuffix = this.deletionsOf(host.suffix!);
      if (bySuffix === undefined) continue;
      const sound = phoneticKey(key);
      const phonetic = this.firstForeign(this.byPhoneticKey.get(sound, sound === key ? hash : keyHash(sound)), host);
      if (phonetic !== null && phonetic.labelKey !== key && phonetic.site.suffix === host.suffix) {
        return match(UrlFinding.lookalikeTyposquat, phonetic, 'is spelled to sound like');
      }
      const candidates = this.editCandidates(key, bySuffix);
      if (candidates === null) continue;
      for (const candidate of candidates) {
        if (this.owns(candidate, host) || key === candidate.labelKey) continue;
        if (key.length < (candidate.site.curated ? MIN_EDIT_DISTANCE_CURATED : MIN_EDIT_DISTANCE_LABEL)) continue;
        if (isLikelyEditDistanceFalsePositive(label, candidate.site.label)) continue;
        if (hasOneSwap(key, candidate.labelKey)) return match(UrlFinding.lookalikeTyposquat, candidate, 'swaps two letters of');
        if (editDistanceAtMostOne(key, candidate.labelKey) && isPlausibleTypo(key, candidate.labelKey))
          return match(UrlFinding.lookalikeTyposquat, candidate, 'is one typo away from');
      }
    }
    return null;
  }

  /**
   * The deletion neighbourhoods of one suffix. The last answer is kept: hosts under one suffix
   * tend to come in a row, and the map lookup would hash the suffix string every time.
   */
  private deletionsOf(suffix: string): ReadonlyMap<number, readonly IndexedSite[]> | undefined {
    if (suffix !== this.lastSuffix) {
      this.lastSuffix = suffix;
      this.lastDeletions = this.deletions.get(suffix);
    }
    return this.lastDeletions;
  }

  /** Sites of one suffix (`bySuffix`) whose label key shares a deletion-neighbourhood hash with `key`. */
  private editCandidates(key: string, bySuffix: ReadonlyMap<number, readonly IndexedSite[]>): IndexedSite[] | null {
    let candidates: IndexedSite[] | null = null;
    const count = neighbourhoodHashes(key, filtersAlwaysMaybe ? undefined : this.hashFilter);
    for (let h = 0; h < count; h++) {
      const found = bySuffix.get(HASHES[h]!);
      if (found === undefined) continue;
      candidates ??= [];
      for (const c of found) if (!candidates.includes(c)) candidates.push(c);
    }
    return candidates;
  }

  /**
   * The subdomain and label of `host` split at dots and hyphens, as look-alike keys, with the
   * separator after each; the subdomain's tokens come first. Every token is keyed on its own
   * (the ASCII fold never joins characters across a separator), so the subdomain and the label
   * are split apart and the label reuses its key (`labelKey`, the folded label when ASCII).
   */
  private tokens(host: HostParts, labelKey: string): Tokens {
    const keys: string[] = [];
    const hashes: number[] = [];
    const separators: string[] = [];
    const sub = host.idn ? host.subdomainUnicode : host.subdomain;
    const label = host.idn ? host.labelUnicode! : host.label!;
    if (sub !== '') splitTokens(host.idn ? sub : foldAscii(sub), '.', host.idn ? label : null, labelKey, keys, hashes, separators);
    const subdomainCount = keys.length;
    // An IDN label whose dash look-alike (`microsoft–com`) folds to a hyphen splits like ASCII.
    const foldedSplit = host.idn && !label.includes('-') && labelKey.includes('-');
    splitTokens(
      host.idn && !foldedSplit ? label : labelKey,
      '',
      host.idn && !foldedSplit ? label : null,
      labelKey,
      keys,
      hashes,
      separators,
    );
    return { keys, hashes, separators, subdomainCount };
  }

  /** Whether a token of an ASCII host (`labelKey` is its folded label) passes the token tables' filter. */
  private asciiTokensMayMatch(host: HostParts, labelKey: string): boolean {
    return (
      anyTokenInFilter(labelKey, this.tokenFilter) ||
      (host.subdomain !== '' && anyTokenInFilter(foldAscii(host.subdomain), this.tokenFilter))
    );
  }

  /** `tokens` is null when the host is a single label without hyphens. */
  private embedding(host: HostParts, labelKey: string, labelHash: number, tokens: Tokens | null): LookalikeMatch | null {
    if (tokens === null) {
      // A single label can still hold a glued target (`paypalcom.net`).
      return this.glued(host, [labelKey], [labelHash]);
    }
    const { keys, hashes, separators } = tokens;
    let hyphenated: LookalikeMatch | null = null;
    for (let i = 0; i < keys.length; i++) {
      let targets = this.dottedTargets.get(keys[i]!, hashes[i]);
      // `wwwpaypal-com.info`: the brand behind a glued "www".
      if (targets === undefined && keys[i]!.startsWith('www') && keys[i]!.length > 6) targets = this.dottedTargets.get(keys[i]!.slice(3));
      if (targets === undefined) continue;
      for (const candidate of targets) {
        const suffixLabels = candidate.suffixLabels;
        if (i + suffixLabels.length >= keys.length) continue;
        let matches = true;
        let dotted = true;
        for (let j = 0; matches && j < suffixLabels.length; j++) {
          if (keys[i + 1 + j] !== suffixLabels[j]) matches = false;
          if (separators[i + j] !== '.') dotted = false;
        }
        if (!matches || this.owns(candidate, host)) continue;
        // `paypal.com.evil.net` reads as the real host; `paypal-com.evil.net` is also how CDNs and
        // AMP caches encode an origin's host name, so on its own it only warns (and never for a
        // brand that is an ordinary word).
        // `paypal.com.evil.net` reads as the real host, and so does `paypal-com.evil.net` or
        // `paypal_com.evil.net` with a joiner in place of the dot (issue 12); only CDN edge names
        // built from a customer's host stay a warning (`embedded`).
        if (dotted) return this.embedded(candidate, host, 'error');
        hyphenated ??= this.embedded(candidate, host, 'error');
      }
    }
    return this.glued(host, keys, hashes) ?? hyphenated;
  }

  /** `hashes` holds the `keyHash` of each key. */
  private glued(host: HostParts, keys: readonly string[], hashes: readonly number[]): LookalikeMatch | null {
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const targets = this.gluedTargets.get(key, hashes[i]);
      if (targets === undefined || this.byLabelKey.has(key, hashes[i])) continue;
      const candidate = this.firstForeign(targets, host);
      if (candidate !== null) return this.embedded(candidate, host, 'error');
    }
    return null;
  }

  private embedded(candidate: IndexedSite, host: HostParts, severity: 'error' | 'warning'): LookalikeMatch {
    const edge = host.registrable !== null && (EDGE_HOST_DOMAINS.has(host.registrable) || isEdgeSuffixSite(host));
    if (edge) return match(UrlFinding.lookalikeEmbedded, candidate, 'is a CDN edge host named after', 'warning');
    return match(UrlFinding.lookalikeEmbedded, candidate, 'embeds', severity);
  }

  private combo(host: HostParts, keys: readonly string[], tokens: Tokens | null): LookalikeMatch | null {
    let keyword = false;
    for (const key of keys) {
      if (!containsKeyword(key)) {
        // `githubid-github`: no keyword, but a brand glued to "id".
        const id = key.includes('id-') || key.endsWith('id') ? this.comboInLabel(key, host) : null;
        if (id !== null) return id;
        continue;
      }
      keyword = true;
      const hit = this.comboInLabel(key, host);
      if (hit !== null) return hit;
    }
    // A brand as its own subdomain label, a keyword in the site's name (`paypal.account-verify.com`).
    if (host.subdomain !== '' && keyword && tokens !== null) {
      for (let i = 0; i < tokens.subdomainCount; i++) {
        const brand = this.firstForeign(this.distinctiveBrands.get(tokens.keys[i]!, tokens.hashes[i]), host);
        if (brand !== null) return match(UrlFinding.lookalikeCombo, brand, 'pairs a phishing keyword with the brand of');
      }
    }
    return null;
  }

  /** `key` contains a keyword. */
  private comboInLabel(key: string, host: HostParts): LookalikeMatch | null {
    const parts = key.split('-');
    // `githubid-github`: a brand glued to "id", the account-identity lure (`appleid`).
    for (const part of parts) {
      if (part.length < 6 || !part.endsWith('id')) continue;
      const brand = this.firstForeign(this.distinctiveBrands.get(part.slice(0, -2)), host);
      if (brand !== null) return match(UrlFinding.lookalikeCombo, brand, 'pairs a phishing keyword with the brand of');
    }
    // `pay-pal-support`: a brand split by a hyphen, then a keyword.
    if (parts.length > 2) {
      for (let i = 0; i + 1 < parts.length; i++) {
        const joined = parts[i]! + parts[i + 1]!;
        const brand = this.firstForeign(this.distinctiveBrands.get(joined), host);
        if (brand !== null && parts.some((p, j) => j !== i && j !== i + 1 && containsKeyword(p)))
          return match(UrlFinding.lookalikeCombo, brand, 'pairs a phishing keyword with the brand of');
      }
    }
    // Distinctive brands count anywhere in the label (`paypallogin`, `oktaverify-mfa`), short ones as tokens (`aws-signin`).
    for (const part of parts) {
      const brand = this.firstForeign(this.distinctiveBrands.get(part), host);
      if (brand !== null && parts.some((p) => p !== part && containsKeyword(p)))
        return match(UrlFinding.lookalikeCombo, brand, 'pairs a phishing keyword with the brand of');
    }
    if (this.distinctiveBrandScanner.mayContain(key)) {
      // Leftmost-longest, non-overlapping occurrences, left to right.
      for (let at = 0; at < key.length; ) {
        const brand = this.distinctiveBrandScanner.longestAt(key, at);
        if (brand === null) {
          at++;
          continue;
        }
        const index = at;
        at += brand.length;
        if (brand.length === key.length) continue;
        const rest = key.slice(0, index) + '.' + key.slice(index + brand.length);
        if (!containsKeyword(rest)) continue;
        const candidate = this.firstForeign(this.distinctiveBrands.get(brand), host);
        if (candidate !== null) return match(UrlFinding.lookalikeCombo, candidate, 'pairs a phishing keyword with the brand of');
      }
    }
    // Brands that are ordinary words only count as whole tokens (`apple-login`, not `pineapple-login`).
    for (const part of parts) {
      const whole = this.wordBrands.get(part);
      if (whole !== undefined) {
        const candidate = this.firstForeign(whole, host);
        if (candidate !== null && parts.some((p) => p !== part && containsKeyword(p)))
          return match(UrlFinding.lookalikeCombo, candidate, 'pairs a phishing keyword with the brand of');
        continue;
      }
      // A word brand glued to a keyword (`applesupport`) holds the keyword.
      if (!containsKeyword(part)) continue;
      for (const [brand, candidates] of this.wordBrandList) {
        if (part.length <= brand.length) continue;
        const glued = part.startsWith(brand)
          ? KEYWORD_SET.has(part.slice(brand.length))
          : part.endsWith(brand) && KEYWORD_SET.has(part.slice(0, -brand.length));
        const candidate = glued ? this.firstForeign(candidates, host) : null;
        if (candidate !== null) return match(UrlFinding.lookalikeCombo, candidate, 'pairs a phishing keyword with the brand of');
      }
    }
    return null;
  }

  private brandInSubdomain(host: HostParts, tokens: Tokens | null): LookalikeMatch | null {
    if (host.subdomain === '' || tokens === null) return null;
    for (let i = 0; i < tokens.subdomainCount; i++) {
      const key = tokens.keys[i]!;
      const candidate = key.length >= 5 ? this.firstForeign(this.distinctiveBrands.get(key, tokens.hashes[i]), host) : null;
      if (candidate !== null) return match(UrlFinding.brandInSubdomain, candidate, 'uses as a subdomain the brand of', 'warning');
    }
    return null;
  }
}

/**
 * Appends the tokens of `text` (split at dots and hyphens) to `keys`, their hashes and the
 * separator after each (`last` after the final one). `unicodeLabel` is set for an IDN host, whose
 * tokens are keyed one by one (the whole label's key is `labelKey`, skeletons being the costly
 * part); ASCII text is already folded and its tokens are their own keys.
 */
function splitTokens(
  text: string,
  last: string,
  unicodeLabel: string | null,
  labelKey: string,
  keys: string[],
  hashes: number[],
  separators: string[],
): void {
  let start = 0;
  for (let i = 0; i <= text.length; i++) {
    const ch = i < text.length ? text.charCodeAt(i) : -1;
    if (ch !== 0x2e && ch !== 0x2d && ch !== 0x5f && ch !== -1) continue;
    if (i > start) {
      const token = text.slice(start, i);
      const key = unicodeLabel === null ? token : token === unicodeLabel ? labelKey : keyOf(token);
      keys.push(key);
      hashes.push(keyHash(key));
      separators.push(ch === 0x2e ? '.' : ch === 0x2d || ch === 0x5f ? '-' : last);
    }
    start = i + 1;
  }
}

/** A site under a private PSL suffix whose own label is a TLD name (`com.akadns.net`): a CDN's per-customer namespace. */
function isEdgeSuffixSite(host: HostParts): boolean {
  const suffix = host.suffix ?? '';
  const dot = suffix.lastIndexOf('.');
  const provider = suffix.slice(suffix.lastIndexOf('.', dot - 1) + 1);
  return EDGE_HOST_DOMAINS.has(suffix) || EDGE_HOST_DOMAINS.has(provider);
}

const BUILT_IN_INDEX = new LookalikeIndex(BUILT_IN_SITES.values(), BRAND_ALIASES);
/** The rest of Chromium's top-domain list, for homographs of IDN hosts only. */
const SKELETON_INDEX = new LookalikeIndex(SKELETON_ONLY_SITES.values());
const EXTRA_CACHE = new WeakMap<readonly string[], { readonly length: number; readonly value: LookalikeIndex | null }>();

function buildExtraIndex(extra: readonly string[]): LookalikeIndex | null {
  const sites: ProtectedSite[] = [];
  for (const host of extra) {
    const site = toProtectedSite(host, true);
    if (site !== null && !BUILT_IN_SITES.has(site.domain)) sites.push(site);
  }
  return sites.length === 0 ? null : new LookalikeIndex(sites);
}

/** The index of the policy's extra protected domains (built once per list, cached by its identity), or null. */
function extraIndex(extra: readonly string[]): LookalikeIndex | null {
  if (extra.length === 0) return null;
  return cachedByList(EXTRA_CACHE, extra, buildExtraIndex);
}

/**
 * The look-alike match of `host` against the built-in protected sites and `extra` (the
 * policy's `url.protectedDomains`); an error match wins over a warning.
 */
export function findLookalike(host: HostParts, extra: readonly string[] = []): LookalikeMatch | null {
  const policyIndex = extraIndex(extra);
  const registrable = host.registrable;
  if (registrable !== null && ((policyIndex !== null && policyIndex.sites.has(registrable)) || SKELETON_ONLY_SITES.has(registrable)))
    return null;
  const builtIn = BUILT_IN_INDEX.match(host);
  if (builtIn?.severity === 'error') return builtIn;
  const homograph = host.idn ? SKELETON_INDEX.homographOf(host) : null;
  if (homograph !== null) return homograph;
  if (policyIndex === null) return builtIn;
  const fromPolicy = policyIndex.match(host);
  if (fromPolicy?.severity === 'error') return fromPolicy;
  return builtIn ?? fromPolicy;
}
