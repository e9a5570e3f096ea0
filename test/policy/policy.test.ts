import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { examplePolicy } from '../../src/policy/example.js';
import { policyJsonSchema } from '../../src/policy/json-schema.js';
import { defaultPolicy, loadPolicy, parsePolicy } from '../../src/policy/policy.js';
import { GuardError } from '../../src/protocol/errors.js';

function parseError(input: unknown): GuardError {
  try {
    parsePolicy(input);
  } catch (error) {
    if (GuardError.is(error)) return error;
    throw error;
  }
  throw new Error('expected the policy to be rejected');
}

describe('policy', () => {
  it('defaults to the production profile with every check on', () => {
    expect(defaultPolicy.base).toMatchObject({
      profile: 'production',
      issuing: 'open',
      form: { enabled: true, onSensitive: 'block' },
      url: { enabled: true, allowedHosts: [], maxLength: 2048 },
      completion: { ttlSeconds: 600 },
      retry: { maxRetries: 1 },
    });
  });

  it('applies per-server overrides on top of the file, leaving other servers on the base', () => {
    const doc = parsePolicy({
      form: { onSensitive: 'audit' },
      servers: { dev: { profile: 'development', url: { allowedHosts: ['example.com'] } } },
    });
    expect(doc.forServer('dev')).toMatchObject({
      profile: 'development',
      form: { onSensitive: 'audit', enabled: true },
      url: { allowedHosts: ['example.com'], maxLength: 2048 },
    });
    expect(doc.forServer('other').profile).toBe('production');
    expect(doc.forServer(undefined)).toBe(doc.base);
    expect(doc.forServer('__proto__')).toBe(doc.base);
  });

  it('names the JSON path and what was expected when a policy is wrong', () => {
    const error = parseError({
      form: { onSensitive: 'warn' },
      url: { maxLength: 'long', allowedHosts: ['https://x.com/'] },
      servers: { s: { form: { enabeld: true } } },
    });
    expect(error.code).toBe('E_POLICY_INVALID');
    expect(error.message).toContain('at $.form.onSensitive:');
    expect(error.message).toContain('"block"');
    expect(error.message).toContain('at $.url.maxLength: Invalid input: expected number');
    expect(error.message).toContain('at $.url.allowedHosts[0]: a bare host name');
    expect(error.message).toContain('at $.servers.s.form: unknown key "enabeld"');
  });

  it('rejects JSON that does not parse, with a clear code', () => {
    expect(parseError('{ "profile": ').code).toBe('E_POLICY_INVALID');
  });

  it('loads files and reports unreadable ones with E_POLICY_UNREADABLE', () => {
    const dir = mkdtempSync(join(tmpdir(), 'meg-policy-'));
    const file = join(dir, 'policy.json');
    writeFileSync(file, JSON.stringify(examplePolicy()));
    expect(loadPolicy(file).forServer('local-dev-server').profile).toBe('development');
    expect(() => loadPolicy(join(dir, 'missing.json'))).toThrow(expect.objectContaining({ code: 'E_POLICY_UNREADABLE' }));
  });

  it('ships a JSON Schema that describes every top-level section', () => {
    const properties = policyJsonSchema.properties as Record<string, unknown>;
    expect(Object.keys(properties).sort()).toEqual([
      '$schema',
      'completion',
      'form',
      'issuing',
      'profile',
      'retry',
      'servers',
      'subject',
      'url',
      'version',
    ]);
    expect(policyJsonSchema.additionalProperties).toBe(false);
  });

  it('accepts the example policy that `policy init` writes', () => {
    expect(() => parsePolicy(examplePolicy())).not.toThrow();
  });
});
