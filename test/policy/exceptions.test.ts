import { describe, expect, it } from 'vitest';
import type { GuardEvent } from '../../src/core/events.js';
import { createGuard } from '../../src/core/guard.js';
import { auditForm, schemaDigest } from '../../src/form/index.js';
import { parsePolicy } from '../../src/policy/policy.js';
import { GuardError } from '../../src/protocol/errors.js';
import { analyzeUrl, EXCUSABLE_BY_DOMAIN, UrlFinding } from '../../src/url/index.js';
import { formRequest, handshake, passwordSchema, urlRequest } from '../helpers/session.js';

const apiKeySchema = { type: 'object', properties: { api_key: { type: 'string', title: 'API key' }, project: { type: 'string' } } };
const HOMOGLYPH = 'https://xn--pypal-4ve.com/login';

function policyError(json: unknown): string {
  try {
    parsePolicy(json);
  } catch (error) {
    if (GuardError.is(error)) return error.message;
  }
  throw new Error('expected the policy to be refused');
}

describe('policy: exceptions are per server, need a reason, and stay narrow', () => {
  it('accepts form.allow by field, by schema digest or both, and url.allow by registrable domain', () => {
    const digest = schemaDigest(apiKeySchema)!;
    const doc = parsePolicy({
      url: { onBlock: 'audit' },
      servers: {
        internal: {
          form: {
            allow: [
              { field: 'api_key', reason: 'the internal tool asks for its own key name' },
              { schema: digest, reason: 'reviewed' },
              { field: 'pin', schema: digest, reason: 'both' },
            ],
          },
          url: { allow: [{ domain: 'xn--pypal-4ve.com', reason: 'our test tenant' }] },
        },
      },
    });
    expect(doc.forServer('internal').form.allow).toHaveLength(3);
    expect(doc.forServer('other').form.allow ?? []).toEqual([]);
    expect(doc.base.url.onBlock).toBe('audit');
  });

  it('refuses rules without a reason, a rule with neither field nor schema, a subdomain or suffix as the domain, and allow at the top level', () => {
    expect(policyError({ servers: { s: { form: { allow: [{ field: 'api_key' }] } } } })).toContain('$.servers.s.form.allow[0].reason');
    expect(policyError({ servers: { s: { form: { allow: [{ reason: 'x' }] } } } })).toContain(
      'an allow rule needs "field", "schema" or both',
    );
    expect(policyError({ servers: { s: { form: { allow: [{ schema: 'md5:abc', reason: 'x' }] } } } })).toContain('sha256:<64 hex digits>');
    expect(policyError({ servers: { s: { url: { allow: [{ domain: 'login.example.com', reason: 'x' }] } } } })).toContain(
      'a registrable domain (eTLD+1)',
    );
    expect(policyError({ servers: { s: { url: { allow: [{ domain: 'co.uk', reason: 'x' }] } } } })).toContain(
      'a registrable domain (eTLD+1)',
    );
    expect(policyError({ form: { allow: [] } })).toContain('exceptions are per server, put them under servers.<key>.form.allow');
  });
});

describe('form.allow', () => {
  const doc = parsePolicy({
    servers: {
      internal: { form: { allow: [{ field: 'api_key', reason: 'a key name, not a key' }] } },
      pinned: { form: { allow: [{ schema: schemaDigest(apiKeySchema)!, reason: 'reviewed schema' }] } },
    },
  });

  it('lets the named field through as ordinary, records the use, and keeps other sensitive fields blocked', () => {
    const audit = auditForm({ message: 'Key', requestedSchema: apiKeySchema }, doc.forServer('internal'));
    expect(audit.verdict).toBe('allow');
    expect(audit.fields.find((f) => f.name === 'api_key')).toMatchObject({
      class: 'ordinary',
      reasons: expect.arrayContaining(['allowed:credential']),
    });
    expect(audit.exceptions).toEqual([
      { type: 'exception.used', kind: 'form-field', target: 'api_key', reason: 'a key name, not a key', findings: ['E_SENSITIVE_FIELD'] },
    ]);
    expect(auditForm({ message: 'Log in', requestedSchema: passwordSchema }, doc.forServer('internal')).verdict).toBe('block');
    expect(auditForm({ message: 'Key', requestedSchema: apiKeySchema }, doc.forServer('elsewhere')).verdict).toBe('block');
  });

  it('a schema rule matches only that exact schema (key order does not matter)', () => {
    const reordered = { properties: { project: { type: 'string' }, api_key: { title: 'API key', type: 'string' } }, type: 'object' };
    expect(auditForm({ message: 'k', requestedSchema: reordered }, doc.forServer('pinned')).verdict).toBe('allow');
    const changed = { ...apiKeySchema, properties: { ...apiKeySchema.properties, extra: { type: 'string' } } };
    expect(auditForm({ message: 'k', requestedSchema: changed }, doc.forServer('pinned')).verdict).toBe('block');
  });

  it('never excuses a schema outside the spec subset', () => {
    const nested = { type: 'object', properties: { api_key: { type: 'object', properties: { a: { type: 'string' } } } } };
    expect(auditForm({ message: 'k', requestedSchema: nested }, doc.forServer('internal')).verdict).toBe('block');
  });

  it('through the guard: forwarded, an exception.used event, and the secret-shaped answer is still withheld', () => {
    const events: GuardEvent[] = [];
    const guard = createGuard({ policy: doc, server: 'internal', onEvent: (e) => events.push(e) });
    handshake(guard, { form: {} });
    expect(guard.inbound(formRequest(9, apiKeySchema)).action).toBe('forward');
    expect(events.find((e) => e.type === 'exception.used')).toMatchObject({
      kind: 'form-field',
      target: 'api_key',
      requestId: 9,
      server: { key: 'internal' },
    });
    const answer = guard.outbound({
      jsonrpc: '2.0',
      id: 9,
      result: { action: 'accept', content: { api_key: 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8', project: 'x' } },
    });
    expect(answer).toMatchObject({ action: 'forward', message: { result: { action: 'cancel' } } });
  });

  it('a blocked form event carries the schema digest a rule can name', () => {
    const events: GuardEvent[] = [];
    const guard = createGuard({ server: 'x', onEvent: (e) => events.push(e) });
    handshake(guard, { form: {} });
    guard.inbound(formRequest(1, apiKeySchema));
    expect(events.find((e) => e.type === 'form.sensitive')).toMatchObject({ action: 'blocked', schemaDigest: schemaDigest(apiKeySchema) });
  });
});

describe('url.allow and url.onBlock "audit"', () => {
  const doc = parsePolicy({
    servers: {
      tenant: { url: { allow: [{ domain: 'pаypal.com', reason: 'our staging tenant' }] } },
      rollout: { url: { onBlock: 'audit' } },
    },
  });

  it('excuses look-alike findings on that registrable domain and its subdomains, and records the use', () => {
    expect(analyzeUrl(HOMOGLYPH, doc.base).verdict).toBe('block');
    for (const url of [HOMOGLYPH, 'https://login.xn--pypal-4ve.com/start']) {
      const a = analyzeUrl(url, doc.forServer('tenant'));
      expect(a.verdict, url).toBe('allow');
      expect(a.findings.find((f) => f.code === UrlFinding.lookalikeHomoglyph)?.severity).toBe('info');
      expect(a.exceptions).toEqual([
        {
          type: 'exception.used',
          kind: 'url-domain',
          target: 'pаypal.com',
          reason: 'our staging tenant',
          findings: [UrlFinding.idnMixedScript, UrlFinding.lookalikeHomoglyph],
        },
      ]);
    }
    expect(analyzeUrl('https://xn--pypal-4ve.net/', doc.forServer('tenant')).verdict).toBe('block');
  });

  it('never applies to structural blocks: userinfo, http in production, credentials in the URL', () => {
    const structural = [
      ['https://me@xn--pypal-4ve.com/login', UrlFinding.userinfo],
      ['http://xn--pypal-4ve.com/login', UrlFinding.scheme],
      [
        'https://xn--pypal-4ve.com/cb?access_token=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL' +
          '0n3I9PlFUP0THsR8U',
        UrlFinding.credential,
      ],
    ] as const;
    for (const [url, code] of structural) {
      for (const server of ['tenant', 'rollout']) {
        const a = analyzeUrl(url, doc.forServer(server));
        expect(a.verdict, `${server} ${url}`).toBe('block');
        expect(a.findings.find((f) => f.code === code)?.severity, `${server} ${url}`).toBe('error');
      }
    }
    expect([...EXCUSABLE_BY_DOMAIN]).not.toContain(UrlFinding.userinfo);
    expect([...EXCUSABLE_BY_DOMAIN]).not.toContain(UrlFinding.credential);
  });

  it('onBlock "audit" forwards a look-alike with the warning and a url.audited event', () => {
    const events: GuardEvent[] = [];
    const guard = createGuard({ policy: doc, server: 'rollout', onEvent: (e) => events.push(e) });
    handshake(guard, { url: {} });
    const decision = guard.inbound(urlRequest(4, HOMOGLYPH, 'e-1'));
    expect(decision.action).toBe('forward');
    expect(events.find((e) => e.type === 'url.audited')).toMatchObject({
      requestId: 4,
      host: 'xn--pypal-4ve.com',
      findings: [UrlFinding.lookalikeHomoglyph],
    });
    expect(events.find((e) => e.type === 'elicitation.forwarded')).toMatchObject({ verdict: 'warn' });
    // A structural block still blocks in the audit stage.
    expect(guard.inbound(urlRequest(5, 'https://me@xn--pypal-4ve.com/', 'e-2')).action).toBe('reply');
  });

  it('through the guard, a url.allow use is an exception.used event', () => {
    const events: GuardEvent[] = [];
    const guard = createGuard({ policy: doc, server: 'tenant', onEvent: (e) => events.push(e) });
    handshake(guard, { url: {} });
    expect(guard.inbound(urlRequest(4, HOMOGLYPH, 'e-1')).action).toBe('forward');
    expect(events.find((e) => e.type === 'exception.used')).toMatchObject({ kind: 'url-domain', target: 'pаypal.com', requestId: 4 });
  });

  describe('on the URL list of a -32042 error (2025-11-25)', () => {
    const required = (id: number, urls: readonly string[]) => ({
      jsonrpc: '2.0',
      id,
      error: {
        code: -32042,
        message: 'URL elicitation required',
        data: { elicitations: urls.map((url, i) => ({ mode: 'url', elicitationId: `req-${id}-${i}`, url, message: 'Continue' })) },
      },
    });
    const start = (server: string) => {
      const guard = createGuard({ policy: doc, server });
      handshake(guard, { url: {} });
      return guard;
    };
    const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'pay', arguments: {} } });

    it('a url.allow use on a listed URL is an exception.used event for the response, before the filtering event', () => {
      const guard = start('tenant');
      guard.outbound(call(7));
      const decision = guard.inbound(required(7, [HOMOGLYPH, 'http://192.168.0.1/pay']));
      expect(decision).toMatchObject({
        action: 'forward',
        message: { error: { code: -32042, data: { elicitations: [{ elicitationId: 'req-7-0' }] } } },
      });
      const types = decision.events.map((e) => e.type);
      expect(types.filter((t) => t === 'exception.used')).toHaveLength(1);
      expect(types.indexOf('exception.used')).toBeLessThan(types.indexOf('url-required.filtered'));
      expect(decision.events.find((e) => e.type === 'exception.used')).toMatchObject({
        kind: 'url-domain',
        target: 'pаypal.com',
        reason: 'our staging tenant',
        requestId: 7,
      });
    });

    it('is emitted when every listed URL is removed too, as for a refused URL elicitation', () => {
      const guard = start('tenant');
      guard.outbound(call(8));
      const decision = guard.inbound(required(8, ['https://me@xn--pypal-4ve.com/login']));
      expect(decision).toMatchObject({ action: 'forward', message: { error: { code: -32603, data: { code: 'E_URL_BLOCKED' } } } });
      expect(decision.events.map((e) => e.type)).toEqual(['exception.used', 'url-required.filtered']);
    });

    it('onBlock "audit" on a listed URL is a url.audited event for the response', () => {
      const guard = start('rollout');
      guard.outbound(call(9));
      const decision = guard.inbound(required(9, [HOMOGLYPH]));
      expect(decision.action).toBe('forward');
      expect(decision.events.find((e) => e.type === 'url.audited')).toMatchObject({
        requestId: 9,
        findings: [UrlFinding.lookalikeHomoglyph],
      });
    });

    it('says nothing for a server without a rule, for a -32042 answering nothing in flight, or for a re-sent id', () => {
      const plain = createGuard({ policy: doc, server: 'other' });
      handshake(plain, { url: {} });
      plain.outbound(call(10));
      const blocked = plain.inbound(required(10, [HOMOGLYPH]));
      expect(blocked.events.map((e) => e.type)).toEqual(['url-required.filtered']);
      const guard = start('tenant');
      // Nothing in flight with id 11: the list is dropped unjudged, so no rule was used.
      expect(guard.inbound(required(11, [HOMOGLYPH])).events.some((e) => e.type === 'exception.used')).toBe(false);
      guard.outbound(call(12));
      expect(guard.inbound(required(12, [HOMOGLYPH])).events.filter((e) => e.type === 'exception.used')).toHaveLength(1);
      // The same response again answers a request no longer in flight.
      expect(guard.inbound(required(12, [HOMOGLYPH])).events.some((e) => e.type === 'exception.used')).toBe(false);
    });
  });
});
