import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { auditForm } from '../../src/form/index.js';
import type { FieldClass } from '../../src/form/index.js';
import { defaultPolicy } from '../../src/policy/index.js';

interface Row {
  readonly id: string;
  readonly why: string;
  readonly lang: string;
  readonly params: unknown;
  readonly expected: { readonly verdict: 'allow' | 'warn' | 'block'; readonly fields: Readonly<Record<string, FieldClass>> };
}

const rows: Row[] = readFileSync(new URL('../../fixtures/forms/labelled.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as Row);

describe('labelled form fixtures', () => {
  it('holds at least 150 rows with unique ids across the nine languages', () => {
    expect(rows.length).toBeGreaterThanOrEqual(150);
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
    expect(new Set(rows.map((r) => r.lang))).toEqual(new Set(['en', 'zh', 'ja', 'ko', 'de', 'fr', 'es', 'pt', 'ru']));
  });

  it('has every class and every verdict in both directions', () => {
    const classes = new Set(rows.flatMap((r) => Object.values(r.expected.fields)));
    expect(classes).toEqual(new Set(['credential', 'payment', 'personal', 'ordinary']));
    expect(new Set(rows.map((r) => r.expected.verdict))).toEqual(new Set(['allow', 'warn', 'block']));
  });

  it.each(rows.map((r) => [r.id, r] as const))('%s', (_id, row) => {
    const audit = auditForm(row.params, defaultPolicy.base);
    const got = Object.fromEntries(audit.fields.map((f) => [f.name, f.class]));
    expect({ verdict: audit.verdict, fields: got }).toEqual({ verdict: row.expected.verdict, fields: row.expected.fields });
  });
});
