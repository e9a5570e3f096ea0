import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { auditForm, checkContent, classifyField } from '../../src/form/index.js';
import { defaultPolicy } from '../../src/policy/index.js';
import { verdictOf } from '../../src/protocol/verdict.js';

const policy = defaultPolicy.base;
const RUNS = { numRuns: 300 };

// Names with lone surrogates, control characters, prototype keys and every script.
const fieldName = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 24 }),
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'password', 'max_tokens', '密码', '\ud800', 'a\u0000b', ''),
);

const keyword = fc.constantFrom(
  'type',
  'title',
  'description',
  'default',
  'enum',
  'oneOf',
  'items',
  'anyOf',
  'format',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'minItems',
  'maxItems',
  'enumNames',
  'pattern',
  'writeOnly',
  '$ref',
  '__proto__',
);
const keywordValue = fc.oneof(
  fc.constantFrom('string', 'number', 'integer', 'boolean', 'array', 'object', 'email', 'uri', 'date', 'date-time', 'password'),
  fc.jsonValue({ maxDepth: 3 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
);
const property = fc.oneof(fc.dictionary(keyword, keywordValue, { maxKeys: 6 }), fc.jsonValue({ maxDepth: 2 }));
const properties = fc.dictionary(fieldName, property, { maxKeys: 6 });
const schema = fc.record(
  {
    type: fc.constantFrom('object', 'array', 7),
    properties,
    required: fc.option(fc.array(fieldName, { maxLength: 3 }), { nil: undefined }),
  },
  { requiredKeys: ['type', 'properties'] },
);
const params = fc.oneof(
  schema,
  fc.record({
    message: fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), fc.jsonValue({ maxDepth: 1 })),
    requestedSchema: schema,
    mode: fc.constantFrom(undefined, 'form', 'url'),
  }),
);

function wellFormed(audit: ReturnType<typeof auditForm>): void {
  expect(['allow', 'warn', 'block']).toContain(audit.verdict);
  expect(audit.verdict).toBe(verdictOf(audit.findings));
  for (const f of audit.fields) expect(['credential', 'payment', 'personal', 'ordinary']).toContain(f.class);
  for (const f of audit.findings) expect(typeof f.message).toBe('string');
}

function nested(depth: number): unknown {
  let value: unknown = { type: 'string' };
  for (let i = 0; i < depth; i++) value = { type: 'object', properties: { inner: value } };
  return value;
}

describe('the form audit never throws', () => {
  it('on arbitrary values', () => {
    fc.assert(
      fc.property(fc.anything({ maxDepth: 4 }), (value) => {
        wellFormed(auditForm(value, policy));
      }),
      RUNS,
    );
  });

  it('on generated schemas, listing every property in order', () => {
    fc.assert(
      fc.property(params, (p) => {
        const audit = auditForm(p, policy);
        wellFormed(audit);
        const requested = 'requestedSchema' in p ? p.requestedSchema : p;
        if (audit.findings.every((f) => f.code !== 'E_INVALID_PARAMS'))
          expect(audit.fields.map((f) => f.name)).toEqual(Object.keys(requested.properties));
      }),
      RUNS,
    );
  });

  it('never echoes a default value in its findings', () => {
    const marker = fc.stringMatching(/^[A-Za-z0-9]{24}$/).map((s) => `zzQ${s}`);
    fc.assert(
      fc.property(
        marker,
        fc.constantFrom('string', 'integer', 'boolean', 'array'),
        fc.constantFrom('email', 'password', undefined),
        (secret, type, format) => {
          const audit = auditForm(
            {
              message: 'm',
              requestedSchema: {
                type: 'object',
                properties: { note: { type, format, default: secret, enum: type === 'string' ? ['a'] : undefined } },
              },
            },
            policy,
          );
          expect(JSON.stringify(audit.findings)).not.toContain(secret);
        },
      ),
      RUNS,
    );
  });

  it('on deep nesting, huge strings and lone surrogates', () => {
    wellFormed(auditForm({ message: 'm', requestedSchema: { type: 'object', properties: { deep: nested(5000) } } }, policy));
    wellFormed(auditForm(nested(5000), policy));
    const huge = 'password '.repeat(200_000);
    wellFormed(
      auditForm(
        {
          message: huge,
          requestedSchema: { type: 'object', properties: { [huge.slice(0, 100_000)]: { type: 'string', title: huge, description: huge } } },
        },
        policy,
      ),
    );
    const audit = auditForm(
      { message: '\ud800', requestedSchema: { type: 'object', properties: { '\udc00x\ud800': { type: 'string', title: '\ud83d' } } } },
      policy,
    );
    wellFormed(audit);
    expect(audit.fields.map((f) => f.name)).toEqual(['\udc00x\ud800']);
  });

  it('fails closed when reading the input itself throws', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('boom');
        },
        ownKeys() {
          throw new Error('boom');
        },
      },
    );
    const audit = auditForm({ message: 'm', requestedSchema: hostile }, policy);
    expect(audit.verdict).toBe('block');
    expect(audit.findings.map((f) => f.code)).toEqual(['E_GUARD_INTERNAL']);
  });
});

describe('checkContent and classifyField never throw', () => {
  it('checkContent on arbitrary content and schemas', () => {
    fc.assert(
      fc.property(fc.anything({ maxDepth: 3 }), fc.oneof(schema, fc.anything({ maxDepth: 3 })), (content, s) => {
        const check = checkContent(content, s);
        expect(check.ok).toBe(check.findings.length === 0);
      }),
      RUNS,
    );
  });

  it('checkContent on generated answers to a fixed schema', () => {
    const fixed = {
      type: 'object',
      properties: {
        a: { type: 'string', format: 'date-time' },
        b: { type: 'array', items: { type: 'string', enum: ['x'] } },
        c: { type: 'integer' },
      },
    };
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom('a', 'b', 'c', '__proto__', 'd'), fc.jsonValue({ maxDepth: 2 })), (content) => {
        const check = checkContent(content, fixed);
        expect(check.ok).toBe(check.findings.length === 0);
      }),
      RUNS,
    );
  });

  it('classifyField on arbitrary names, properties and messages', () => {
    fc.assert(
      fc.property(
        fieldName,
        fc.anything({ maxDepth: 3 }),
        fc.option(fc.string({ unit: 'binary', maxLength: 200 }), { nil: undefined }),
        (name, p, message) => {
          const report = classifyField(name, p, message);
          expect(report.name).toBe(name);
          expect(['credential', 'payment', 'personal', 'ordinary']).toContain(report.class);
        },
      ),
      RUNS,
    );
  });
});
