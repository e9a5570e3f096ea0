import { describe, expect, it } from 'vitest';
import { checkContent } from '../../src/form/index.js';

const schema = {
  type: 'object',
  properties: {
    title: { type: 'string', minLength: 2, maxLength: 5 },
    email: { type: 'string', format: 'email' },
    site: { type: 'string', format: 'uri' },
    day: { type: 'string', format: 'date' },
    at: { type: 'string', format: 'date-time' },
    count: { type: 'integer', minimum: 1, maximum: 3 },
    ratio: { type: 'number', minimum: 0, maximum: 1 },
    agree: { type: 'boolean' },
    size: { type: 'string', enum: ['s', 'm'] },
    tier: {
      type: 'string',
      oneOf: [
        { const: 'free', title: 'Free' },
        { const: 'pro', title: 'Pro' },
      ],
    },
    legacy: { type: 'string', enum: ['a', 'b'], enumNames: ['A', 'B'] },
    tags: { type: 'array', items: { type: 'string', enum: ['x', 'y', 'z'] }, minItems: 1, maxItems: 2 },
    parts: {
      type: 'array',
      items: {
        anyOf: [
          { const: 'p', title: 'P' },
          { const: 'q', title: 'Q' },
        ],
      },
    },
  },
  required: ['title', 'agree'],
};

const valid = {
  title: 'héllo',
  email: 'ada@example.com',
  site: 'https://example.com/a?b=c',
  day: '2024-02-29',
  at: '2024-02-29T23:59:59.5+01:00',
  count: 3,
  ratio: 0.25,
  agree: true,
  size: 'm',
  tier: 'pro',
  legacy: 'b',
  tags: ['x', 'z'],
  parts: ['q'],
};

const problems = (content: unknown) => checkContent(content, schema).findings.map((f) => [f.code, f.field ?? null]);

describe('checkContent', () => {
  it('accepts an answer that fits every shape', () => {
    expect(checkContent(valid, schema)).toEqual({ ok: true, findings: [] });
    expect(checkContent({ title: 'ab', agree: false }, schema).ok).toBe(true);
  });

  it('accepts the schema inside elicitation/create params too', () => {
    expect(checkContent(valid, { message: 'm', requestedSchema: schema }).ok).toBe(true);
  });

  it.each([
    ['missing required field', { title: 'ab' }, 'agree'],
    ['unknown key', { ...valid, extra: 'x' }, 'extra'],
    ['string too short', { ...valid, title: 'a' }, 'title'],
    ['string too long (code points)', { ...valid, title: '😀😀😀😀😀😀' }, 'title'],
    ['not a string', { ...valid, title: 12 }, 'title'],
    ['null value', { ...valid, title: null }, 'title'],
    ['bad email', { ...valid, email: 'ada@' }, 'email'],
    ['relative uri', { ...valid, site: '/relative/path' }, 'site'],
    ['uri with a space', { ...valid, site: 'https://exa mple.com' }, 'site'],
    ['impossible date', { ...valid, day: '2023-02-29' }, 'day'],
    ['date with time', { ...valid, day: '2024-01-01T00:00:00Z' }, 'day'],
    ['date-time without zone', { ...valid, at: '2024-01-01T10:00:00' }, 'at'],
    ['date-time with a space', { ...valid, at: '2024-01-01 10:00:00Z' }, 'at'],
    ['date-time hour 24', { ...valid, at: '2024-01-01T24:00:00Z' }, 'at'],
    ['integer with a fraction', { ...valid, count: 1.5 }, 'count'],
    ['integer below minimum', { ...valid, count: 0 }, 'count'],
    ['number above maximum', { ...valid, ratio: 1.5 }, 'ratio'],
    ['number as a string', { ...valid, ratio: '0.5' }, 'ratio'],
    ['boolean as a string', { ...valid, agree: 'true' }, 'agree'],
    ['value outside the enum', { ...valid, size: 'xl' }, 'size'],
    ['value outside titled options (a title is not a value)', { ...valid, tier: 'Pro' }, 'tier'],
    ['value outside legacy enum (an enumName is not a value)', { ...valid, legacy: 'A' }, 'legacy'],
    ['multi-select not an array', { ...valid, tags: 'x' }, 'tags'],
    ['multi-select option outside', { ...valid, tags: ['w'] }, 'tags'],
    ['multi-select duplicate', { ...valid, tags: ['x', 'x'] }, 'tags'],
    ['multi-select below minItems', { ...valid, tags: [] }, 'tags'],
    ['multi-select above maxItems', { ...valid, tags: ['x', 'y', 'z'] }, 'tags'],
    ['titled multi-select option outside', { ...valid, parts: ['r'] }, 'parts'],
  ])('rejects %s, naming the field', (_label, content, field) => {
    const check = checkContent(content, schema);
    expect(check.ok).toBe(false);
    expect(check.findings).toContainEqual(expect.objectContaining({ code: 'E_CONTENT_INVALID', severity: 'error', field }));
  });

  it('accepts a leap second only at 23:59 UTC', () => {
    expect(checkContent({ ...valid, at: '2016-12-31T23:59:60Z' }, schema).ok).toBe(true);
    expect(checkContent({ ...valid, at: '2017-01-01T00:59:60+01:00' }, schema).ok).toBe(true);
    expect(checkContent({ ...valid, at: '2016-12-31T12:59:60Z' }, schema).ok).toBe(false);
  });

  it('flags a secret-shaped value in any string field, naming the field and never the value', () => {
    const token = 'ghp_' + 'A1b2C3d4E5'.repeat(4);
    const leaked = checkContent({ title: 'ab', agree: true, email: `${token}@x.co` }, schema);
    expect(problems({ title: 'ab', agree: true, email: `${token}@x.co` })).toContainEqual(['E_SECRET_IN_CONTENT', 'email']);
    expect(JSON.stringify(leaked)).not.toContain(token);
  });

  it('flags a secret even in a field that otherwise fits', () => {
    const schemaNotes = { type: 'object', properties: { notes: { type: 'string' } } };
    const pem = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg\n-----END PRIVATE KEY-----';
    expect(checkContent({ notes: pem }, schemaNotes).findings).toEqual([
      expect.objectContaining({ code: 'E_SECRET_IN_CONTENT', field: 'notes' }),
    ]);
    expect(checkContent({ notes: 'just a note about tokens and keys' }, schemaNotes).ok).toBe(true);
  });

  it('rejects content that is not an object, and content for an unusable schema', () => {
    for (const content of [null, [], 'x', 42]) expect(checkContent(content, schema).ok).toBe(false);
    const nested = { type: 'object', properties: { a: { type: 'object' } } };
    expect(checkContent({ a: {} }, nested).ok).toBe(false);
  });

  it('treats __proto__ as an ordinary key', () => {
    const content = JSON.parse('{"__proto__": "x"}');
    expect(problems(content)).toContainEqual(['E_CONTENT_INVALID', '__proto__']);
    const withField = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}');
    expect(checkContent(content, withField).ok).toBe(true);
  });
});
