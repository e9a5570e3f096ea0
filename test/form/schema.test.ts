import { describe, expect, it } from 'vitest';
import { auditForm, PATTERN_INFO } from '../../src/form/index.js';
import { defaultPolicy } from '../../src/policy/index.js';

const policy = defaultPolicy.base;

function schemaOf(properties: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: 'object', properties, ...extra };
}

function audit(properties: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return auditForm({ message: 'Fill in the form', requestedSchema: schemaOf(properties, extra) }, policy);
}

const schemaErrors = (a: ReturnType<typeof audit>) => a.findings.filter((f) => f.code === 'E_SCHEMA_NOT_ALLOWED');

describe('schema allowlist: every shape spec 2025-11-25 allows passes', () => {
  const allowed: Record<string, unknown> = {
    'plain string': { type: 'string' },
    'string with every keyword': {
      type: 'string',
      title: 'Summary',
      description: 'One line',
      minLength: 1,
      maxLength: 80,
      default: 'hello',
    },
    'email format': { type: 'string', format: 'email', default: 'a@example.com' },
    'uri format': { type: 'string', format: 'uri' },
    'date format': { type: 'string', format: 'date', default: '2024-02-29' },
    'date-time format': { type: 'string', format: 'date-time', default: '2024-02-29T12:00:00Z' },
    number: { type: 'number', title: 'Ratio', description: 'd', minimum: 0, maximum: 1, default: 0.5 },
    integer: { type: 'integer', minimum: 1, maximum: 10, default: 3 },
    boolean: { type: 'boolean', title: 'Agree', description: 'd', default: false },
    'untitled single-select': { type: 'string', title: 'Size', description: 'd', enum: ['s', 'm', 'l'], default: 'm' },
    'titled single-select': {
      type: 'string',
      title: 'Size',
      oneOf: [
        { const: 's', title: 'Small' },
        { const: 'l', title: 'Large' },
      ],
      default: 'l',
    },
    'legacy enumNames': { type: 'string', enum: ['s', 'l'], enumNames: ['Small', 'Large'], default: 's' },
    'untitled multi-select': {
      type: 'array',
      title: 'Tags',
      description: 'd',
      items: { type: 'string', enum: ['a', 'b', 'c'] },
      minItems: 1,
      maxItems: 2,
      default: ['a'],
    },
    'titled multi-select': {
      type: 'array',
      items: {
        anyOf: [
          { const: 'a', title: 'A' },
          { const: 'b', title: 'B' },
        ],
      },
      default: ['b'],
    },
  };

  it.each(Object.entries(allowed))('%s', (_label, property) => {
    const result = audit({ choice: property }, { required: ['choice'], $schema: 'https://json-schema.org/draft/2020-12/schema' });
    // Only the email field says anything at all: an email address is personal data (a warning).
    const expected = (property as { format?: string }).format === 'email' ? ['W_PERSONAL_FIELD'] : [];
    expect(result.findings.map((f) => f.code)).toEqual(expected);
    expect(result.verdict).toBe(expected.length === 0 ? 'allow' : 'warn');
  });

  it('accepts a form with no fields (a plain confirmation)', () => {
    expect(audit({}).verdict).toBe('allow');
  });

  it('tolerates the non-standard pattern keyword with an info finding only', () => {
    const result = audit({ handle: { type: 'string', pattern: '^[a-z]+$' } });
    expect(result.verdict).toBe('allow');
    expect(result.findings).toEqual([expect.objectContaining({ code: PATTERN_INFO, severity: 'info', field: 'handle' })]);
  });
});

describe('schema allowlist: each disallowed shape blocks with a field-level reason', () => {
  const disallowed: [label: string, property: unknown, keyword: string][] = [
    ['nested object', { type: 'object', properties: { a: { type: 'string' } } }, 'type'],
    ['properties on a string', { type: 'string', properties: {} }, 'properties'],
    ['array of objects', { type: 'array', items: { type: 'object', properties: {} } }, 'items'],
    ['array without items', { type: 'array' }, 'items'],
    ['array of free strings', { type: 'array', items: { type: 'string' } }, 'items.enum'],
    ['$ref', { $ref: '#/$defs/x' }, '$ref'],
    ['allOf', { allOf: [{ type: 'string' }] }, 'allOf'],
    ['anyOf on a string', { type: 'string', anyOf: [{ const: 'a' }] }, 'anyOf'],
    ['unknown keyword', { type: 'string', 'x-widget': 'textarea' }, 'x-widget'],
    ['format password', { type: 'string', format: 'password' }, 'format'],
    ['format hostname', { type: 'string', format: 'hostname' }, 'format'],
    ['writeOnly', { type: 'string', writeOnly: true }, 'writeOnly'],
    ['readOnly', { type: 'string', readOnly: true }, 'readOnly'],
    ['const', { type: 'string', const: 'x' }, 'const'],
    ['missing type', { title: 'Note' }, 'type'],
    ['type list', { type: ['string', 'null'] }, 'type'],
    ['type null', { type: 'null' }, 'type'],
    ['title not a string', { type: 'string', title: 5 }, 'title'],
    ['description not a string', { type: 'string', description: ['x'] }, 'description'],
    ['minLength as a string', { type: 'string', minLength: '5' }, 'minLength'],
    ['negative maxLength', { type: 'string', maxLength: -1 }, 'maxLength'],
    ['fractional minLength', { type: 'string', minLength: 1.5 }, 'minLength'],
    ['minLength above maxLength', { type: 'string', minLength: 5, maxLength: 2 }, 'minLength'],
    ['minimum above maximum', { type: 'integer', minimum: 10, maximum: 5 }, 'minimum'],
    ['minimum as a string', { type: 'number', minimum: '0' }, 'minimum'],
    ['minItems above maxItems', { type: 'array', items: { type: 'string', enum: ['a'] }, minItems: 2, maxItems: 1 }, 'minItems'],
    ['string default on a number', { type: 'number', default: '5' }, 'default'],
    ['number default on a string', { type: 'string', default: 5 }, 'default'],
    ['string default on a boolean', { type: 'boolean', default: 'true' }, 'default'],
    ['fractional default on an integer', { type: 'integer', default: 1.5 }, 'default'],
    ['default above maximum', { type: 'integer', maximum: 3, default: 4 }, 'default'],
    ['default longer than maxLength', { type: 'string', maxLength: 2, default: 'abc' }, 'default'],
    ['default not an email', { type: 'string', format: 'email', default: 'nope' }, 'default'],
    ['default outside the enum', { type: 'string', enum: ['a', 'b'], default: 'c' }, 'default'],
    ['default outside titled options', { type: 'string', oneOf: [{ const: 'a', title: 'A' }], default: 'b' }, 'default'],
    ['multi default outside options', { type: 'array', items: { type: 'string', enum: ['a'] }, default: ['z'] }, 'default'],
    ['multi default not an array', { type: 'array', items: { type: 'string', enum: ['a'] }, default: 'a' }, 'default'],
    ['empty enum', { type: 'string', enum: [] }, 'enum'],
    ['enum of numbers', { type: 'string', enum: [1, 2] }, 'enum'],
    ['enum with duplicates', { type: 'string', enum: ['a', 'a'] }, 'enum'],
    ['enumNames length mismatch', { type: 'string', enum: ['a', 'b'], enumNames: ['A'] }, 'enumNames'],
    ['oneOf option without title', { type: 'string', oneOf: [{ const: 'a' }] }, 'oneOf'],
    ['oneOf option with an extra key', { type: 'string', oneOf: [{ const: 'a', title: 'A', description: 'x' }] }, 'oneOf'],
    ['oneOf next to enum', { type: 'string', oneOf: [{ const: 'a', title: 'A' }], enum: ['a'] }, 'enum'],
    ['minLength on an enum', { type: 'string', enum: ['a'], minLength: 1 }, 'minLength'],
    ['format on a number', { type: 'number', format: 'int32' }, 'format'],
    ['extra key next to items.anyOf', { type: 'array', items: { anyOf: [{ const: 'a', title: 'A' }], type: 'string' } }, 'items.type'],
    ['pattern not a string', { type: 'string', pattern: 5 }, 'pattern'],
    ['property not an object', 'string', ''],
  ];

  it.each(disallowed)('%s', (_label, property, keyword) => {
    const result = audit({ the_field: property });
    expect(result.verdict).toBe('block');
    const errors = schemaErrors(result);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((f) => f.field === 'the_field' && f.severity === 'error')).toBe(true);
    expect(errors.some((f) => f.message.includes('"the_field"') && (keyword === '' || f.message.includes(`"${keyword}"`)))).toBe(true);
  });

  it.each([
    ['additionalProperties', { additionalProperties: false }],
    ['a non-string top-level title', { title: 7 }],
    ['a non-string $schema', { $schema: 7 }],
  ])('blocks %s at the top level', (_label, extra) => {
    const result = audit({ a: { type: 'string' } }, extra);
    expect(result.verdict).toBe('block');
    expect(schemaErrors(result).length).toBeGreaterThan(0);
  });

  it('allows a top-level title and description (pydantic and zod emit them; they only annotate the form)', () => {
    const result = audit({ a: { type: 'string' } }, { title: 'Deploy settings', description: 'Where to deploy' });
    expect(result.verdict).toBe('allow');
  });

  it('blocks a schema whose type is not object, or whose properties are missing or an array', () => {
    for (const schema of [{ type: 'array', properties: {} }, { type: 'object' }, { type: 'object', properties: [] }, 'string', null]) {
      const result = auditForm({ message: 'm', requestedSchema: schema }, policy);
      expect(result.verdict).toBe('block');
      expect(schemaErrors(result).length).toBeGreaterThan(0);
    }
  });

  it('blocks required naming a missing field, a duplicate, or a non-string', () => {
    const missing = audit({ a: { type: 'string' } }, { required: ['a', 'b'] });
    expect(schemaErrors(missing)).toEqual([expect.objectContaining({ field: 'b' })]);
    expect(schemaErrors(audit({ a: { type: 'string' } }, { required: ['a', 'a'] }))).toEqual([expect.objectContaining({ field: 'a' })]);
    expect(audit({ a: { type: 'string' } }, { required: [1] }).verdict).toBe('block');
    expect(audit({ a: { type: 'string' } }, { required: 'a' }).verdict).toBe('block');
  });

  it('reports every bad keyword of a field, not only the first', () => {
    const result = audit({ x: { type: 'string', writeOnly: true, 'x-a': 1, minLength: 'no' } });
    const keywords = schemaErrors(result).map((f) => f.message);
    expect(keywords.some((m) => m.includes('"writeOnly"'))).toBe(true);
    expect(keywords.some((m) => m.includes('"x-a"'))).toBe(true);
    expect(keywords.some((m) => m.includes('"minLength"'))).toBe(true);
  });

  it('never quotes a default value in a finding', () => {
    const secret = 'sk_live_' + 'Q'.repeat(30);
    const result = audit({ note: { type: 'integer', default: secret } });
    expect(result.verdict).toBe('block');
    expect(JSON.stringify(result)).not.toContain(secret);
  });
});

describe('a hostile schema size', () => {
  it('refuses more than MAX_FIELDS properties and reads only that many', async () => {
    const { auditForm } = await import('../../src/form/index.js');
    const { MAX_FIELDS } = await import('../../src/form/schema.js');
    const { defaultPolicy } = await import('../../src/policy/index.js');
    const properties = Object.fromEntries(Array.from({ length: MAX_FIELDS + 10 }, (_, i) => [`f${i}`, { type: 'string' }]));
    const audit = auditForm({ message: 'm', requestedSchema: { type: 'object', properties } }, defaultPolicy.base);
    expect(audit.verdict).toBe('block');
    expect(audit.fields).toHaveLength(MAX_FIELDS);
    expect(audit.findings.some((f) => f.code === 'E_SCHEMA_NOT_ALLOWED' && /more than/.test(f.message))).toBe(true);
  });
});
