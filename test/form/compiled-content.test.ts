/**
 * The compiled answer check (the schema read once, what the guard uses for a form it presented)
 * against `checkContent` (the schema read on every answer): the same result, findings in the same
 * order, for every form of the fixture sets and random answers to it (values of every shape, the
 * schema's own options, secret-shaped strings, missing and unknown fields), bare schemas and
 * `elicitation/create` params alike, and for schemas that are not allowed form schemas.
 */
import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkContent, compileContentCheck } from '../../src/form/index.js';

const dir = new URL('../../fixtures/forms/', import.meta.url);
const forms: { id: string; params: Record<string, unknown> }[] = readdirSync(dir)
  .filter((name) => name.endsWith('.jsonl'))
  .flatMap((name) =>
    readFileSync(new URL(name, dir), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as { id: string; params: Record<string, unknown> }),
  );

function propertiesOf(params: Record<string, unknown>): Record<string, Record<string, unknown>> {
  const schema = params['requestedSchema'] as { properties?: unknown } | undefined;
  const properties = schema?.properties;
  return typeof properties === 'object' && properties !== null ? (properties as Record<string, Record<string, unknown>>) : {};
}

/** Strings from the schema itself: its enum and oneOf/anyOf options (answers that fit a select). */
function optionsOf(field: Record<string, unknown>): string[] {
  const out: string[] = [];
  const add = (v: unknown) => {
    if (typeof v === 'string') out.push(v);
  };
  for (const key of ['enum', 'oneOf', 'anyOf'] as const) {
    const list = field[key];
    if (Array.isArray(list))
      for (const item of list) add(typeof item === 'object' && item !== null ? (item as { const?: unknown }).const : item);
  }
  const items = field['items'] as Record<string, unknown> | undefined;
  if (items !== undefined && typeof items === 'object') out.push(...optionsOf(items));
  return out;
}

const secretish = fc.constantFrom(
  `ghp_${'a1B2c3D4e5'.repeat(3)}abcdef`,
  'AKIAIOSFODNN7EXAMPLE',
  'postgres://admin:hunter2-secret@db.internal:5432/app',
  'abandon ability able about above absent absorb abstract absurd abuse access accident',
  '4111 1111 1111 1111',
  'q8Zr2Lx9Vw4Tn7Yb1Kc6Hm3Pd5Sf0Ga',
);

function answerFor(params: Record<string, unknown>): fc.Arbitrary<unknown> {
  const properties = propertiesOf(params);
  const names = Object.keys(properties);
  const value = (name: string): fc.Arbitrary<unknown> => {
    const options = optionsOf(properties[name] ?? {});
    const picks: fc.Arbitrary<unknown>[] = [
      fc.string({ maxLength: 40 }),
      fc.emailAddress(),
      fc.webUrl(),
      fc.date({ noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
      fc.integer({ min: -5, max: 500 }),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      secretish,
      fc.array(fc.oneof(fc.string({ maxLength: 8 }), secretish, fc.integer()), { maxLength: 4 }),
      fc.anything({ maxDepth: 2 }),
    ];
    if (options.length > 0) {
      picks.push(fc.constantFrom(...options), fc.subarray(options), fc.array(fc.constantFrom(...options), { maxLength: 4 }));
    }
    return fc.oneof(...picks);
  };
  const known = names.length === 0 ? fc.constant({}) : fc.record(Object.fromEntries(names.map((n) => [n, value(n)])), { requiredKeys: [] });
  const extra = fc.dictionary(fc.string({ maxLength: 10 }), fc.oneof(fc.string({ maxLength: 10 }), secretish, fc.integer()), {
    maxKeys: 2,
  });
  return fc.oneof(
    { weight: 8, arbitrary: fc.tuple(known, extra).map(([a, b]) => ({ ...b, ...a })) },
    { weight: 1, arbitrary: fc.anything({ maxDepth: 2 }) },
  );
}

describe('compileContentCheck agrees with checkContent', () => {
  it('covers the fixture sets', () => {
    expect(forms.length).toBeGreaterThan(300);
  });

  it('on every fixture form, with random answers, bare schema and params alike', () => {
    for (const form of forms) {
      const bare = compileContentCheck(form.params['requestedSchema']);
      const wrapped = compileContentCheck(form.params);
      fc.assert(
        fc.property(answerFor(form.params), (answer) => {
          const reference = checkContent(answer, form.params['requestedSchema']);
          expect(bare(answer)).toEqual(reference);
          expect(wrapped(answer)).toEqual(checkContent(answer, form.params));
        }),
        { numRuns: 40, seed: 17 },
      );
    }
    // About 1,150 forms × 40 answers: a second or two alone, several seconds on a busy machine.
  }, 60_000);

  it('on schemas that are not allowed form schemas, and on no schema at all', () => {
    const schemas: unknown[] = [
      undefined,
      null,
      'object',
      [],
      { type: 'object' },
      { type: 'object', properties: { a: { type: 'object' } }, required: ['a', 'b'] },
      { type: 'object', properties: { a: { type: 'string', pattern: '^x' } }, required: 'a' },
      { type: 'array', items: { type: 'string' } },
      { type: 'object', properties: { n: { type: 'number', minimum: 'zero' } } },
    ];
    for (const schema of schemas) {
      const check = compileContentCheck(schema);
      fc.assert(
        fc.property(
          fc.oneof(fc.anything({ maxDepth: 2 }), fc.record({ a: fc.anything(), n: fc.double() }, { requiredKeys: [] })),
          (answer) => {
            expect(check(answer)).toEqual(checkContent(answer, schema));
          },
        ),
        { numRuns: 200, seed: 17 },
      );
    }
  });

  it('finds what it must: a missing required field, a wrong type, a secret, an unknown key', () => {
    const schema = {
      type: 'object',
      properties: { project: { type: 'string', maxLength: 40 }, replicas: { type: 'integer', minimum: 1, maximum: 5 } },
      required: ['project'],
    };
    const check = compileContentCheck(schema);
    expect(check({ project: 'bench', replicas: 2 })).toEqual({ ok: true, findings: [] });
    const codes = (answer: unknown) => check(answer).findings.map((f) => [f.code, f.field]);
    expect(codes({ replicas: 2 })).toEqual([['E_CONTENT_INVALID', 'project']]);
    expect(codes({ project: 'x', replicas: 2.5 })).toEqual([['E_CONTENT_INVALID', 'replicas']]);
    expect(codes({ project: 'AKIAIOSFODNN7EXAMPLE' })).toEqual([['E_SECRET_IN_CONTENT', 'project']]);
    expect(codes({ project: 'x', other: 1 })).toEqual([['E_CONTENT_INVALID', 'other']]);
    expect(check('no').ok).toBe(false);
  });
});
