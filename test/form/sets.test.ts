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
const holdout4 = load('holdout-4.jsonl');
const SENSITIVE: ReadonlySet<FieldClass> = new Set(['credential', 'payment']);

// The blind set was labelled before the classifier was rebuilt; it stays here as a regression set.
describe.each([
  ['blind.jsonl', blind, 300],
  ['real-world.jsonl', realWorld, 40],
  ['holdout.jsonl', holdout, 70],
  ['holdout-2.jsonl', holdout2, 50],
  ['holdout-3.jsonl', holdout3, 40],
  ['holdout-4.jsonl', holdout4, 80],
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

describe('the two misses the first holdout left', () => {
  const audit = (id: string) => auditForm(holdout.find((r) => r.id === id)!.params, defaultPolicy.base);

  it('"Deploy key (private)" blocks: the bracketed qualifier makes the key a private key', () => {
    const result = audit('ho-cred-12');
    expect(result.verdict).toBe('block');
    expect(result.fields.find((f) => f.name === 'deploy_key')?.class).toBe('credential');
  });

  it('Dutch "Pincode" at a log-in blocks, while the development set\'s delivery-check pincode stays a postal code', () => {
    const result = audit('ho-cred-25');
    expect(result.verdict).toBe('block');
    expect(result.fields.find((f) => f.name === 'pincode')?.class).toBe('credential');
    const postal = load('labelled.jsonl').find((r) => r.id === 'en-pincode-delivery')!;
    const delivery = auditForm(postal.params, defaultPolicy.base);
    expect(delivery.verdict).toBe('warn');
    expect(delivery.fields.find((f) => f.name === 'pincode')?.class).toBe('personal');
  });
});

describe('holdout-4 covers what the two misses revealed', () => {
  it('has key phrasings, PIN and postal-code words and their ordinary neighbours, in several languages', () => {
    for (const category of ['key-private', 'key-neighbour', 'pin', 'postal', 'pin-neighbour'])
      expect(holdout4.filter((r) => r.category === category).length, category).toBeGreaterThanOrEqual(5);
    expect(new Set(holdout4.map((r) => r.lang)).size).toBeGreaterThanOrEqual(10);
  });
});
