/**
 * URL engine cost against the floor any URL check pays: WHATWG `new URL()` plus `tldts.parse()`,
 * over the same real hosts (the shared legitimate corpora as `https://<host>/path?q=1#f`), in the
 * same process, alternating order. Target: `analyzeUrl` at most 4× the baseline. Reports only;
 * nothing here asserts a time.
 *
 *   npx tsx bench/url.bench.ts
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parse } from 'tldts';
import { defaultPolicy } from '../src/policy/policy.js';
import { analyzeUrl } from '../src/url/index.js';
import { isMainModule } from '../src/cli/io.js';
import { comparePair, printPairs, type PairResult } from './harness.js';
import { CORPORA_DIR, corporaAvailable, corporaMissingLine } from '../test/helpers/corpora.js';

/** `baselineUs` and `candidateUs` are medians in microseconds per URL. */
export interface BenchResult extends PairResult {
  readonly inputs: number;
  readonly files: readonly string[];
  /** The ratio the engine should stay under. */
  readonly target: number;
  readonly withinTarget: boolean;
}

const CORPORA = ['legit-domains.txt', 'legit-hosts-umbrella.txt', 'legit-idn.txt'];
const TARGET_RATIO = 4;

// The corpora live next to the repository (../shared/corpora) and are never copied into it.
function corpusUrl(name: string): URL {
  return new URL(name, pathToFileURL(CORPORA_DIR));
}

/** Hosts as the corpora list them: `#` comments skipped, first tab-separated column. */
export function loadBenchUrls(): string[] {
  const urls: string[] = [];
  for (const name of CORPORA) {
    for (const raw of readFileSync(corpusUrl(name), 'utf8').split('\n')) {
      const line = raw.trim();
      if (line === '' || line.startsWith('#')) continue;
      const host = line.split('\t')[0]!.trim();
      if (host !== '') urls.push(`https://${host}/path?q=1#f`);
    }
  }
  return urls;
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

// One benchmark operation judges one chunk, so tinybench gets hundreds of samples per round
// instead of a few whole-corpus passes; both sides walk the same chunks in the same order.
const CHUNK = 512;

function chunksOf(urls: readonly string[]): string[][] {
  const chunks: string[][] = [];
  for (let i = 0; i + CHUNK <= urls.length; i += CHUNK) chunks.push(urls.slice(i, i + CHUNK));
  return chunks;
}

export async function benchUrl(options: { rounds?: number; timeMs?: number } = {}): Promise<BenchResult> {
  const urls = loadBenchUrls();
  const chunks = chunksOf(shuffled(urls));
  const policy = defaultPolicy.base;
  // Sinks keep the work observable so no engine can skip it.
  let sink = 0;
  let baselineAt = 0;
  let candidateAt = 0;
  const baseline = (): void => {
    for (const url of chunks[baselineAt++ % chunks.length]!) {
      const parsed = new URL(url);
      sink += parse(parsed.hostname).domain?.length ?? 0;
    }
  };
  const candidate = (): void => {
    for (const url of chunks[candidateAt++ % chunks.length]!) sink += analyzeUrl(url, policy).findings.length;
  };
  const pair = await comparePair('analyzeUrl vs new URL + tldts.parse', baseline, candidate, { rounds: options.rounds ?? 3, timeMs: options.timeMs ?? 2000 });
  if (sink < 0) throw new Error('unreachable');
  return {
    name: pair.name,
    baselineUs: pair.baselineUs / CHUNK,
    candidateUs: pair.candidateUs / CHUNK,
    ratio: pair.ratio,
    inputs: urls.length,
    files: CORPORA,
    target: TARGET_RATIO,
    withinTarget: pair.ratio <= TARGET_RATIO,
  };
}

/** Whether this benchmark can run here; when not, the line that says why. */
export function urlBenchUnavailable(): string | null {
  return corporaAvailable() ? null : corporaMissingLine('the URL analysis benchmark');
}

if (isMainModule(import.meta.url) && urlBenchUnavailable() !== null) {
  console.log(urlBenchUnavailable());
} else if (isMainModule(import.meta.url)) {
  const result = await benchUrl();
  printPairs(`URL engine over ${result.inputs} URLs (${result.files.join(', ')}); µs per URL, median of rounds`, [result]);
  console.log(`ratio ${result.ratio.toFixed(2)}× (target ≤ ${result.target}×): ${result.withinTarget ? 'within target' : 'OVER TARGET'}; ${Math.round(1e6 / result.candidateUs).toLocaleString('en-US')} URLs/s`);
}
