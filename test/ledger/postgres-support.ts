/**
 * The PostgreSQL the tests use: the URL in MCP_GUARD_TEST_POSTGRES_URL (scripts/with-postgres.sh
 * and CI start a throwaway cluster and set it). Outside CI, without it, PostgreSQL tests are
 * skipped (one line for the whole run says how to run them); in CI (CI=true) its absence is a failure.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const POSTGRES_URL_ENV = 'MCP_GUARD_TEST_POSTGRES_URL';

export const postgresUrl: string | null = process.env[POSTGRES_URL_ENV] || null;

// The one line saying the PostgreSQL tests are skipped is printed by postgres-global-setup.ts.
if (postgresUrl === null && process.env['CI'] === 'true')
  throw new Error(`${POSTGRES_URL_ENV} is not set: CI must start PostgreSQL (see .ci/run and scripts/with-postgres.sh)`);

/** A fresh schema name, so parallel test files and tests never share tables. */
export function freshSchema(prefix = 't'): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

/** Drops a schema the test created. */
export async function dropSchema(schema: string): Promise<void> {
  if (postgresUrl === null) return;
  const client = new pg.Client(postgresUrl);
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** A fresh database (for tests that dump it whole); returns its URL and a function dropping it. */
export async function freshDatabase(): Promise<{ readonly url: string; drop(): Promise<void> }> {
  if (postgresUrl === null) throw new Error('no PostgreSQL');
  const name = freshSchema('db');
  const admin = new pg.Client(postgresUrl);
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(postgresUrl);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    async drop() {
      const c = new pg.Client(postgresUrl!);
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    },
  };
}
