/**
 * URL engine cost against the floor any URL check pays: WHATWG `new URL()` plus `tldts.parse()`
 * with the private PSL section (what `analyzeUrl` must do at minimum to find the registrable
 * domain), over the same URLs, in the same process, alternating order. The URLs are the real
 * hosts of the shared legitimate corpora, each with one of a set of varied tails (paths, queries,
 * fragments, real OAuth authorization requests from `fixtures/urls/legitimate.jsonl`), so the
 * content checks see what they see in use. One row per policy size: 0, 500 and 5,000 extra
 * `url.protectedDomains`. Target: `analyzeUrl` at most 2.5× the baseline with 5,000 policy
 * domains. Three figures: tinybench's wall clock over chunks, CPU time over whole-corpus passes,
 * and CPU time with both sides interleaved per 256 URLs (the steadiest on a shared machine).
 * Reports only; nothing here asserts a time.
 *
 *   npx tsx bench/url.bench.ts
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parse } from 'tldts';
import { parsePolicy, type Policy } from '../src/policy/policy.js';
import { analyzeUrl } from '../src/url/index.js';
import { isMainModule } from '../src/cli/io.js';
import { comparePair, printPairs, type PairResult } from './harness.js';
import { CORPORA_DIR, corporaAvailable, corporaMissingLine } from '../test/helpers/corpora.js';

/** `baselineUs` and `candidateUs` are medians in microseconds per URL. */
export interface BenchResult extends PairResult {
  readonly inputs: number;
  readonly files: readonly string[];
  /** How many `url.protectedDomains` the policy of this row carries. */
  readonly policyDomains: number;
  /** The ratio the engine should stay under. */
  readonly target: number;
  readonly withinTarget: boolean;
}

const CORPORA = ['legit-domains.txt', 'legit-hosts-umbrella.txt', 'legit-idn.txt'];
const TARGET_RATIO = 2.5;
const POLICY_SIZES = [0, 500, 5000];
const BASELINE_OPTIONS = { allowPrivateDomains: true } as const;

// The corpora live next to the repository (../shared/corpora) and are never copied into it.
function corpusUrl(name: string): URL {
  return new URL(name, pathToFileURL(CORPORA_DIR));
}

/** Real OAuth authorization requests of the development corpus, as path + query tails. */
function oauthTails(): string[] {
  const text = readFileSync(new URL('../fixtures/urls/legitimate.jsonl', import.meta.url), 'utf8');
  const tails: string[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const row = JSON.parse(line) as { url: string; category: string };
    if (row.category !== 'oauth-authorize') continue;
    const u = new URL(row.url);
    tails.push(u.pathname + u.search + u.hash);
  }
  return tails;
}

// Tails as ordinary pages carry them: most have a path, many a query, some a fragment.
const TAILS = [
  '/',
  '/path?q=1#f',
  '/about',
  '/docs/getting-started#installation',
  '/search?q=model+context+protocol&page=2',
  '/login?next=%2Fdashboard',
  '/products/4711/reviews?sort=newest&utm_source=newsletter&utm_medium=email',
  '/en-us/articles/360012345678-How-do-I-reset-my-password',
  '/u/0/?tab=rm&ogbl#inbox',
  '/wiki/Main_Page',
  '/api/v2/items?limit=50&cursor=eyJpZCI6MTIzNDU2fQ',
  '/watch?v=dQw4w9WgXcQ&t=42s',
  '/blog/2025/11/release-notes/',
  '/checkout/cart?coupon=WINTER25',
  '/settings/profile#notifications',
];

/** Hosts as the corpora list them: `#` comments skipped, first tab-separated column; each gets a varied tail. */
export function loadBenchUrls(): string[] {
  const oauth = oauthTails();
  const urls: string[] = [];
  let i = 0;
  for (const name of CORPORA) {
    for (const raw of readFileSync(corpusUrl(name), 'utf8').split('\n')) {
      const line = raw.trim();
      if (line === '' || line.startsWith('#')) continue;
      const host = line.split('\t')[0]!.trim();
      if (host === '') continue;
      // One URL in eight carries a real authorization request's path and query.
      const tail = i % 8 === 7 && oauth.length > 0 ? oauth[(i >> 3) % oauth.length]! : TAILS[i % TAILS.length]!;
      urls.push(`https://${host}${tail}`);
      i++;
    }
  }
  // A guard reads URLs out of JSON.parse, as flat strings; a concatenation is a rope that every
  // character read walks. Both sides of the benchmark read the same flat strings.
  return JSON.parse(JSON.stringify(urls)) as string[];
}

// A fixed shuffle mixes the three corpora, so every chunk costs about the same and a median over
// chunks is a fair per-URL figure.
function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  let seed = 0x2545f491;
  for (let i = out.length - 1; i > 0; i--) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    const j = seed % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * `count` made-up registrable domains, brand-like (two syllable runs, a few TLDs), from a fixed
 * seed: a policy's own list of protected sites, none of them in the built-in list.
 */
export function syntheticProtectedDomains(count: number): string[] {
  const syllables = [
    'ka',
    'lo',
    'mi',
    'ner',
    'tor',
    'va',
    'zen',
    'qui',
    'bra',
    'dex',
    'flo',
    'gra',
    'hy',
    'jun',
    'pli',
    'rus',
    'sol',
    'tri',
    'ul',
    'wex',
  ];
  const tlds = ['com', 'net', 'io', 'co.uk', 'de', 'app', 'bank'];
  const out = new Set<string>();
  let seed = 0x9e3779b1;
  const next = (n: number): number => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return seed % n;
  };
  while (out.size < count) {
    let label = '';
    const parts = 2 + next(3);
    for (let p = 0; p < parts; p++) label += syllables[next(syllables.length)];
    out.add(`${label}${next(4) === 0 ? 'bank' : ''}.${tlds[next(tlds.length)]}`);
  }
  return [...out];
}

// One benchmark operation judges one chunk, so tinybench gets hundreds of samples per round
// instead of a few whole-corpus passes; both sides walk the same chunks in the same order.
const CHUNK = 512;

function chunksOf(urls: readonly string[]): string[][] {
  const chunks: string[][] = [];
  for (let i = 0; i + CHUNK <= urls.length; i += CHUNK) chunks.push(urls.slice(i, i + CHUNK));
  return chunks;
}

async function benchOne(
  chunks: readonly string[][],
  inputs: number,
  policy: Policy,
  policyDomains: number,
  options: { rounds?: number; timeMs?: number },
): Promise<BenchResult> {
  // Sinks keep the work observable so no engine can skip it.
  let sink = 0;
  let baselineAt = 0;
  let candidateAt = 0;
  const baseline = (): void => {
    for (const url of chunks[baselineAt++ % chunks.length]!) {
      const parsed = new URL(url);
      sink += parse(parsed.hostname, BASELINE_OPTIONS).domain?.length ?? 0;
    }
  };
  const candidate = (): void => {
    for (const url of chunks[candidateAt++ % chunks.length]!) sink += analyzeUrl(url, policy).findings.length;
  };
  const name = `analyzeUrl, ${policyDomains} policy domains`;
  const pair = await comparePair(name, baseline, candidate, { rounds: options.rounds ?? 3, timeMs: options.timeMs ?? 2000 });
  if (sink < 0) throw new Error('unreachable');
  return {
    name: pair.name,
    baselineUs: pair.baselineUs / CHUNK,
    candidateUs: pair.candidateUs / CHUNK,
    ratio: pair.ratio,
    inputs,
    files: CORPORA,
    policyDomains,
    target: TARGET_RATIO,
    withinTarget: pair.ratio <= TARGET_RATIO,
  };
}

/** Whether this benchmark can run here; when not, the line that says why. */
export function urlBenchUnavailable(): string | null {
  return corporaAvailable() ? null : corporaMissingLine('the URL analysis benchmark');
}

/**
 * The same ratio from CPU time (`process.cpuUsage`) over whole-corpus passes, alternating
 * baseline and candidate, median of `rounds`: on a loaded machine the wall-clock samples of the
 * longer candidate operations are preempted more often than the baseline's, which inflates the
 * wall-clock ratio; CPU time is not charged while the process waits for a core.
 */
export function cpuRatio(
  urls: readonly string[],
  policy: Policy,
  rounds = 5,
): { baselineUs: number; candidateUs: number; ratio: number; ratios: readonly number[] } {
  let sink = 0;
  const pass = (f: (url: string) => number): number => {
    const start = process.cpuUsage();
    for (const url of urls) sink += f(url);
    const used = process.cpuUsage(start);
    return (used.user + used.system) / urls.length;
  };
  const baseline = (url: string): number => parse(new URL(url).hostname, BASELINE_OPTIONS).domain?.length ?? 0;
  const candidate = (url: string): number => analyzeUrl(url, policy).findings.length;
  pass(candidate);
  const ratios: number[] = [];
  const b: number[] = [];
  const c: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const first = r % 2 === 0;
    const x = first ? pass(baseline) : pass(candidate);
    const y = first ? pass(candidate) : pass(baseline);
    const [bu, cu] = first ? [x, y] : [y, x];
    b.push(bu);
    c.push(cu);
    ratios.push(cu / bu);
  }
  if (sink < 0) throw new Error('unreachable');
  const mid = (v: number[]): number => [...v].sort((m, n) => m - n)[v.length >> 1]!;
  const sorted = [...ratios].sort((m, n) => m - n);
  return { baselineUs: mid(b), candidateUs: mid(c), ratio: mid(ratios), ratios: [sorted[0]!, mid(ratios), sorted[sorted.length - 1]!] };
}

/**
 * What the first URL judged under a new policy costs (its look-alike index and prefilter are built
 * then, once per protected-domain list): CPU milliseconds of that first call, for `rounds` fresh
 * policies of `size` domains (each a new list, so nothing is cached), sorted.
 */
export function coldStartMs(size: number, url: string, rounds = 3): number[] {
  const domains = syntheticProtectedDomains(size);
  const out: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const policy = parsePolicy({ url: { protectedDomains: [...domains] } }).base;
    const start = process.cpuUsage();
    analyzeUrl(url, policy);
    const used = process.cpuUsage(start);
    out.push((used.user + used.system) / 1000);
  }
  return out.sort((a, b) => a - b);
}

/**
 * The CPU-time ratio with both sides interleaved finely: each round walks the URLs in slices of
 * `slice`, timing the baseline and the candidate on every slice back to back (which goes first
 * alternates from slice to slice), and divides the candidate's summed CPU time by the baseline's.
 * Whole-corpus passes (`cpuRatio`) let a slow spell of the machine (another tenant, a frequency
 * change) fall on one side only; here both sides sample the same moments. Median of `rounds`.
 */
export function interleavedCpuRatio(
  urls: readonly string[],
  policy: Policy,
  rounds = 5,
  slice = 256,
): { ratio: number; ratios: readonly number[] } {
  let sink = 0;
  const time = (from: number, to: number, candidate: boolean): number => {
    const start = process.cpuUsage();
    if (candidate) for (let i = from; i < to; i++) sink += analyzeUrl(urls[i]!, policy).findings.length;
    else for (let i = from; i < to; i++) sink += parse(new URL(urls[i]!).hostname, BASELINE_OPTIONS).domain?.length ?? 0;
    const used = process.cpuUsage(start);
    return used.user + used.system;
  };
  const ratios: number[] = [];
  for (let r = -1; r < rounds; r++) {
    let base = 0;
    let cand = 0;
    for (let from = 0, k = 0; from < urls.length; from += slice, k++) {
      const to = Math.min(urls.length, from + slice);
      if (k % 2 === 0) {
        base += time(from, to, false);
        cand += time(from, to, true);
      } else {
        cand += time(from, to, true);
        base += time(from, to, false);
      }
    }
    // Round -1 warms both sides up and is not counted.
    if (r >= 0) ratios.push(cand / base);
  }
  if (sink < 0) throw new Error('unreachable');
  const sorted = [...ratios].sort((m, n) => m - n);
  return { ratio: sorted[sorted.length >> 1]!, ratios: [sorted[0]!, sorted[sorted.length >> 1]!, sorted[sorted.length - 1]!] };
}

/** One row per policy size (0, 500, 5,000 extra protected domains). */
export async function benchUrlRows(options: { rounds?: number; timeMs?: number; sizes?: readonly number[] } = {}): Promise<BenchResult[]> {
  const urls = loadBenchUrls();
  const chunks = chunksOf(shuffled(urls));
  const rows: BenchResult[] = [];
  for (const size of options.sizes ?? POLICY_SIZES) {
    const policy = parsePolicy({ url: { protectedDomains: syntheticProtectedDomains(size) } }).base;
    rows.push(await benchOne(chunks, urls.length, policy, size, options));
  }
  return rows;
}

/** The default policy's row (no extra protected domains). */
export async function benchUrl(options: { rounds?: number; timeMs?: number } = {}): Promise<BenchResult> {
  return (await benchUrlRows({ ...options, sizes: [0] }))[0]!;
}

if (isMainModule(import.meta.url) && urlBenchUnavailable() !== null) {
  console.log(urlBenchUnavailable());
} else if (isMainModule(import.meta.url)) {
  const rows = await benchUrlRows();
  printPairs(
    `URL engine over ${rows[0]!.inputs} URLs (${rows[0]!.files.join(
      ', ',
    )}, varied tails); baseline new URL() + tldts.parse(private suffixes); µs per URL, median of rounds`,
    rows,
  );
  for (const r of rows)
    console.log(
      `${r.policyDomains} policy domains: ratio ${r.ratio.toFixed(2)}× (target ≤ ${r.target}×): ${
        r.withinTarget ? 'within target' : 'OVER TARGET'
      }; ${Math.round(1e6 / r.candidateUs).toLocaleString('en-US')} URLs/s`,
    );
  // The same fixed shuffle as the chunks above: in corpus order, hosts under one suffix come in a
  // row, which keeps the look-alike tables of that suffix warm (about 5 % of the ratio measured).
  const urls = shuffled(loadBenchUrls());
  for (const size of POLICY_SIZES) {
    const policy = parsePolicy({ url: { protectedDomains: syntheticProtectedDomains(size) } }).base;
    const cpu = cpuRatio(urls, policy);
    console.log(
      `${size} policy domains, CPU time: baseline ${cpu.baselineUs.toFixed(2)} µs, analyzeUrl ${cpu.candidateUs.toFixed(2)} ` +
        `µs per URL: ratio ${cpu.ratio.toFixed(2)}× (min / median / max of rounds ${cpu.ratios.map((r) => r.toFixed(2)).join(' / ')}×)`,
    );
    const fine = interleavedCpuRatio(urls, policy);
    console.log(
      `${size} policy domains, CPU time interleaved per 256 URLs: ratio ${fine.ratio.toFixed(2)}× ` +
        `(min / median / max of rounds ${fine.ratios.map((r) => r.toFixed(2)).join(' / ')}×)`,
    );
  }
  for (const size of POLICY_SIZES.filter((n) => n > 0)) {
    const cold = coldStartMs(size, urls[0]!);
    console.log(
      `${size} policy domains, first call under a new policy (its index is built then): ` +
        `${cold.map((ms) => ms.toFixed(1)).join(' / ')} ms CPU (min / median / max of ${cold.length} fresh policies)`,
    );
  }
}
