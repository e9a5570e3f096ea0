import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isMiss } from '../../src/cli/eval.js';
import { auditForm, type FieldClass } from '../../src/form/index.js';
import { defaultPolicy } from '../../src/policy/index.js';

interface Row {
  readonly id: string;
  readonly category: string;
  readonly lang: string;
  readonly source: string;
  readonly params: unknown;
  readonly expected: { readonly verdict: 'allow' | 'warn' | 'block'; readonly fields: Readonly<Record<string, FieldClass>> };
}

const load = (name: string): Row[] =>
  readFileSync(new URL(`../../fixtures/forms/${name}`, import.meta.url), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Row);

const blind = load('blind.jsonl');
const realWorld = load('real-world.jsonl');
const holdout = load('holdout.jsonl');
const holdout2 = load('holdout-2.jsonl');
const holdout3 = load('holdout-3.jsonl');

/**
 * Holdout rows the classifier still misses, with why: each stays listed until a rule fixes it (the
 * test below fails when one starts passing, so the list cannot go stale).
 * - `ho-cred-12`: "Deploy key (private)": the qualifier in brackets is not read into the compound.
 * - `ho-cred-25`: Dutch "Pincode" (a PIN) against the development set's decision that one-word
 *   `pincode` is the Indian postal code.
 */
const HOLDOUT_KNOWN_MISSES: ReadonlySet<string> = new Set(['ho-cred-12', 'ho-cred-25']);
const SENSITIVE: ReadonlySet<FieldClass> = new Set(['credential', 'payment']);

// The blind set was labelled before the classifier was rebuilt; it stays here as a regression set.
describe.each([
  ['blind.jsonl', blind, 300],
  ['real-world.jsonl', realWorld, 40],
  ['holdout.jsonl', holdout.filter((r) => !HOLDOUT_KNOWN_MISSES.has(r.id)), 70],
  ['holdout-2.jsonl', holdout2, 50],
  ['holdout-3.jsonl', holdout3, 40],
] as const)('%s', (_name, rows, minimum) => {
  it(`holds at least ${minimum} labelled rows, each with an id and a source`, () => {
    expect(rows.length).toBeGreaterThanOrEqual(minimum);
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
    for (const r of rows) expect(r.source.length, r.id).toBeGreaterThan(5);
  });

  it.each(rows.map((r) => [r.id, r] as const))('%s', (_id, row) => {
    const audit = auditForm(row.params, defaultPolicy.base);
    // The rule `eval` reports by: a block is a block, a warn is a warn, an allow may warn.
    expect(isMiss(row.expected.verdict, audit.verdict), `expected ${row.expected.verdict}, got ${audit.verdict}`).toBe(false);
    // A field labelled credential or payment is reported as one of the two (the verdict blocks either way).
    const got = new Map(audit.fields.map((f) => [f.name, f.class]));
    for (const [field, cls] of Object.entries(row.expected.fields)) {
      if (SENSITIVE.has(cls)) expect(SENSITIVE.has(got.get(field) ?? 'ordinary'), `${field}`).toBe(true);
      else expect(SENSITIVE.has(got.get(field) ?? 'ordinary'), `${field}`).toBe(false);
    }
  });
});

describe('the blind set covers what issue 12 lists', () => {
  it('has at least 25 languages and every evasion category', () => {
    expect(new Set(blind.map((r) => r.lang)).size).toBeGreaterThanOrEqual(25);
    for (const category of [
      'head-modifier',
      'negation',
      'neutral-label',
      'evasion',
      'numeric',
      'defaults',
      'security-question',
      'seed-phrase',
      'choice-run',
      'payment',
      'personal',
      'everywhere',
    ]) {
      expect(
        blind.some((r) => r.category === category),
        category,
      ).toBe(true);
    }
  });
});

describe('real servers', () => {
  it("passes the reference server's own form (a negated PIN mention is not a PIN request)", () => {
    const row = realWorld.find((r) => r.id === 'rw-everything-trigger-elicitation')!;
    const audit = auditForm(row.params, defaultPolicy.base);
    expect(audit.verdict).toBe('warn');
    expect(audit.fields.find((f) => f.name === 'integer')?.class).toBe('ordinary');
  });

  it('warns, never blocks, on an optional format:uri field whose default is not a URI', () => {
    for (const id of ['rw-pydantic-optional-url', 'rw-pydantic-optional-url-relative']) {
      const audit = auditForm(realWorld.find((r) => r.id === id)!.params, defaultPolicy.base);
      expect(audit.verdict).toBe('warn');
      expect(audit.findings.map((f) => f.code)).toContain('W_SCHEMA_DEFAULT');
    }
  });
});

describe('holdout rows still missed', () => {
  it.each([...HOLDOUT_KNOWN_MISSES])('%s is still a miss (remove it from the list once a rule fixes it)', (id) => {
    const row = holdout.find((r) => r.id === id)!;
    expect(isMiss(row.expected.verdict, auditForm(row.params, defaultPolicy.base).verdict)).toBe(true);
  });
});
