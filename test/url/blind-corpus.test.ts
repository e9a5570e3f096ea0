/**
 * The blind set (fixtures/urls/blind/) and the real-world set (fixtures/urls/real-world.jsonl):
 * labelled from phishing reports, OAuth provider docs and real MCP servers' URL elicitations before
 * the engine saw them (their first-run figures are in fixtures/urls/README.md), kept as a
 * regression set afterwards. Labels are never changed to match the engine.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/index.js';
import { analyzeUrl } from '../../src/url/index.js';

interface Row {
  readonly url: string;
  readonly expected: 'block' | 'warn' | 'allow';
  readonly category: string;
  readonly source: string;
  readonly policy?: unknown;
}

const FIXTURES = new URL('../../fixtures/urls/', import.meta.url);
const read = (url: URL): Row[] =>
  readFileSync(url, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Row);

const SETS: readonly (readonly [string, Row[]])[] = [
  [
    'blind',
    readdirSync(new URL('blind/', FIXTURES))
      .filter((f) => f.endsWith('.jsonl'))
      .flatMap((f) => read(new URL(`blind/${f}`, FIXTURES))),
  ],
  ['real-world', read(new URL('real-world.jsonl', FIXTURES))],
];

describe.each(SETS)('the %s URL set', (name, rows) => {
  const judged = rows.map((row) => ({ row, a: analyzeUrl(row.url, parsePolicy(row.policy ?? {}).base) }));
  const shown = ({ row, a }: (typeof judged)[number]) =>
    `[${row.category}] ${JSON.stringify(row.url).slice(0, 140)} → ${a.verdict} (${a.findings.map((f) => f.code).join(', ')})`;

  it('has a labelled source on every row', () => {
    expect(rows.length).toBeGreaterThanOrEqual(name === 'blind' ? 300 : 35);
    for (const row of rows) expect(row.source.length, row.url).toBeGreaterThan(5);
  });

  it('blocks every malicious row', () => {
    expect(judged.filter(({ row, a }) => row.expected === 'block' && a.verdict !== 'block').map(shown)).toEqual([]);
  });

  it('blocks no legitimate row and warns on every row labelled warn', () => {
    expect(
      judged
        .filter(({ row, a }) => row.expected !== 'block' && (a.verdict === 'block' || (row.expected === 'warn' && a.verdict === 'allow')))
        .map(shown),
    ).toEqual([]);
  });
});
