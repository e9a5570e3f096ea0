import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../src/policy/index.js';
import { analyzeUrl, judgeLabel } from '../../src/url/index.js';
import { CORPORA_DIR, CORPORA_REQUIRED, corporaAvailable, corporaMissingLine } from '../helpers/corpora.js';

// Real legitimate host names (shared with the other measurements; never copied into the repo).
const CORPORA = pathToFileURL(CORPORA_DIR);
const available = corporaAvailable();
if (!available) console.warn(corporaMissingLine('the false-rejection measurements of test/url/corpora.test.ts'));
const MAX_BLOCKED_RATE = 0.001;
const policy = defaultPolicy.base;

function lines(file: string): string[] {
  return readFileSync(new URL(file, CORPORA), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}

interface Measure {
  readonly total: number;
  readonly blocked: readonly string[];
  readonly warned: number;
}

function measure(urls: readonly string[]): Measure {
  const blocked: string[] = [];
  let warned = 0;
  for (const url of urls) {
    const a = analyzeUrl(url, policy);
    if (a.verdict === 'block')
      blocked.push(
        `${url}  ${a.findings
          .filter((f) => f.severity === 'error')
          .map((f) => f.code)
          .join(',')}`,
      );
    else if (a.verdict === 'warn') warned++;
  }
  return { total: urls.length, blocked, warned };
}

function report(name: string, m: Measure): void {
  console.log(
    `${name}: ${m.total} URLs, ${m.blocked.length} blocked (${((100 * m.blocked.length) / m.total).toFixed(3)} %), ${m.warned} warned`,
  );
}

describe.runIf(!available && CORPORA_REQUIRED)('the shared corpora under CI=true', () => {
  it('are present', () => {
    expect.fail(corporaMissingLine('the false-rejection measurements'));
  });
});

describe.runIf(available)('false rejection on the shared legitimate corpora (https://<host>/, default policy)', () => {
  it.each(['legit-domains.txt', 'legit-hosts-umbrella.txt'])('%s: under 0.1 % blocked', (file) => {
    const hosts = lines(file);
    expect(hosts.length).toBeGreaterThan(9000);
    const m = measure(hosts.map((h) => `https://${h}/`));
    report(file, m);
    expect(m.blocked.length / m.total, `blocked:\n${m.blocked.join('\n')}`).toBeLessThan(MAX_BLOCKED_RATE);
  });

  describe('legit-idn.txt, by the kind column of legit-idn.tsv', () => {
    // Suite bodies are collected even when skipped: read nothing unless the corpora are there.
    const kinds = new Map(
      (available ? lines('legit-idn.tsv') : [])
        .slice(1)
        .map((row) => row.split('\t'))
        .map(([unicode, , kind]) => [unicode!, kind!] as const),
    );
    const hosts = available ? lines('legit-idn.txt') : [];

    it('knows the kind of every row', () => {
      expect(hosts.length).toBe(525);
      for (const h of hosts) expect(kinds.has(h), h).toBe(true);
    });

    it('observed and curated sites, as URLs: under 0.1 % blocked', () => {
      const sites = hosts.filter((h) => !kinds.get(h)!.startsWith('psl-'));
      const m = measure(sites.map((h) => `https://${h}/`));
      report('legit-idn sites', m);
      expect(m.blocked.length / m.total, `blocked:\n${m.blocked.join('\n')}`).toBeLessThan(MAX_BLOCKED_RATE);
    });

    it('public-suffix rows, judged as the suffix of a site (https://example.<suffix>/): under 0.1 % blocked', () => {
      // A PSL suffix has no registrable domain of its own, so the URL of the bare suffix is blocked
      // by design; what matters is that sites under it are not.
      const suffixes = hosts.filter((h) => kinds.get(h)!.startsWith('psl-'));
      const m = measure(suffixes.map((h) => `https://example.${h}/`));
      report('legit-idn suffixes', m);
      expect(m.blocked.length / m.total, `blocked:\n${m.blocked.join('\n')}`).toBeLessThan(MAX_BLOCKED_RATE);
      const unsafeLabels = suffixes.filter((h) => {
        const labels = h.split('.');
        return labels.some((l) => judgeLabel(l, labels[labels.length - 1]!) !== null);
      });
      console.log(`legit-idn suffixes: ${unsafeLabels.length} of ${suffixes.length} with a label shown in Punycode`);
      expect(unsafeLabels.length / suffixes.length).toBeLessThan(0.01);
    });
  });
});
