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
  skeletonOnlySites,
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
  deletionHashes,
  HASHES,
  hasOneSwap,
  isLikelyEditDistanceFalsePositive,
  isPlausibleTypo,
  isWwwToken,
  keyHash,
  MAX_HASHED,
  MAX_PIECED,
  neighbourhoodHashes,
  phoneticKey,
  pieceHashes,
  POWERS,
  phoneticKeyHash,
  prefixHashes,
  pushTokenHashes,
  rangeKeyHash,
  CHAR_ROLES,
  PAIR_FLAGS,
  SEPARATOR_ROLE,
  MAY_SOUND,
  MAY_FOLD,
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
/** The prefilter's bits (`Prefilter.mayMatchAscii`): the built-in index's tag is 0, the policy's 1. */
const BUILT_IN = 1;
const POLICY_INDEX = 2;
const ALL_INDEXES = BUILT_IN | POLICY_INDEX;
/** The smallest key filter (32-bit words); an index with many sites gets a larger one (`filterWords`). */
const KEY_FILTER_WORDS = 1 << 12;

/**
 * A map from look-alike keys to sites with a bit filter in front: most labels are no key at
 * all, and the filter answers that from the label's own hash without hashing a fresh string
 * into the map.
 */
class KeyMap {
  private readonly map = new Map<string, IndexedSite[]>();
  private readonly bits: Uint32Array;
  private readonly mask: number;

  /** `words` is a power of two: the filter's size in 32-bit words. */
  constructor(words: number) {
    this.bits = new Uint32Array(words);
    this.mask = words - 1;
  }

  add(key: string, site: IndexedSite): void {
    push(this.map, key, site);
    const h = keyHash(key);
    this.bits[(h >>> 5) & this.mask]! |= 1 << (h & 31);
  }

  get(key: string, hash = keyHash(key)): readonly IndexedSite[] | undefined {
    if (!this.mayHave(hash)) return undefined;
    return this.map.get(key);
  }

  /** False when no key with this `keyHash` is in the map. */
  mayHave(hash: number): boolean {
    return (this.bits[(hash >>> 5) & this.mask]! & (1 << (hash & 31))) !== 0;
  }

  has(key: string, hash = keyHash(key)): boolean {
    return this.get(key, hash) !== undefined;
  }

  keys(): IterableIterator<string> {
    return this.map.keys();
  }

  /** Adds this map's filter bits to `filter` (same size and hash). */
  orInto(filter: Uint32Array): void {
    for (let i = 0; i < this.bits.length; i++) filter[i]! |= this.bits[i]!;
  }
}

const NO_TOKENS: Tokens = Object.freeze({ keys: NONE, separators: NONE, hashes: NONE, subdomainCount: 0 });

/**
 * `combo` may pair a brand with "id" in `key`, which holds no keyword: only a key that ends in
 * "id" or holds "id-" (a part that ends in "id"), the identity lure (`githubid`), gets there.
 */
function endsPartInId(key: string): boolean {
  return key.endsWith('id') || key.includes('id-');
}

/** True when one of the first `count` of `hashes` has its bit in `filter` (a power-of-two number of 32-bit words). */
function anyInFilter(hashes: Int32Array, count: number, filter: Uint32Array): boolean {
  const mask = filter.length - 1;
  for (let i = 0; i < count; i++) {
    const hash = hashes[i]!;
    if ((filter[(hash >>> 5) & mask]! & (1 << (hash & 31))) !== 0) return true;
  }
  return false;
}

/** The smallest deletion-neighbourhood filter: 2^20 bits. */
const HASH_FILTER_WORDS = 1 << 15;
/** Filter bits per indexed hash (the per-index filters; `Prefilter` answers most hosts first). */
const FILTER_BITS_PER_ENTRY = 16;

/** The smallest power-of-two number of 32-bit words with `FILTER_BITS_PER_ENTRY` bits for each of `entries`, at least `min`. */
function filterWords(entries: number, min: number): number {
  let words = min;
  while (words * 32 < entries * FILTER_BITS_PER_ENTRY && words < 1 << 18) words *= 2;
  return words;
}

/**
 * A register-blocked Bloom filter: each hash sets three bits of one 32-bit word, so a probe reads
 * one word. At 32 bits per entry about one probe in 300 hits by chance.
 */
class BlockedFilter {
  private readonly words: Uint32Array;
  private readonly shift: number;

  constructor(hashes: readonly number[]) {
    this.shift = blockedShift(hashes.length);
    this.words = new Uint32Array(1 << (32 - this.shift));
    for (const hash of hashes) this.words[Math.imul(hash, 0x9e3779b1) >>> this.shift]! |= blockedBits(hash, 0);
  }

  mayHave(hash: number): boolean {
    const bits = blockedBits(hash, 0);
    return (this.words[Math.imul(hash, 0x9e3779b1) >>> this.shift]! & bits) === bits;
  }
}

/** 32 minus log2 of the words of a blocked filter for `entries` hashes: 32 bits each, at least 64 words. */
function blockedShift(entries: number): number {
  let log2 = 6;
  while (1 << (log2 + 5) < entries * 32 && log2 < 22) log2++;
  return 32 - log2;
}

/**
 * The three bits of one word a hash sets in a blocked filter; `tag` 1 (a `TaggedFilter`'s second
 * set) takes them turned by half a word, so one mix of the hash serves both sets.
 */
function blockedBits(hash: number, tag: number): number {
  const y = Math.imul(hash ^ (hash >>> 15), 0x85ebca6b);
  const bits = (1 << (y & 31)) | (1 << ((y >>> 5) & 31)) | (1 << ((y >>> 10) & 31));
  return tag === 0 ? bits : (bits << 16) | (bits >>> 16);
}

/**
 * A blocked filter that holds the hashes of two sets at once (the built-in index's and the
 * policy's): an entry of set `i` sets the `blockedBits` of tag `i` in its word, so one read of
 * one word tells which of the sets may hold a hash (bit `i` of `maskOf`).
 */
class TaggedFilter {
  private readonly words: Uint32Array;
  private readonly shift: number;

  constructor(hashes: readonly (readonly number[])[]) {
    let entries = 0;
    for (const list of hashes) entries += list.length;
    this.shift = blockedShift(entries);
    this.words = new Uint32Array(1 << (32 - this.shift));
    for (let tag = 0; tag < hashes.length; tag++)
      for (const hash of hashes[tag]!) this.words[Math.imul(hash, 0x9e3779b1) >>> this.shift]! |= blockedBits(hash, tag);
  }

  /** Bit `i` set when set `i` may hold `hash` (false positives only). */
  maskOf(hash: number): number {
    const word = this.words[Math.imul(hash, 0x9e3779b1) >>> this.shift]!;
    const first = blockedBits(hash, 0);
    const second = (first << 16) | (first >>> 16);
    return ((word & first) === first ? 1 : 0) | ((word & second) === second ? 2 : 0);
  }
}

/** The neighbourhood filters of one public suffix in a `Prefilter`. */
interface SuffixFilters {
  /** The `pieceHashes` of the sites' label keys, for every key length within one of theirs. */
  readonly pieces: TaggedFilter;
  /** The sites' deletion neighbourhoods. */
  readonly neighbourhood: TaggedFilter;
}

/**
 * One small filter in front of every index a policy uses (the built-in one, tag 0, and the
 * policy's, tag 1): the hashes of all their keys (labels, sound-alikes, brands, embedding and
 * glued targets) in one, and per public suffix the deletion neighbourhoods of the sites under it,
 * with their pieces in front (`pieceHashes`: three reads settle most labels, the neighbourhood
 * takes one a character).
 * A host whose probes all miss here matches in no index, and is settled in a few reads of a few
 * kilobytes (the indexes' own tables and filters are far larger and would each cost cache
 * misses); one that hits learns from the same reads which indexes it may match in.
 */
class Prefilter {
  private readonly keys: TaggedFilter;
  private readonly neighbourhoods = new Map<string, SuffixFilters>();
  private lastSuffix: string | null = null;
  private lastNeighbourhood: SuffixFilters | undefined = undefined;
  /** Every index's bit: a host that may match in all of them needs no further probe. */
  private readonly all: number;

  constructor(indexes: readonly LookalikeIndex[]) {
    const keys: number[][] = [];
    const bySuffix = new Map<string, number[][]>();
    const piecesBySuffix = new Map<string, number[][]>();
    indexes.forEach((index, tag) => {
      // One entry per distinct hash: most sites' label key is also their brand, sound-alike and
      // embedding key, and the filter is sized by its entries (half the size, as many bits each).
      const own = new Set<number>();
      index.forEachKeyHash((hash) => own.add(hash));
      keys.push([...own]);
      index.forEachNeighbourhoodHash((suffix, hash) => {
        let lists = bySuffix.get(suffix);
        if (lists === undefined) bySuffix.set(suffix, (lists = indexes.map(() => [])));
        lists[tag]!.push(hash);
      });
      index.forEachPieceHash((suffix, hash) => {
        let lists = piecesBySuffix.get(suffix);
        if (lists === undefined) piecesBySuffix.set(suffix, (lists = indexes.map(() => [])));
        lists[tag]!.push(hash);
      });
    });
    this.keys = new TaggedFilter(keys);
    // A suffix whose keys are all longer than `MAX_PIECED + 1` has no pieces: no key that has them is within one edit.
    for (const [suffix, hashes] of bySuffix)
      this.neighbourhoods.set(suffix, {
        pieces: new TaggedFilter(piecesBySuffix.get(suffix) ?? indexes.map(() => [])),
        neighbourhood: new TaggedFilter(hashes),
      });
    this.all = (1 << indexes.length) - 1;
  }

  /** The neighbourhood filters of one suffix; the last answer is kept (hosts under one suffix tend to come in a row). */
  private neighbourhoodOf(suffix: string): SuffixFilters | undefined {
    if (suffix !== this.lastSuffix) {
      this.lastSuffix = suffix;
      this.lastNeighbourhood = this.neighbourhoods.get(suffix);
    }
    return this.lastNeighbourhood;
  }

  /** Which indexes may hold the first key of `probe` itself (bit `i` for the index of tag `i`), kept as its `labelMask`. */
  labelMaskOf(probe: Probe): number {
    return (probe.labelMask = this.keys.maskOf(probe.firstHash));
  }

  /**
   * Which of the indexes in `want` may match the ASCII `host` (bit `i` for the index of tag `i`;
   * 0: none): the conditions of `LookalikeIndex.mayMatchAscii`, each on the union of the indexes'
   * tables, every probe answering for each index at once. `labelMaskOf(probe)` comes first.
   */
  mayMatchAscii(host: HostParts, probe: Probe, want: number): number {
    const all = this.all & want;
    const keys = this.keys;
    let mask = probe.labelMask & all;
    if (mask === all) return all;
    const key = probe.keys[0]!;
    if (key.length >= MIN_EDIT_DISTANCE_CURATED) {
      if (key.charCodeAt(0) === 0x77 && key.charCodeAt(1) === 0x77 && key.charCodeAt(2) === 0x77) return all;
      const filters = this.neighbourhoodOf(host.suffix!);
      if (filters !== undefined) {
        // Most labels are their own sound-alike key, whose hash was probed first.
        const sound = probe.firstSoundHash();
        if (sound !== probe.firstHash) {
          mask |= keys.maskOf(sound) & all;
          if (mask === all) return all;
        }
        // An index with a key within one edit or swap of the label shares a piece with it: most
        // labels share none, and skip the neighbourhood.
        let near = all;
        if (key.length <= MAX_PIECED) {
          const pieces = probe.firstPieces();
          near = (filters.pieces.maskOf(pieces[0]!) | filters.pieces.maskOf(pieces[1]!) | filters.pieces.maskOf(pieces[2]!)) & all;
        }
        if (near !== 0) {
          // Every probe of the neighbourhood: which indexes have a one-edit neighbour is kept for them.
          const neighbourhood = filters.neighbourhood;
          const neighbours = probe.firstNeighbourhood();
          let hit = 0;
          for (let h = probe.firstNeighbourCount - 1; h >= 0; h--) hit |= neighbourhood.maskOf(neighbours[h]!);
          near &= hit;
        }
        probe.neighbourMask = near;
        mask |= near;
        if (mask === all) return all;
      }
    }
    if (!probe.singleToken) {
      const count = probe.asciiTokenCount();
      // A label without hyphens or underscores is its one token (if not empty), whose hash was probed first.
      for (let i = probe.joined || key.length === 0 ? 0 : 1; i < count; i++) {
        mask |= keys.maskOf(PROBE_TOKENS[i]!) & all;
        if (mask === all) return all;
      }
    }
    // A keyword, or a part that ends in "id" (which each index reads against its brands: `mayPairWithId`).
    return probe.partEndsInId || probe.hasKeyword() ? all : mask;
  }
}

/**
 * What the indexes read of one host's label, computed once per `findLookalike` call and shared
 * by the built-in and the policy index: the label's look-alike keys and hash, and (for the first
 * key) its sound-alike key, its deletion neighbourhood, its keyword test and the hashes of the
 * ASCII host's tokens. Each index then only probes its own tables with them.
 *
 * An ASCII label is read once, and that one pass gives its hash, the prefix hashes its
 * neighbourhood is computed from, its tokens' hashes, and whether it can hold a sound-alike
 * spelling or a keyword at all (most labels hold neither, and then nothing more is computed for
 * them). One probe is reset for every call (the engine is synchronous), so a host allocates
 * nothing here.
 */
class Probe {
  keys: readonly string[] = NONE;
  firstHash = 0;
  /** The host is one label without hyphens or underscores (then it has no tokens to split). */
  singleToken = true;
  /**
   * The ASCII key `readAscii` read last holds a hyphen or an underscore (always true for an IDN
   * label): when false, a key that is not empty is its one token and `PROBE_TOKENS[0]` is `firstHash`.
   */
  joined = true;
  /** The ASCII key `readAscii` read last `endsPartInId` (ends in "id" or holds "id-"). */
  partEndsInId = false;
  private host: HostParts | undefined = undefined;
  /** Characters of the first key that its hashes read (ASCII labels: `PROBE_PREFIX` holds their prefix hashes). */
  private hashedLength = -1;
  private sound: string | undefined = undefined;
  private soundHash = 0;
  /** `soundHash` holds `keyHash(firstSound())`, though `sound` may not be built yet. */
  private hasSoundHash = false;
  private hasNeighbours = false;
  private neighbourCount = 0;
  private keyword = UNKNOWN;
  /**
   * The indexes (`Prefilter` bits) whose deletion neighbourhoods under the host's suffix may hold
   * a hash of the first key's neighbourhood; every bit until the prefilter has probed them all.
   */
  neighbourMask = ALL_INDEXES;
  /** The indexes (`Prefilter` bits) that may hold the first key itself (as a label, brand or other key); every bit until probed. */
  labelMask = ALL_INDEXES;
  /** `PROBE_TOKENS` holds this many token hashes of the first key; `allTokenHashes`: the subdomain's too. */
  private tokenCount = -1;
  private allTokenHashes = false;
  /** The one key of an ASCII label (`keys`, reused). */
  private readonly asciiKeys: string[] = [''];
  /** `tokensOf` the host, once both indexes may need it (null: not split yet). */
  private split: Tokens | null = null;
  /** `labelParts()`, and the host it was read for. */
  private parts: LabelParts | null = null;
  private partsHost: HostParts | undefined = undefined;
  /** `readTokenHashes` of the host is in `TOKEN_HASHES` (`tokenHashCount` of them). */
  private hasTokenHashes = false;
  private tokenHashCount = 0;
  /**
   * The indexes (`Prefilter` bits) for which `LookalikeIndex.mayPairWithKeyword` was decided for
   * this host, and those it answered true for: each index asks it in `mayMatchAscii` and again in
   * `strongest`. Reset with the host (the answer depends on the index, which a policy changes).
   */
  keywordPairsKnown = 0;
  keywordPairs = 0;

  constructor(host?: HostParts) {
    if (host !== undefined) this.reset(host);
  }

  /** Reads `host` afresh (its registrable domain, label and suffix set). */
  reset(host: HostParts): this {
    this.host = host;
    this.split = null;
    this.sound = undefined;
    this.hasSoundHash = false;
    this.hasNeighbours = false;
    this.keyword = UNKNOWN;
    this.neighbourMask = ALL_INDEXES;
    this.labelMask = ALL_INDEXES;
    this.tokenCount = -1;
    this.allTokenHashes = false;
    this.hashedLength = -1;
    this.hasTokenHashes = false;
    this.keywordPairsKnown = 0;
    this.keywordPairs = 0;
    if (host.ascii.length >= PROBE_TOKENS.length) PROBE_TOKENS = new Int32Array(host.ascii.length + 1);
    const label = host.label!;
    if (host.idn) {
      this.keys = labelKeys(host.labelUnicode!);
      this.firstHash = keyHash(this.keys[0]!);
      this.joined = true;
      this.singleToken = host.subdomain === '' && label.indexOf('-') < 0 && label.indexOf('_') < 0 && !this.keys[0]!.includes('-');
    } else {
      // The pass over the label also tells whether `foldAscii` changes it; then the folded key is read.
      let key = label;
      if (this.readAscii(label)) this.readAscii((key = foldAscii(label)));
      this.asciiKeys[0] = key;
      this.keys = this.asciiKeys;
      // `readAscii` saw whether the label has a hyphen or underscore (the ASCII fold adds none).
      this.singleToken = host.subdomain === '' && !this.joined;
    }
    return this;
  }

  /**
   * One pass over an ASCII key: `firstHash` and `PROBE_PREFIX` (as `keyHash` and
   * `neighbourhoodHashes` compute them), the hashes of its tokens (as `pushTokenHashes`), the
   * sound-alike key when no `phoneticKey` rule applies (the key itself), and no keyword when
   * neither a keyword's first four characters (`KEYWORD_STARTS`) nor a short lure word's shape
   * (`WHOLE_TOKEN_SHAPES`) occurs in it. True when `foldAscii` would change `key` (then it is
   * no key yet, and the folded text must be read instead).
   */
  private readAscii(key: string): boolean {
    const length = key.length;
    // Read into locals: an imported binding is read again on every use in a loop.
    const base = HASH_BASE;
    const maxHashed = MAX_HASHED;
    const shapes = WHOLE_TOKEN_SHAPES;
    const starts = KEYWORD_STARTS;
    const prefix = PROBE_PREFIX;
    const n = Math.min(length, maxHashed);
    const tokens = PROBE_TOKENS;
    const powers = POWERS;
    const roles = CHAR_ROLES;
    const pairs = PAIR_FLAGS;
    const separator = SEPARATOR_ROLE;
    let count = 0;
    let h = 0;
    // A token's hash comes from the prefix hashes where it ends (the key is never longer than
    // `MAX_HASHED` there: see the fallback after the loop).
    let tokenStart = 0;
    let wordStart = 0;
    let window = 0;
    let mayHaveKeyword = false;
    let joined = false;
    let partEndsInId = length >= 2 && key.charCodeAt(length - 1) === 0x64 && key.charCodeAt(length - 2) === 0x69;
    // The `PAIR_FLAGS` of every pair read: whether `phoneticKey` or `foldAscii` may change the key.
    let flags = 0;
    let role = 0;
    prefix[0] = 0;
    for (let i = 0; i < length; i++) {
      const c = key.charCodeAt(i);
      if (i < n) prefix[i + 1] = h = (Math.imul(h, base) + c) | 0;
      const low = c & 0x7f;
      flags |= pairs[(role << 7) | low]!;
      role = roles[low]!;
      if (role === separator && (c === 0x2e || c === 0x2d || c === 0x5f)) {
        if (c !== 0x2e) joined = true;
        if (c === 0x2d && i >= 2 && key.charCodeAt(i - 1) === 0x64 && key.charCodeAt(i - 2) === 0x69) partEndsInId = true;
        if (i > tokenStart && length <= maxHashed) {
          tokens[count++] = ((prefix[i]! - Math.imul(prefix[tokenStart]!, powers[i - tokenStart]!)) | 0) & 0x3fffffff;
          // `wwwpaypal`, also as `paypal` (`pushTokenHashes`).
          if (isWwwToken(key, tokenStart, i))
            tokens[count++] = ((prefix[i]! - Math.imul(prefix[tokenStart + 3]!, powers[i - tokenStart - 3]!)) | 0) & 0x3fffffff;
        }
        tokenStart = i + 1;
        if (c !== 0x5f) {
          if (isWholeTokenShape(shapes, key, wordStart, i)) mayHaveKeyword = true;
          wordStart = i + 1;
        }
      }
      window = (window << 8) | (c & 0xff);
      if (i >= 3 && !mayHaveKeyword && starts.hasWindow(window)) mayHaveKeyword = true;
    }
    if (length > maxHashed) count = pushTokenHashes(key, tokens, 0);
    else if (length > tokenStart) {
      tokens[count++] = ((h - Math.imul(prefix[tokenStart]!, powers[length - tokenStart]!)) | 0) & 0x3fffffff;
      if (isWwwToken(key, tokenStart, length))
        tokens[count++] = ((h - Math.imul(prefix[tokenStart + 3]!, powers[length - tokenStart - 3]!)) | 0) & 0x3fffffff;
    }
    if (isWholeTokenShape(shapes, key, wordStart, length)) mayHaveKeyword = true;
    this.firstHash = h & 0x3fffffff;
    this.joined = joined;
    this.partEndsInId = partEndsInId;
    this.hashedLength = n;
    this.tokenCount = count;
    this.keyword = mayHaveKeyword ? UNKNOWN : NO;
    const mayHaveSound = (flags & MAY_SOUND) !== 0;
    this.sound = mayHaveSound ? undefined : key;
    this.soundHash = this.firstHash;
    this.hasSoundHash = !mayHaveSound;
    return (flags & MAY_FOLD) !== 0;
  }

  /** The host's tokens (`tokensOf` with the first key), split once for both indexes. */
  tokens(): Tokens {
    return (this.split ??= tokensOf(this.host!, this.keys[0]!));
  }

  /** How many hashes `TOKEN_HASHES` holds once `readTokenHashes` read the host with its first key: once per host for both indexes. */
  tokenHashes(): number {
    if (!this.hasTokenHashes) {
      this.tokenHashCount = readTokenHashes(this.host!, this.keys[0]!);
      this.hasTokenHashes = true;
    }
    return this.tokenHashCount;
  }

  /** The first key cut at its hyphens (`LabelParts`), read once per host for both indexes' `combo`. */
  labelParts(): LabelParts {
    if (this.partsHost !== this.host) {
      this.parts = new LabelParts(this.keys[0]!, this.hasKeyword());
      this.partsHost = this.host;
    }
    return this.parts!;
  }

  /** `phoneticKey` of the first key. */
  firstSound(): string {
    if (this.sound === undefined) {
      this.sound = phoneticKey(this.keys[0]!);
      this.soundHash = this.sound === this.keys[0] ? this.firstHash : keyHash(this.sound);
      this.hasSoundHash = true;
    }
    return this.sound;
  }

  /** `keyHash` of `firstSound()`. */
  firstSoundHash(): number {
    // Most callers only probe a filter with it: hashed as the key is read, without building the key.
    if (!this.hasSoundHash) {
      this.soundHash = phoneticKeyHash(this.keys[0]!);
      this.hasSoundHash = true;
    }
    return this.soundHash;
  }

  /** The deletion-neighbourhood hashes of the first key, in `neighbourhoodHashes` order (`count` of them). */
  firstNeighbourhood(): Int32Array {
    if (!this.hasNeighbours) {
      this.neighbourCount =
        this.hashedLength >= 0
          ? deletionHashes(PROBE_PREFIX, this.hashedLength, PROBE_HASHES)
          : neighbourhoodHashes(this.keys[0]!, undefined, PROBE_HASHES);
      this.hasNeighbours = true;
    }
    return PROBE_HASHES;
  }

  /** `pieceHashes` of the first key, an ASCII key of `MAX_PIECED` characters at most (read by `readAscii`). */
  firstPieces(): Int32Array {
    pieceHashes(PROBE_PREFIX, this.hashedLength, this.hashedLength, PROBE_PIECES);
    return PROBE_PIECES;
  }

  get firstNeighbourCount(): number {
    this.firstNeighbourhood();
    return this.neighbourCount;
  }

  /** `anyKeyword(keys)`. */
  hasKeyword(): boolean {
    if (this.keyword === UNKNOWN) this.keyword = anyKeyword(this.keys) ? YES : NO;
    return this.keyword === YES;
  }

  /**
   * How many hashes `PROBE_TOKENS` holds once it holds the `keyHash` of every token of an ASCII
   * host's folded label (`labelKey`) and subdomain.
   */
  asciiTokenCount(): number {
    if (!this.allTokenHashes) {
      if (this.tokenCount < 0) this.tokenCount = pushTokenHashes(this.keys[0]!, PROBE_TOKENS, 0);
      const subdomain = this.host!.subdomain;
      if (subdomain !== '') this.tokenCount = pushTokenHashes(subdomain, PROBE_TOKENS, this.tokenCount);
      this.allTokenHashes = true;
    }
    return this.tokenCount;
  }
}

const UNKNOWN = 0;
const NO = 1;
const YES = 2;

/** Prefix hashes of the live probe's ASCII key, for its neighbourhood and pieces. */
const PROBE_PREFIX = new Int32Array(MAX_HASHED + 1);
/** The live probe's `pieceHashes`. */
const PROBE_PIECES = new Int32Array(3);
/** The live probe's token hashes: grown to the host's length when longer (a host has fewer tokens, "www" variants included, than characters). */
let PROBE_TOKENS = new Int32Array(MAX_HASHED + 1);

/** The text from `start` to `end` has the first character and length of a short lure word (`hasWholeTokenKeyword`'s test). */
function isWholeTokenShape(shapes: Uint32Array, text: string, start: number, end: number): boolean {
  const length = end - start;
  return length >= 2 && length <= 7 && (shapes[text.charCodeAt(start) & 0x7f]! & (1 << length)) !== 0;
}

/**
 * The buffer of the live probe's neighbourhood (one `findLookalike` call at a time: the engine is
 * synchronous), apart from `HASHES`, which other keys of an IDN label reuse meanwhile.
 */
const PROBE_HASHES = new Int32Array(HASHES.length);

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
  private readonly bits: Uint32Array;
  /** 32 minus log2 of the filter's bits: at least 2^12, and 16 bits a word (a policy's thousands of brands would fill 2^12). */
  private readonly shift: number;

  constructor(words: readonly string[]) {
    let log2 = 12;
    while (1 << log2 < words.length * 16 && log2 < 20) log2++;
    this.bits = new Uint32Array((1 << log2) >>> 5);
    this.shift = 32 - log2;
    for (const word of words) {
      let window = 0;
      for (let i = 0; i < 4; i++) window = (window << 8) | (word.charCodeAt(i) & 0xff);
      const bit = this.bitOf(window);
      this.bits[bit >>> 5]! |= 1 << (bit & 31);
    }
  }

  private bitOf(window: number): number {
    return Math.imul(window, 0x9e3779b1) >>> this.shift;
  }

  /** The last four characters read, one byte each (as `mayContain` builds them), may start a word. */
  hasWindow(window: number): boolean {
    const bit = this.bitOf(window);
    return (this.bits[bit >>> 5]! & (1 << (bit & 31))) !== 0;
  }

  /** A word may start at `at` in `text` (four characters or more from there). */
  mayStartAt(text: string, at: number): boolean {
    if (at + 4 > text.length) return false;
    let window = 0;
    for (let i = at; i < at + 4; i++) window = (window << 8) | (text.charCodeAt(i) & 0xff);
    return this.hasWindow(window);
  }

  mayContain(text: string): boolean {
    // Only the low byte of each character enters the window: a word (ASCII) still hashes to its
    // own bit, and other text can only collide. The window stays a signed 32-bit integer (no
    // `>>> 0`), so it never leaves the engine's integer range.
    let window = 0;
    for (let i = 0; i < text.length; i++) {
      window = (window << 8) | (text.charCodeAt(i) & 0xff);
      if (i < 3) continue;
      const bit = this.bitOf(window);
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

  /** Some brand occurs in `text` (`longestAt` finds one at some position). */
  occursIn(text: string): boolean {
    if (!this.mayContain(text)) return false;
    for (let at = 0; at + MIN_COMBO_SUBSTRING <= text.length; at++) if (this.longestAt(text, at) !== null) return true;
    return false;
  }

  /** The longest brand that starts at `at` in `text`, or null. */
  longestAt(text: string, at: number): string | null {
    // Every brand has four characters or more (`MIN_COMBO_SUBSTRING`), so its first four are in `starts`.
    if (!this.starts.mayStartAt(text, at)) return null;
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

// A bit per (first character, length) of the short lure words: most tokens are none of them, and
// this tells without cutting the token out.
const WHOLE_TOKEN_SHAPES = new Uint32Array(128);
for (const word of WHOLE_TOKEN_KEYWORDS) WHOLE_TOKEN_SHAPES[word.charCodeAt(0) & 0x7f]! |= 1 << word.length;

/** The probe `findLookalike` resets for each host. */
const PROBE = new Probe();

/** A token of `text` (split at hyphens and dots) that is one of the short lure words. */
function hasWholeTokenKeyword(text: string): boolean {
  let start = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 0x2e;
    if (c !== 0x2e && c !== 0x2d) continue;
    const length = i - start;
    if (
      length >= 2 &&
      length <= 7 &&
      (WHOLE_TOKEN_SHAPES[text.charCodeAt(start) & 0x7f]! & (1 << length)) !== 0 &&
      WHOLE_TOKEN_KEYWORDS.has(text.slice(start, i))
    )
      return true;
    start = i + 1;
  }
  return false;
}

/**
 * A label key cut at its hyphens (as `key.split('-')`, empty parts included), with what
 * `comboInLabel` asks of each part: its `keyHash` and whether it holds a keyword. Read once per
 * host for both indexes (`Probe.labelParts`); a part's string is cut only once a filter lets its
 * hash through.
 */
class LabelParts {
  readonly key: string;
  readonly count: number;
  /** Where each part starts and ends (the hyphen after it, or the key's end). */
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  readonly hashes: number[] = [];
  private readonly strings: (string | undefined)[] = [];
  /** Whether each part holds a keyword (`containsKeyword`), and how many do: read once asked for (-1 until then). */
  private readonly keywords: boolean[] = [];
  private keywordTotal = -1;
  private readonly keyHasKeyword: boolean;
  private joined: string | undefined = undefined;

  /** `keyHasKeyword` is `containsKeyword(key)`: when false, no part holds a keyword (a keyword never spans a hyphen). */
  constructor(key: string, keyHasKeyword: boolean) {
    this.key = key;
    let start = 0;
    let h = 0;
    for (let i = 0; i <= key.length; i++) {
      const c = i < key.length ? key.charCodeAt(i) : 0x2d;
      if (c !== 0x2d) {
        // `keyHash` reads at most MAX_HASHED characters of a key.
        if (i - start < MAX_HASHED) h = (Math.imul(h, HASH_BASE) + c) | 0;
        continue;
      }
      this.starts.push(start);
      this.ends.push(i);
      this.hashes.push(h & 0x3fffffff);
      this.strings.push(undefined);
      start = i + 1;
      h = 0;
    }
    this.count = this.starts.length;
    this.keyHasKeyword = keyHasKeyword;
  }

  /** How many parts hold a keyword. */
  get keywordCount(): number {
    if (this.keywordTotal < 0) {
      let count = 0;
      for (let i = 0; i < this.count; i++) {
        const keyword = this.keyHasKeyword && (this.count === 1 || containsKeyword(this.part(i)));
        this.keywords.push(keyword);
        if (keyword) count++;
      }
      this.keywordTotal = count;
    }
    return this.keywordTotal;
  }

  part(i: number): string {
    return (this.strings[i] ??= this.count === 1 ? this.key : this.key.slice(this.starts[i], this.ends[i]));
  }

  length(i: number): number {
    return this.ends[i]! - this.starts[i]!;
  }

  start(i: number): number {
    return this.starts[i]!;
  }

  end(i: number): number {
    return this.ends[i]!;
  }

  hasKeyword(i: number): boolean {
    return this.keywordCount > 0 && this.keywords[i]!;
  }

  /** The key without its hyphens (`parts.join('')`). */
  joinedKey(): string {
    return (this.joined ??= this.count === 1 ? this.key : this.key.replaceAll('-', ''));
  }

  /** `keyHash` of part `i` without its last `drop` characters. */
  stemHash(i: number, drop: number): number {
    return rangeKeyHash(this.key, this.starts[i]!, this.ends[i]! - drop);
  }

  /** `keyHash` of parts `i` and `i + 1` joined. */
  pairHash(i: number): number {
    return rangeKeyHash(this.key, this.starts[i]!, this.ends[i]!, this.starts[i + 1]!, this.ends[i + 1]!);
  }
}

/** A part of `parts` other than part `i`, and not the same text, holds a keyword. */
function hasKeywordInOtherPart(parts: LabelParts, i: number): boolean {
  if (parts.keywordCount === 0 || (parts.keywordCount === 1 && parts.hasKeyword(i))) return false;
  for (let j = 0; j < parts.count; j++) if (parts.hasKeyword(j) && parts.part(j) !== parts.part(i)) return true;
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
  private readonly byLabelKey: KeyMap;
  /** The sites of `byLabelKey` whose label is not its own key (`auth0`, key `autho`): the only ones an unfolded label can fold to. */
  private readonly byFoldedLabelKey: KeyMap;
  private readonly byPhoneticKey: KeyMap;
  /**
   * Deletion neighbourhood of label keys, per public suffix: the hash of every key and of every
   * key with one character removed. A query looks up its own hash and its own deletions, which
   * finds every site within one edit or one swap without comparing against each site.
   */
  private readonly deletions = new Map<string, Map<number, IndexedSite[]>>();
  /** The sites in `deletions`, in the order indexed. */
  private readonly editSites: IndexedSite[] = [];
  private lastSuffix: string | null = null;
  private lastDeletions: ReadonlyMap<number, readonly IndexedSite[]> | undefined = undefined;
  /**
   * The hashes of each suffix's `deletions` in a blocked filter: a host's neighbourhood probes
   * miss there far more often than in `hashFilter` (all suffixes, one bit per hash).
   */
  private readonly neighbourFilters = new Map<string, BlockedFilter>();
  private lastNeighbourFilter: BlockedFilter | undefined = undefined;
  /**
   * One bit per neighbourhood hash (any suffix), for the keys of an IDN label after its first
   * (`editCandidates`): most of their hashes miss here and skip the map.
   */
  private readonly hashFilter: Uint32Array;
  /** Dotted embedding targets (`apple` + `com` in `apple.com.evil.net`): every site with a label of 4+. */
  private readonly dottedTargets: KeyMap;
  /**
   * Each dotted target with the first label of its suffix (`pairHash` of their hashes: `apple`
   * then `com`): a token is an embedded target only when the next token is that label.
   */
  private readonly dottedPairs: BlockedFilter;
  /** Glued embedding targets, distinctive labels only (`paypalcom`). */
  private readonly gluedTargets: KeyMap;
  /** Combo-squatting brands that are not words: matched inside longer labels too. */
  private readonly distinctiveBrands: KeyMap;
  /** The distinctive brands of 4+ characters, matched inside a label by `BrandScanner` (no regex of alternatives). */
  private readonly distinctiveBrandScanner: BrandScanner;
  /** Combo-squatting brands that are words (`apple`, `zoom`): matched only as whole tokens. */
  private readonly wordBrands = new Map<string, IndexedSite[]>();
  /** `wordBrands` as pairs in insertion order, for the scan that cannot look a brand up. */
  private readonly wordBrandList: readonly (readonly [string, readonly IndexedSite[]])[];
  /** The first and the last four characters of each word brand (`mayGlueWordBrand`), and their `keyHash`es. */
  private readonly wordBrandStarts: WordStartFilter;
  private readonly wordBrandEnds: WordStartFilter;
  private readonly wordBrandHashes: BlockedFilter;
  /**
   * This index's bit in the `Prefilter` in front of it (`BUILT_IN` or `POLICY_INDEX`), for reading
   * what the prefilter found of it in the probe; every bit for an index no prefilter stands before.
   */
  prefilterBit = ALL_INDEXES;
  /** The filter bits of every map a host token is looked up in (dotted, glued, distinctive). */
  private readonly tokenFilter: Uint32Array;

  constructor(sites: Iterable<ProtectedSite>, aliases: ReadonlyMap<string, string> = new Map()) {
    const all = new Map<string, ProtectedSite>();
    for (const site of sites) all.set(site.domain, site);
    this.sites = all;
    // Filters sized to the list: a policy's 5,000 domains would fill the smallest ones.
    const keyWords = filterWords(3 * all.size, KEY_FILTER_WORDS);
    this.byLabelKey = new KeyMap(keyWords);
    this.byFoldedLabelKey = new KeyMap(KEY_FILTER_WORDS);
    this.byPhoneticKey = new KeyMap(keyWords);
    this.dottedTargets = new KeyMap(keyWords);
    this.gluedTargets = new KeyMap(keyWords);
    this.distinctiveBrands = new KeyMap(keyWords);
    this.tokenFilter = new Uint32Array(keyWords);
    this.hashFilter = new Uint32Array(filterWords(12 * all.size, HASH_FILTER_WORDS));
    const hashMask = this.hashFilter.length - 1;
    const indexedByDomain = new Map<string, IndexedSite>();
    const dottedPairs: number[] = [];
    for (const site of all.values()) {
      const labelKey = labelKeys(toUnicodeHost(site.label))[0]!;
      const indexed: IndexedSite = { site, labelKey, suffixLabels: site.suffix.split('.') };
      indexedByDomain.set(site.domain, indexed);
      push(this.byRegistrableKey, `${labelKey}.${site.suffix}`, indexed);
      this.byLabelKey.add(labelKey, indexed);
      if (site.label !== labelKey) this.byFoldedLabelKey.add(labelKey, indexed);
      if (labelKey.length >= (site.curated ? MIN_EDIT_DISTANCE_CURATED : MIN_EDIT_DISTANCE_LABEL)) {
        this.byPhoneticKey.add(phoneticKey(labelKey), indexed);
        let bySuffix = this.deletions.get(site.suffix);
        if (bySuffix === undefined) this.deletions.set(site.suffix, (bySuffix = new Map()));
        this.editSites.push(indexed);
        const count = neighbourhoodHashes(labelKey);
        for (let h = 0; h < count; h++) {
          const hash = HASHES[h]!;
          push(bySuffix, hash, indexed);
          this.hashFilter[(hash >>> 5) & hashMask]! |= 1 << (hash & 31);
        }
      }
      if (site.label.length >= MIN_EMBEDDED_LABEL) {
        this.dottedTargets.add(labelKey, indexed);
        dottedPairs.push(pairHash(keyHash(labelKey), keyHash(indexed.suffixLabels[0]!)));
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
    for (const [suffix, bySuffix] of this.deletions) this.neighbourFilters.set(suffix, new BlockedFilter([...bySuffix.keys()]));
    this.wordBrandList = [...this.wordBrands];
    this.dottedPairs = new BlockedFilter(dottedPairs);
    this.wordBrandStarts = new WordStartFilter([...this.wordBrands.keys()]);
    this.wordBrandEnds = new WordStartFilter([...this.wordBrands.keys()].map((brand) => brand.slice(-MIN_COMBO_SUBSTRING)));
    this.wordBrandHashes = new BlockedFilter([...this.wordBrands.keys()].map(keyHash));
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
    return this.matchProbe(host, new Probe(host));
  }

  /** Calls `f` with the `keyHash` of every key a host's label or token is looked up by (`Prefilter`). */
  forEachKeyHash(f: (hash: number) => void): void {
    for (const map of [this.byLabelKey, this.byPhoneticKey, this.dottedTargets, this.gluedTargets, this.distinctiveBrands])
      for (const key of map.keys()) f(keyHash(key));
  }

  /** Calls `f` with every deletion-neighbourhood hash and the suffix it is indexed under (`Prefilter`). */
  forEachNeighbourhoodHash(f: (suffix: string, hash: number) => void): void {
    for (const [suffix, hashes] of this.deletions) for (const hash of hashes.keys()) f(suffix, hash);
  }

  /**
   * Calls `f` with every `pieceHashes` of the keys in `deletions` (for each key length within one
   * of theirs, from `MIN_EDIT_DISTANCE_CURATED` to `MAX_PIECED`) and the suffix it is indexed under (`Prefilter`).
   */
  forEachPieceHash(f: (suffix: string, hash: number) => void): void {
    const prefix = new Int32Array(MAX_HASHED + 1);
    const pieces = new Int32Array(3);
    for (const { labelKey, site } of this.editSites) {
      // Longer keys are read whole (`prefixHashes` reads `MAX_HASHED` characters): no key of `MAX_PIECED` is within one edit.
      if (labelKey.length > MAX_PIECED + 1) continue;
      const length = prefixHashes(labelKey, prefix);
      for (let n = Math.max(MIN_EDIT_DISTANCE_CURATED, length - 1); n <= Math.min(length + 1, MAX_PIECED); n++) {
        pieceHashes(prefix, length, n, pieces);
        for (let i = 0; i < 3; i++) f(site.suffix, pieces[i]!);
      }
    }
  }

  /**
   * False when no table of this index can match the ASCII `host`: decided from filter bits alone,
   * for the conditions `strongest` needs (its label key, a "www" prefix, a sound-alike or a
   * one-edit neighbour under a suffix with sites, a brand, a token or glued target, a keyword
   * with a brand of this index in the label).
   */
  mayMatchAscii(host: HostParts, probe: Probe): boolean {
    const hash = probe.firstHash;
    // What the prefilter found of this index: whether it may hold the label's key, or a one-edit neighbour of it.
    const label = (probe.labelMask & this.prefilterBit) !== 0;
    if (label && this.byLabelKey.mayHave(hash)) return true;
    const key = probe.keys[0]!;
    if (key.length >= MIN_EDIT_DISTANCE_CURATED) {
      if (key.startsWith('www') || (label && this.distinctiveBrands.mayHave(hash))) return true;
      if (this.deletionsOf(host.suffix!) !== undefined) {
        if (this.byPhoneticKey.mayHave(probe.firstSoundHash())) return true;
        if ((probe.neighbourMask & this.prefilterBit) !== 0) {
          const neighbours = probe.firstNeighbourhood();
          // The neighbourhoods of this suffix alone (`deletionsOf` caches its filter too).
          const filter = this.lastNeighbourFilter!;
          for (let h = probe.firstNeighbourCount - 1; h >= 0; h--) if (filter.mayHave(neighbours[h]!)) return true;
        }
      }
    }
    if (probe.singleToken ? label && this.gluedTargets.mayHave(hash) : anyInFilter(PROBE_TOKENS, probe.asciiTokenCount(), this.tokenFilter))
      return true;
    return this.mayPairWithId(probe.keys) || this.mayPairWithKeyword(probe);
  }

  /**
   * False when `combo` cannot pair a brand of this index with a keyword in the ASCII label of
   * `probe` (or the label holds none). Each of its rules needs a brand in the label:
   * - a distinctive brand of four characters or more anywhere in it, the stem of a part that ends
   *   in "id" included (the scanner's brands; they are looked up, not only their first four
   *   characters, since `share` starts `sharepoint` and `coin` starts `coinbase`);
   * - a distinctive brand as a part, or as two parts joined (shorter brands too);
   * - a word brand as a part, or at either end of one.
   * A brand as a token of the subdomain is in `tokenFilter`, which `mayMatchAscii` asks first.
   */
  private mayPairWithKeyword(probe: Probe): boolean {
    const bit = this.prefilterBit;
    if ((probe.keywordPairsKnown & bit) === bit) return (probe.keywordPairs & bit) === bit;
    const may = this.keywordPairIn(probe);
    probe.keywordPairsKnown |= bit;
    if (may) probe.keywordPairs |= bit;
    return may;
  }

  /** `mayPairWithKeyword`, decided. */
  private keywordPairIn(probe: Probe): boolean {
    if (!probe.hasKeyword()) return false;
    const parts = probe.labelParts();
    const key = parts.key;
    if (this.distinctiveBrandScanner.occursIn(key)) return true;
    const words = this.wordBrandList.length > 0;
    for (let i = 0; i < parts.count; i++) {
      const hash = parts.hashes[i]!;
      if (this.distinctiveBrands.mayHave(hash)) return true;
      if (i + 1 < parts.count && this.distinctiveBrands.mayHave(parts.pairHash(i))) return true;
      if (words && (this.wordBrandHashes.mayHave(hash) || this.mayGlueWordBrand(key, parts.start(i), parts.end(i)))) return true;
    }
    return false;
  }

  /**
   * False when `combo` cannot pair a brand with "id" in any of `keys` (when they hold no keyword):
   * it does so only for a key that ends a part in "id" (`endsPartInId`) with a distinctive brand of
   * four characters or more in it (`githubid`, the brand as the part's stem, or `kycgithubid`, a
   * brand next to a short lure word the brand's removal leaves whole).
   */
  private mayPairWithId(keys: readonly string[]): boolean {
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      if (endsPartInId(key) && this.distinctiveBrandScanner.mayContain(key)) return true;
    }
    return false;
  }

  /**
   * True when `host` (with its `probe`) is one of this index's sites. A protected site's own
   * label key is in `byLabelKey`, so a key that misses its filter settles this without the lookup.
   */
  ownsSite(host: HostParts, probe: Probe): boolean {
    return this.byLabelKey.mayHave(probe.firstHash) && this.sites.has(host.registrable!);
  }

  /** `match` with the host's probe (registrable domain, label and suffix all set). */
  matchProbe(host: HostParts, probe: Probe): LookalikeMatch | null {
    // A protected site is not a look-alike of another protected site.
    if (this.ownsSite(host, probe)) return null;
    return this.strongest(host, probe);
  }

  private strongest(host: HostParts, probe: Probe): LookalikeMatch | null {
    const keys = probe.keys;
    const firstHash = probe.firstHash;
    const homoglyph = this.homoglyph(host, keys);
    if (homoglyph !== null) return homoglyph;
    const typosquat = this.typosquat(host, probe);
    if (typosquat !== null) return typosquat;
    const foreign = this.brandUnderForeignTld(host, keys[0]!, firstHash);
    if (foreign !== null) return foreign;
    // The host's tokens serve the embedding, combo and subdomain checks: split them once, and
    // only for a host that has more than one token. Most ASCII hosts have no token that any of
    // those tables knows (the token hashes against the tables' filter tell), and then no token can match.
    const tokens = probe.singleToken
      ? null
      : host.idn || (anyInFilter(PROBE_TOKENS, probe.asciiTokenCount(), this.tokenFilter) && this.mayMatchTokens(probe))
        ? probe.tokens()
        : NO_TOKENS;
    // Then the checks below need a token some table knows (for a single label, the label as a
    // glued target), a keyword in the label or a brand in a label that ends a part in "id" (the
    // identity lure `combo` pairs brands with without a keyword); most hosts have none, and are
    // done here.
    if (
      (tokens === null ? !this.gluedTargets.mayHave(firstHash) : tokens === NO_TOKENS) &&
      !(host.idn ? probe.hasKeyword() : this.mayPairWithKeyword(probe)) &&
      !this.mayPairWithId(keys)
    )
      return null;
    const embedding = this.embedding(host, keys[0]!, firstHash, tokens);
    if (embedding?.severity === 'error') return embedding;
    const combo = this.combo(host, probe, tokens);
    if (combo !== null) return combo;
    return embedding ?? this.brandInSubdomain(host, tokens);
  }

  /**
   * False when no rule that reads the tokens of the probe's ASCII host (with its label key) can match in
   * this index, told from their hashes before the host is split (`Probe.tokenHashes`): `embedding`
   * needs a target followed by the first label of its suffix (`dottedPairs`) or a "www" token, or
   * a glued target; `combo` and `brandInSubdomain` a distinctive brand in the subdomain.
   */
  private mayMatchTokens(probe: Probe): boolean {
    const count = probe.tokenHashes();
    const hashes = TOKEN_HASHES;
    for (let i = 0; i < count; i++) {
      const hash = hashes[i]!;
      if (this.gluedTargets.mayHave(hash)) return true;
      if (i < TOKEN_SUBDOMAIN_COUNT && this.distinctiveBrands.mayHave(hash)) return true;
      if (
        i + 1 < count &&
        (TOKEN_WWW[i] === 1 || (this.dottedTargets.mayHave(hash) && this.dottedPairs.mayHave(pairHash(hash, hashes[i + 1]!))))
      )
        return true;
    }
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
    return isSameOrSubdomainOf(host.ascii, indexed.site.domain);
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

  private typosquat(host: HostParts, probe: Probe): LookalikeMatch | null {
    const keys = probe.keys;
    const label = host.idn ? (host.labelUnicode ?? host.label!) : host.label!;
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k]!;
      const hash = k === 0 ? probe.firstHash : keyHash(key);
      // Digit-for-letter and letter-pair tricks fold to the brand exactly (`paypa1`, `rnicrosoft`,
      // and `autho` for `auth0`). A site whose label is the host's is no such trick: an ASCII label
      // that is its own key only reads the sites whose label is not theirs.
      const folded = (!host.idn && key === label ? this.byFoldedLabelKey : this.byLabelKey).get(key, hash);
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
      const sound = k === 0 ? probe.firstSound() : phoneticKey(key);
      const soundHash = k === 0 ? probe.firstSoundHash() : sound === key ? hash : keyHash(sound);
      const phonetic = this.firstForeign(this.byPhoneticKey.get(sound, soundHash), host);
      if (phonetic !== null && phonetic.labelKey !== key && phonetic.site.suffix === host.suffix) {
        return match(UrlFinding.lookalikeTyposquat, phonetic, 'is spelled to sound like');
      }
      const candidates =
        k !== 0
          ? this.editCandidates(key, bySuffix)
          : (probe.neighbourMask & this.prefilterBit) === 0
            ? null
            : this.probeCandidates(probe.firstNeighbourhood(), probe.firstNeighbourCount, bySuffix);
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
      this.lastNeighbourFilter = this.neighbourFilters.get(suffix);
    }
    return this.lastDeletions;
  }

  /** `editCandidates` from a key's neighbourhood already computed (`count` hashes of `hashes`, unfiltered). */
  private probeCandidates(hashes: Int32Array, count: number, bySuffix: ReadonlyMap<number, readonly IndexedSite[]>): IndexedSite[] | null {
    let candidates: IndexedSite[] | null = null;
    // The filter of this suffix's neighbourhoods (`deletionsOf` set it), already read by `mayMatchAscii`.
    const filter = this.lastNeighbourFilter!;
    for (let h = 0; h < count; h++) {
      const hash = hashes[h]!;
      if (!filter.mayHave(hash)) continue;
      const found = bySuffix.get(hash);
      if (found === undefined) continue;
      candidates ??= [];
      for (const c of found) if (!candidates.includes(c)) candidates.push(c);
    }
    return candidates;
  }

  /** Sites of one suffix (`bySuffix`) whose label key shares a deletion-neighbourhood hash with `key`. */
  private editCandidates(key: string, bySuffix: ReadonlyMap<number, readonly IndexedSite[]>): IndexedSite[] | null {
    let candidates: IndexedSite[] | null = null;
    const count = neighbourhoodHashes(key, this.hashFilter);
    for (let h = 0; h < count; h++) {
      const found = bySuffix.get(HASHES[h]!);
      if (found === undefined) continue;
      candidates ??= [];
      for (const c of found) if (!candidates.includes(c)) candidates.push(c);
    }
    return candidates;
  }

  /** `tokens` is null when the host is a single label without hyphens. */
  private embedding(host: HostParts, labelKey: string, labelHash: number, tokens: Tokens | null): LookalikeMatch | null {
    if (tokens === null) {
      // A single label can still hold a glued target (`paypalcom.net`).
      return this.glued(host, [labelKey], [labelHash]);
    }
    const { keys, hashes, separators } = tokens;
    let hyphenated: LookalikeMatch | null = null;
    // A target is followed by the labels of its suffix: the last token is none.
    for (let i = 0; i + 1 < keys.length; i++) {
      let targets = this.dottedTargets.get(keys[i]!, hashes[i]);
      // Most targets (`google` in `google-analytics.com`) are not followed by their suffix's first label.
      if (targets !== undefined && !this.dottedPairs.mayHave(pairHash(hashes[i]!, hashes[i + 1]!))) continue;
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

  private combo(host: HostParts, probe: Probe, tokens: Tokens | null): LookalikeMatch | null {
    const keys = probe.keys;
    let keyword = false;
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k]!;
      // The probe knows whether its one key holds a keyword.
      if (!(keys.length === 1 ? probe.hasKeyword() : containsKeyword(key))) {
        // `githubid-github`: no keyword, but a brand glued to "id".
        const id = endsPartInId(key) ? this.comboInLabel(k === 0 ? probe.labelParts() : new LabelParts(key, false), host) : null;
        if (id !== null) return id;
        continue;
      }
      keyword = true;
      const hit = this.comboInLabel(k === 0 ? probe.labelParts() : new LabelParts(key, true), host);
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

  /**
   * False when no two adjacent `parts` can join into a distinctive brand: the scanner holds the
   * brands of four characters or more, so a pair that joins into fewer (`a-ws`, `o-kx`) is
   * admitted as it is.
   */
  private maySplitBrand(parts: LabelParts): boolean {
    for (let i = 0; i + 1 < parts.count; i++) if (parts.length(i) + parts.length(i + 1) < MIN_COMBO_SUBSTRING) return true;
    return this.distinctiveBrandScanner.mayContain(parts.joinedKey());
  }

  /** A brand in `key` (with its `parts`) paired with a keyword or glued to "id". */
  private comboInLabel(parts: LabelParts, host: HostParts): LookalikeMatch | null {
    const key = parts.key;
    const count = parts.count;
    const brands = this.distinctiveBrands;
    // `githubid-github`: a brand glued to "id", the account-identity lure (`appleid`).
    for (let i = 0; i < count; i++) {
      if (parts.length(i) < 6 || key.charCodeAt(parts.end(i) - 2) !== 0x69 || key.charCodeAt(parts.end(i) - 1) !== 0x64) continue;
      const hash = parts.stemHash(i, 2);
      if (!brands.mayHave(hash)) continue;
      const brand = this.firstForeign(brands.get(parts.part(i).slice(0, -2), hash), host);
      if (brand !== null) return match(UrlFinding.lookalikeCombo, brand, 'pairs a phishing keyword with the brand of');
    }
    // Every rule below but the brand scan pairs a brand with a keyword in another part.
    const keywords = parts.keywordCount;
    // `pay-pal-support`: a brand split by a hyphen, then a keyword (in a third part).
    if (count > 2 && keywords > 0 && this.maySplitBrand(parts)) {
      for (let i = 0; i + 1 < count; i++) {
        const hash = parts.pairHash(i);
        if (!brands.mayHave(hash)) continue;
        const brand = this.firstForeign(brands.get(parts.part(i) + parts.part(i + 1), hash), host);
        const elsewhere = keywords - (parts.hasKeyword(i) ? 1 : 0) - (parts.hasKeyword(i + 1) ? 1 : 0);
        if (brand !== null && elsewhere > 0) return match(UrlFinding.lookalikeCombo, brand, 'pairs a phishing keyword with the brand of');
      }
    }
    // Distinctive brands count anywhere in the label (`paypallogin`, `oktaverify-mfa`), short ones as tokens (`aws-signin`).
    for (let i = 0; keywords > 0 && i < count; i++) {
      if (!brands.mayHave(parts.hashes[i]!)) continue;
      const brand = this.firstForeign(brands.get(parts.part(i), parts.hashes[i]), host);
      if (brand !== null && hasKeywordInOtherPart(parts, i))
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
        const candidate = this.firstForeign(brands.get(brand), host);
        if (candidate !== null) return match(UrlFinding.lookalikeCombo, candidate, 'pairs a phishing keyword with the brand of');
      }
    }
    // Brands that are ordinary words only count as whole tokens (`apple-login`, not `pineapple-login`).
    if (keywords === 0 || this.wordBrandList.length === 0) return null;
    for (let i = 0; i < count; i++) {
      const whole = this.wordBrands.get(parts.part(i));
      if (whole !== undefined) {
        const candidate = this.firstForeign(whole, host);
        if (candidate !== null && hasKeywordInOtherPart(parts, i))
          return match(UrlFinding.lookalikeCombo, candidate, 'pairs a phishing keyword with the brand of');
        continue;
      }
      // A word brand glued to a keyword (`applesupport`) holds the keyword, and starts or ends the part.
      if (!parts.hasKeyword(i) || !this.mayGlueWordBrand(key, parts.start(i), parts.end(i))) continue;
      const part = parts.part(i);
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

  /**
   * False when no word brand starts or ends the text of `key` from `start` to `end`: every word
   * brand has four characters or more, and its first and last four are in the filters.
   */
  private mayGlueWordBrand(key: string, start: number, end: number): boolean {
    if (end - start <= MIN_COMBO_SUBSTRING) return false;
    return this.wordBrandStarts.mayStartAt(key, start) || this.wordBrandEnds.mayStartAt(key, end - MIN_COMBO_SUBSTRING);
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

/**
 * The subdomain and label of `host` split at dots and hyphens, as look-alike keys, with the
 * separator after each; the subdomain's tokens come first. Every token is keyed on its own
 * (the ASCII fold never joins characters across a separator), so the subdomain and the label
 * are split apart and the label reuses its key (`labelKey`, the folded label when ASCII).
 */
function tokensOf(host: HostParts, labelKey: string): Tokens {
  const keys: string[] = [];
  const hashes: number[] = [];
  const separators: string[] = [];
  const sub = host.idn ? host.subdomainUnicode : host.subdomain;
  const label = host.idn ? host.labelUnicode! : host.label!;
  if (sub !== '') splitTokens(host.idn ? sub : foldAscii(sub), '.', host.idn ? label : null, labelKey, keys, hashes, separators);
  const subdomainCount = keys.length;
  // An IDN label whose dash look-alike (`microsoft–com`) folds to a hyphen splits like ASCII.
  const foldedSplit = host.idn && !label.includes('-') && labelKey.includes('-');
  splitTokens(host.idn && !foldedSplit ? label : labelKey, '', host.idn && !foldedSplit ? label : null, labelKey, keys, hashes, separators);
  return { keys, hashes, separators, subdomainCount };
}

/** `readTokenHashes`'s output (one `findLookalike` call at a time: the engine is synchronous), grown to the host's length. */
let TOKEN_HASHES = new Int32Array(64);
/** 1 where the token has more than six characters and starts with "www" (`isWwwToken`). */
let TOKEN_WWW = new Uint8Array(64);
/** How many of `TOKEN_HASHES` are the subdomain's. */
let TOKEN_SUBDOMAIN_COUNT = 0;

/**
 * Reads the `keyHash` of every token `tokensOf` cuts from the ASCII `host` (the folded
 * subdomain's, then the label key's) into `TOKEN_HASHES`, without cutting one; returns how many.
 */
function readTokenHashes(host: HostParts, labelKey: string): number {
  if (host.ascii.length >= TOKEN_HASHES.length) {
    TOKEN_HASHES = new Int32Array(host.ascii.length + 1);
    TOKEN_WWW = new Uint8Array(host.ascii.length + 1);
  }
  const count = host.subdomain === '' ? 0 : readTokenHashesOf(foldAscii(host.subdomain), 0);
  TOKEN_SUBDOMAIN_COUNT = count;
  return readTokenHashesOf(labelKey, count);
}

/** `readTokenHashes` of one text, from `count` on: split as `splitTokens` splits it. */
function readTokenHashesOf(text: string, count: number): number {
  let start = 0;
  let h = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 0x2e;
    if (c !== 0x2e && c !== 0x2d && c !== 0x5f) {
      // `keyHash` reads at most MAX_HASHED characters of a key.
      if (i - start < MAX_HASHED) h = (Math.imul(h, HASH_BASE) + c) | 0;
      continue;
    }
    if (i > start) {
      TOKEN_WWW[count] = isWwwToken(text, start, i) ? 1 : 0;
      TOKEN_HASHES[count++] = h & 0x3fffffff;
    }
    start = i + 1;
    h = 0;
  }
  return count;
}

/** One hash of two `keyHash`es in a row (a token and the next: `dottedPairs`). */
function pairHash(first: number, second: number): number {
  return (Math.imul(first, 0x9e3779b1) ^ second) & 0x3fffffff;
}

/** `host` is `domain` or ends in `.` + `domain` (told without building that string). */
function isSameOrSubdomainOf(host: string, domain: string): boolean {
  const at = host.length - domain.length;
  return at === 0 ? host === domain : at > 0 && host.charCodeAt(at - 1) === 0x2e && host.endsWith(domain);
}

/** A site under a private PSL suffix whose own label is a TLD name (`com.akadns.net`): a CDN's per-customer namespace. */
function isEdgeSuffixSite(host: HostParts): boolean {
  const suffix = host.suffix ?? '';
  const dot = suffix.lastIndexOf('.');
  const provider = suffix.slice(suffix.lastIndexOf('.', dot - 1) + 1);
  return EDGE_HOST_DOMAINS.has(suffix) || EDGE_HOST_DOMAINS.has(provider);
}

const BUILT_IN_INDEX = new LookalikeIndex(BUILT_IN_SITES.values(), BRAND_ALIASES);
BUILT_IN_INDEX.prefilterBit = BUILT_IN;
/**
 * The rest of Chromium's top-domain list, for homographs of IDN hosts only: the skeleton of each
 * whole registrable domain, built the first time an IDN host is judged.
 */
let skeletonIndex: ReadonlyMap<string, readonly ProtectedSite[]> | undefined;

function skeletonIndexOf(): ReadonlyMap<string, readonly ProtectedSite[]> {
  if (skeletonIndex !== undefined) return skeletonIndex;
  const index = new Map<string, ProtectedSite[]>();
  for (const site of skeletonOnlySites().values()) {
    const key = `${labelKeys(toUnicodeHost(site.label))[0]!}.${site.suffix}`;
    const list = index.get(key);
    if (list === undefined) index.set(key, [site]);
    else list.push(site);
  }
  return (skeletonIndex = index);
}

/**
 * A homograph of a site on the skeleton-only list: the whole registrable domain's skeleton, as
 * Chromium matches its top domains. `keys` are the label's `labelKeys` (the probe's).
 */
function skeletonOnlyHomograph(host: HostParts, keys: readonly string[]): LookalikeMatch | null {
  if (host.registrable === null || host.labelUnicode === null || !/[^\x00-\x7f]/.test(host.labelUnicode)) return null;
  const index = skeletonIndexOf();
  for (const key of keys) {
    for (const site of index.get(`${key}.${host.suffix}`) ?? NONE) {
      if (isSameOrSubdomainOf(host.ascii, site.domain)) continue;
      return { code: UrlFinding.lookalikeHomoglyph, severity: 'error', target: site.domain, how: 'looks the same as' };
    }
  }
  return null;
}
interface PolicyIndexes {
  /** The index of the policy's extra protected domains, or null. */
  readonly index: LookalikeIndex | null;
  /** The filter in front of the built-in index and `index`. */
  readonly prefilter: Prefilter;
}

const EXTRA_CACHE = new WeakMap<readonly string[], { readonly length: number; readonly value: PolicyIndexes }>();
let builtInOnly: PolicyIndexes | undefined;

function buildExtraIndex(extra: readonly string[]): PolicyIndexes {
  const sites: ProtectedSite[] = [];
  for (const host of extra) {
    const site = toProtectedSite(host, true);
    if (site !== null && !BUILT_IN_SITES.has(site.domain)) sites.push(site);
  }
  if (sites.length === 0) return indexesOf([]);
  const index = new LookalikeIndex(sites);
  index.prefilterBit = POLICY_INDEX;
  return { index, prefilter: new Prefilter([BUILT_IN_INDEX, index]) };
}

// The list asked for last, and its length then: a caller judges many hosts under one policy.
let lastList: readonly string[] | undefined;
let lastLength = -1;
let lastIndexes: PolicyIndexes | undefined;

/** The indexes of a policy's extra protected domains (built once per list, cached by its identity). */
function indexesOf(extra: readonly string[]): PolicyIndexes {
  if (extra.length === 0) return (builtInOnly ??= { index: null, prefilter: new Prefilter([BUILT_IN_INDEX]) });
  if (extra === lastList && extra.length === lastLength) return lastIndexes!;
  const indexes = cachedByList(EXTRA_CACHE, extra, buildExtraIndex);
  lastList = extra;
  lastLength = extra.length;
  lastIndexes = indexes;
  return indexes;
}

/**
 * The look-alike match of `host` against the built-in protected sites and `extra` (the
 * policy's `url.protectedDomains`); an error match wins over a warning.
 */
export function findLookalike(host: HostParts, extra: readonly string[] = []): LookalikeMatch | null {
  // A redirect target is judged where it is found and again when it is analysed: same parts, same answer.
  if (host === lastHost && extra === lastExtra && extra.length === lastExtraLength) return lastMatch;
  const found = lookalikeOf(host, extra);
  lastHost = host;
  lastExtra = extra;
  lastExtraLength = extra.length;
  lastMatch = found;
  return found;
}

let lastHost: HostParts | undefined;
let lastExtra: readonly string[] | undefined;
let lastExtraLength = -1;
let lastMatch: LookalikeMatch | null = null;

function lookalikeOf(host: HostParts, extra: readonly string[]): LookalikeMatch | null {
  const registrable = host.registrable;
  // Without a registrable domain, a label and a suffix no index and no homograph can match.
  if (registrable === null || host.label === null || host.suffix === null) return null;
  const { index: policyIndex, prefilter } = indexesOf(extra);
  const probe = PROBE.reset(host);
  // A built-in site (or its subdomain by the registrable domain) is owned by the built-in index, so
  // only the policy's can match it (its sites are never built-in ones, nor skeleton-only ones).
  // A built-in site's label key is in the built-in index, so the prefilter has its bit for the
  // label of every such host; the prefilter then asks about the policy's index alone.
  const builtInSite = !host.idn && (prefilter.labelMaskOf(probe) & BUILT_IN) !== 0 && BUILT_IN_SITES.has(registrable);
  // Most ASCII hosts match nothing: the prefilter settles them in a few reads, and tells which
  // indexes the others may match in (bit 0: the built-in one, bit 1: the policy's).
  const may = host.idn ? ALL_INDEXES : prefilter.mayMatchAscii(host, probe, builtInSite ? POLICY_INDEX : ALL_INDEXES);
  if (may === 0) return null;
  if (builtInSite) return policyIndex !== null && policyIndex.mayMatchAscii(host, probe) ? policyIndex.matchProbe(host, probe) : null;
  // Then each index's own filters tell whether it can match (else its `matchProbe` is null).
  const builtInMay = host.idn || ((may & BUILT_IN) !== 0 && BUILT_IN_INDEX.mayMatchAscii(host, probe));
  const policyMay = policyIndex !== null && (host.idn || ((may & POLICY_INDEX) !== 0 && policyIndex.mayMatchAscii(host, probe)));
  if (!builtInMay && !policyMay) return null;
  // A site of the index has its label key in the index's filter, so `policyMay` holds for it.
  if (policyMay && policyIndex.ownsSite(host, probe)) return null;
  const builtIn = builtInMay ? BUILT_IN_INDEX.matchProbe(host, probe) : null;
  if (builtIn?.severity === 'error') return ownedBySkeletonOnlySite(registrable) ? null : builtIn;
  const homograph = host.idn && !ownedBySkeletonOnlySite(registrable) ? skeletonOnlyHomograph(host, probe.keys) : null;
  if (homograph !== null) return homograph;
  const fromPolicy = policyMay ? policyIndex.matchProbe(host, probe) : null;
  const found = fromPolicy?.severity === 'error' ? fromPolicy : (builtIn ?? fromPolicy);
  // The rest of Chromium's list is asked only once something matched: most hosts match nothing.
  return found === null || ownedBySkeletonOnlySite(registrable) ? null : found;
}

/** A site on the skeleton-only part of the protected list is not a look-alike of any other. */
function ownedBySkeletonOnlySite(registrable: string | null): boolean {
  return registrable !== null && skeletonOnlySites().has(registrable);
}
