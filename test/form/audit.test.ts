import { describe, expect, it } from 'vitest';
import { auditForm } from '../../src/form/index.js';
import { defaultPolicy, parsePolicy } from '../../src/policy/index.js';

const block = defaultPolicy.base;
const auditMode = parsePolicy({ form: { onSensitive: 'audit' } }).base;
const blockPersonal = parsePolicy({ form: { blockPersonal: true } }).base;

const loginForm = {
  message: 'Sign in',
  requestedSchema: {
    type: 'object',
    properties: { email: { type: 'string', format: 'email' }, password: { type: 'string' }, remember: { type: 'boolean' } },
  },
};

describe('auditForm verdicts under the policy', () => {
  it('blocks a credential field with a field-level E_SENSITIVE_FIELD naming field and class', () => {
    const audit = auditForm(loginForm, block);
    expect(audit.verdict).toBe('block');
    const sensitive = audit.findings.filter((f) => f.code === 'E_SENSITIVE_FIELD');
    expect(sensitive).toEqual([expect.objectContaining({ severity: 'error', field: 'password' })]);
    expect(sensitive[0]!.message).toContain('"password"');
    expect(sensitive[0]!.message).toContain('credential');
  });

  it('only warns in audit mode (first rollout stage), same code', () => {
    const audit = auditForm(loginForm, auditMode);
    expect(audit.verdict).toBe('warn');
    expect(audit.findings.filter((f) => f.code === 'E_SENSITIVE_FIELD')).toEqual([
      expect.objectContaining({ severity: 'warning', field: 'password' }),
    ]);
  });

  it('warns on personal fields, and blocks them when the policy says blockPersonal', () => {
    const contact = { message: 'Contact', requestedSchema: { type: 'object', properties: { email: { type: 'string', format: 'email' } } } };
    const warned = auditForm(contact, block);
    expect(warned.verdict).toBe('warn');
    expect(warned.findings).toEqual([expect.objectContaining({ code: 'W_PERSONAL_FIELD', severity: 'warning', field: 'email' })]);
    const blocked = auditForm(contact, blockPersonal);
    expect(blocked.verdict).toBe('block');
    expect(blocked.findings).toEqual([expect.objectContaining({ code: 'E_SENSITIVE_FIELD', severity: 'error', field: 'email' })]);
  });

  it('a schema violation blocks even in audit mode', () => {
    const audit = auditForm({ message: 'm', requestedSchema: { type: 'object', properties: { a: { type: 'object' } } } }, auditMode);
    expect(audit.verdict).toBe('block');
  });

  it('lists every property in schema order, ordinary ones included', () => {
    expect(auditForm(loginForm, block).fields.map((f) => [f.name, f.class])).toEqual([
      ['email', 'personal'],
      ['password', 'credential'],
      ['remember', 'ordinary'],
    ]);
  });

  it('allows an ordinary form with no findings', () => {
    const audit = auditForm(
      { message: 'Settings', requestedSchema: { type: 'object', properties: { max_tokens: { type: 'integer' } } } },
      block,
    );
    expect(audit).toEqual({ verdict: 'allow', fields: [{ name: 'max_tokens', class: 'ordinary', reasons: [] }], findings: [] });
  });
});

describe('auditForm input detection', () => {
  const schema = { type: 'object', properties: { api_key: { type: 'string' } } };

  it('accepts a bare requestedSchema and elicitation/create params alike', () => {
    expect(auditForm(schema, block).fields).toEqual(auditForm({ message: 'm', requestedSchema: schema }, block).fields);
    expect(
      auditForm({ mode: 'form', message: 'm', requestedSchema: schema, _meta: {}, task: { ttl: 1000 } }, block).findings.map((f) => f.code),
    ).toEqual(['E_SENSITIVE_FIELD']);
  });

  it('blocks URL-mode params, a missing message or schema, and unknown params keys', () => {
    const cases: unknown[] = [
      { mode: 'url', message: 'm', url: 'https://example.com', elicitationId: 'x' },
      { requestedSchema: schema },
      { message: 'm' },
      { message: 'm', requestedSchema: schema, url: 'https://example.com' },
      null,
      [schema],
      'text',
    ];
    for (const params of cases) {
      const audit = auditForm(params, block);
      expect(audit.verdict).toBe('block');
      expect(audit.findings.some((f) => f.code === 'E_INVALID_PARAMS')).toBe(true);
    }
  });

  it('handles a __proto__ property without touching prototypes', () => {
    const params = JSON.parse(
      '{"message":"m","requestedSchema":{"type":"object","properties":{"__proto__":{"type":"string","title":"Password"},' +
        '"ok":{"type":"string"}},"required":["__proto__"]}}',
    );
    const audit = auditForm(params, block);
    expect(audit.fields.map((f) => [f.name, f.class])).toEqual([
      ['__proto__', 'credential'],
      ['ok', 'ordinary'],
    ]);
    expect(({} as Record<string, unknown>)['type']).toBeUndefined();
  });
});

describe('URLs in forms', () => {
  it('warns on a URL in a title, description, option title, default or the message, naming the field', () => {
    const audit = auditForm(
      {
        message: 'See https://example.com/help',
        requestedSchema: {
          type: 'object',
          properties: {
            a: { type: 'boolean', description: 'Terms: https://example.com/terms' },
            b: { type: 'string', oneOf: [{ const: 'x', title: 'Mirror www.example.net' }] },
            c: { type: 'string', format: 'uri', default: 'https://example.org/' },
            d: { type: 'string', title: 'Plain title' },
          },
        },
      },
      block,
    );
    expect(audit.verdict).toBe('warn');
    const urls = audit.findings.filter((f) => f.code === 'W_URL_IN_FORM');
    expect(urls.map((f) => f.field)).toEqual([undefined, 'a', 'b', 'c']);
    expect(JSON.stringify(urls)).not.toContain('example');
  });

  it('does not take a dotted word for a URL', () => {
    const audit = auditForm(
      {
        message: 'Which Node.js version?',
        requestedSchema: { type: 'object', properties: { v: { type: 'string', description: 'e.g. v20.1 or example.com-style names' } } },
      },
      block,
    );
    expect(audit.verdict).toBe('allow');
  });
});
