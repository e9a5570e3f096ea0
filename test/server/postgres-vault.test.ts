import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresSecretVault } from '../../src/server/postgres-store.js';
import { VAULT_KEY_ENV } from '../../src/server/vault.js';
import { GuardError } from '../../src/protocol/errors.js';
import { dropSchema, freshSchema, postgresUrl } from '../ledger/postgres-support.js';

const schemas: string[] = [];
afterAll(async () => {
  for (const schema of schemas) await dropSchema(schema);
});

const secret = (token: string) => ({
  tokenType: 'Bearer',
  accessToken: token,
  refreshToken: `refresh-${token}`,
  issuer: 'https://login.example',
  providerSubject: 'acct-1',
  scope: 'files',
});

describe.skipIf(postgresUrl === null)('PostgresSecretVault', () => {
  it('stores sealed secrets per subject and provider; the table holds no plaintext; a moved row fails', async () => {
    const schema = freshSchema('v');
    schemas.push(schema);
    const key = randomBytes(32);
    const vault = await PostgresSecretVault.fromEnv(postgresUrl!, { [VAULT_KEY_ENV]: key.toString('base64') }, { schema });
    const token = `tok-${randomBytes(16).toString('hex')}`;
    try {
      await vault.put('mcp|alice', 'acme', secret(token));
      expect(await vault.get('mcp|alice', 'acme')).toEqual(secret(token));
      expect(await vault.get('mcp|bob', 'acme')).toBeNull();
      await vault.put('mcp|alice', 'acme', secret(`${token}-2`));
      expect((await vault.get('mcp|alice', 'acme'))?.accessToken).toBe(`${token}-2`);

      const client = new pg.Client(postgresUrl!);
      await client.connect();
      const raw = await client.query<{ subject: string; provider: string; iv: Buffer; tag: Buffer; data: Buffer }>(
        `SELECT subject, provider, iv, tag, data FROM "${schema}".vault_secrets`,
      );
      expect(raw.rows).toHaveLength(1);
      for (const row of raw.rows) {
        const bytes = Buffer.concat([Buffer.from(row.subject + row.provider), row.iv, row.tag, row.data]);
        expect(bytes.includes(Buffer.from(token))).toBe(false);
        expect(bytes.toString('base64').includes(Buffer.from(token).toString('base64'))).toBe(false);
      }
      // A row copied under another subject does not open.
      await client.query(
        `INSERT INTO "${schema}".vault_secrets (subject, provider, iv, tag, data, updated_at) SELECT 'mcp|mallory', provider, ` +
          `iv, tag, data, updated_at FROM "${schema}".vault_secrets WHERE subject = 'mcp|alice'`,
      );
      await client.end();
      const moved = await vault.get('mcp|mallory', 'acme').then(
        () => null,
        (e: unknown) => e,
      );
      expect(GuardError.is(moved) && moved.code).toBe('E_VAULT_AUTH_FAILED');

      await vault.delete('mcp|alice', 'acme');
      expect(await vault.get('mcp|alice', 'acme')).toBeNull();
    } finally {
      await vault.close();
    }
  });

  it('is safe with several instances writing at once, and a wrong key fails loudly', async () => {
    const schema = freshSchema('v');
    schemas.push(schema);
    const key = randomBytes(32);
    const instances = await Promise.all([1, 2, 3].map(() => PostgresSecretVault.connect(postgresUrl!, key, { schema })));
    try {
      await Promise.all(Array.from({ length: 60 }, (_, i) => instances[i % 3]!.put(`mcp|user-${i}`, 'acme', secret(`token-${i}`))));
      for (let i = 0; i < 60; i++) expect((await instances[(i + 1) % 3]!.get(`mcp|user-${i}`, 'acme'))?.accessToken).toBe(`token-${i}`);
      const wrong = await PostgresSecretVault.connect(postgresUrl!, randomBytes(32), { schema });
      const failed = await wrong.get('mcp|user-1', 'acme').then(
        () => null,
        (e: unknown) => e,
      );
      await wrong.close();
      expect(GuardError.is(failed) && failed.code).toBe('E_VAULT_AUTH_FAILED');
    } finally {
      for (const v of instances) await v.close();
    }
  });
});
