import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/index.js';
import { analyzeUrl, type UrlAnalysis } from '../../src/url/index.js';

// The labelled development corpus (written from the threat model); the blind and real-world sets
// have their own test (blind-corpus.test.ts).
const DIR = new URL('../../fixtures/urls/', import.meta.url);

interface Row {
  readonly url: string;
  readonly expected: 'block' | 'warn' | 'allow';
  readonly category: string;
  readonly why: string;
  readonly policy?: unknown;
}

const DEVELOPMENT = ['malicious.jsonl', 'legitimate.jsonl', 'suspicious.jsonl'];

const rows: Row[] = DEVELOPMENT.flatMap((f) =>
  readFileSync(new URL(f, DIR), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Row),
);

function shown(row: Row, a: UrlAnalysis): string {
  return `[${row.category}] ${JSON.stringify(row.url).slice(0, 140)} → ${a.verdict} (${a.findings.map((f) => f.code).join(', ')})`;
}

describe('the labelled development corpus', () => {
  const judged = rows.map((row) => ({ row, a: analyzeUrl(row.url, parsePolicy(row.policy ?? {}).base) }));

  it('has the rows it promises', () => {
    expect(rows.filter((r) => r.expected === 'block').length).toBeGreaterThanOrEqual(600);
    expect(rows.filter((r) => r.expected !== 'block').length).toBeGreaterThanOrEqual(150);
  });

  it('blocks every malicious row', () => {
    const missed = judged.filter(({ row, a }) => row.expected === 'block' && a.verdict !== 'block');
    expect(missed.map(({ row, a }) => shown(row, a))).toEqual([]);
  });

  it('blocks no legitimate row, and warns on every row labelled warn', () => {
    const legitimate = judged.filter(({ row }) => row.expected !== 'block');
    const wrong = legitimate.filter(({ row, a }) => a.verdict === 'block' || (row.expected === 'warn' && a.verdict === 'allow'));
    expect(wrong.map(({ row, a }) => shown(row, a))).toEqual([]);
  });
});
