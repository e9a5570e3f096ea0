import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createBusinessReceipt, createNavigation } from '../../src/flow/records.js';
import { POSTGRES_LATEST_VERSION, PostgresLedger } from '../../src/ledger/postgres.js';
import { GuardError } from '../../src/protocol/errors.js';
import { businessInput, navigationInput, testDeps } from '../flow/support.js';
import { ledgerContract } from './contract.js';
import { dropSchema, freshSchema, postgresUrl } from './postgres-support.js';

const schemas: string[] = [];
afterAll(async () => {
  for (const schema of schemas) await dropSchema(schema);
});

async function codeOf(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
  } catch (error) {
    return GuardError.is(error) ? error.code : `not a GuardError: ${(error as Error).message}`;
  }
  return 'no error';
}

describe.skipIf(postgresUrl === null)('PostgresLedger', () => {
  ledgerContract('PostgresLedger', async () => {
    const schema = freshSchema();
    schemas.push(schema);
    const ledger = await PostgresLedger.connect(postgresUrl!, { schema });
    return { ledger, dispose: () => ledger.close() };
  });

  it('runs with synchronous_commit on, at the latest schema, in its own schema', async () => {
    const schema = freshSchema();
    schemas.push(schema);
    const ledger = await PostgresLedger.connect(postgresUrl!, { schema });
    try {
      const settings = await ledger.settings();
      expect(settings).toMatchObject({ schema, schemaVersion: POSTGRES_LATEST_VERSION, synchronousCommit: 'on' });
      expect(settings.target).not.toContain('postgres@');
    } finally {
      await ledger.close();
    }
  });

  it('migrates once when several processes connect at the same moment, and keeps everything across reconnects', async () => {
    const schema = freshSchema();
    schemas.push(schema);
    const ledgers = await Promise.all(Array.from({ length: 6 }, () => PostgresLedger.connect(postgresUrl!, { schema })));
    const deps = testDeps(9);
    const record = createNavigation(navigationInput(), deps).record;
    await ledgers[0]!.putNavigation(record);
    for (const l of ledgers) expect((await l.getNavigation(record.id))?.record).toEqual(record);
    for (const l of ledgers) await l.close();
    const again = await PostgresLedger.connect(postgresUrl!, { schema });
    expect((await again.getNavigation(record.id))?.flow.state).toBe('CREATED');
    const client = new pg.Client(postgresUrl!);
    await client.connect();
    const { rows } = await client.query(`SELECT version FROM "${schema}".schema_migrations WHERE component = 'ledger'`);
    await client.end();
    expect(rows.map((r) => r.version)).toEqual([1]);
    await again.close();
  });

  it('groups the writes of one turn into one transaction, or splits receipts over concurrent commits', async () => {
    const deps = testDeps(4);
    const batch = (tag: string) =>
      Array.from({ length: 64 }, (_, i) =>
        createBusinessReceipt(businessInput({ lineage: { ...businessInput().lineage, session: `${tag}-${i}` } }), deps),
      );
    for (const [concurrent, commits, largest] of [
      [1, 1, 64],
      [4, 4, 16],
    ] as const) {
      const schema = freshSchema();
      schemas.push(schema);
      const ledger = await PostgresLedger.connect(postgresUrl!, { schema, maxConcurrentGroups: concurrent });
      try {
        const outcomes = await Promise.all(batch(`c${concurrent}`).map((r) => ledger.acceptBusinessReceipt(r)));
        expect(outcomes.every((o) => o.accepted)).toBe(true);
        expect(ledger.writeStats()).toMatchObject({ commits, writes: 64, largestGroup: largest, failures: 0 });
      } finally {
        await ledger.close();
      }
    }
  });

  it('never lets two receipts for one lineage commit side by side: the earlier call wins across groups', async () => {
    const schema = freshSchema();
    schemas.push(schema);
    const ledger = await PostgresLedger.connect(postgresUrl!, { schema, maxConcurrentGroups: 4 });
    try {
      const deps = testDeps(5);
      // Turn after turn, a receipt for one shared lineage among receipts of fresh ones.
      const shared = businessInput().lineage;
      const pending: Promise<unknown>[] = [];
      const sharedReceipts = [];
      for (let turn = 0; turn < 6; turn++) {
        for (let i = 0; i < 20; i++)
          pending.push(
            ledger.acceptBusinessReceipt(createBusinessReceipt(businessInput({ lineage: { ...shared, session: `t${turn}-${i}` } }), deps)),
          );
        const mine = createBusinessReceipt(businessInput({ lineage: shared, requestId: `turn-${turn}` }), deps);
        sharedReceipts.push(mine);
        pending.push(ledger.acceptBusinessReceipt(mine));
        await new Promise((resolve) => setImmediate(resolve));
      }
      await Promise.all(pending);
      expect((await ledger.getBusinessReceipt(shared))?.requestId).toBe('turn-0');
    } finally {
      await ledger.close();
    }
  });

  it('refuses a newer schema than it understands', async () => {
    const schema = freshSchema();
    schemas.push(schema);
    await (await PostgresLedger.connect(postgresUrl!, { schema })).close();
    const client = new pg.Client(postgresUrl!);
    await client.connect();
    await client.query(`INSERT INTO "${schema}".schema_migrations (component, version, summary) VALUES ('ledger', 999, 'from the future')`);
    await client.end();
    const refused = await PostgresLedger.connect(postgresUrl!, { schema }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(GuardError.is(refused) && refused.code).toBe('E_LEDGER_UNAVAILABLE');
    expect((refused as Error).message).toMatch(/version 999, newer than this release understands/);
  });
});

describe('PostgresLedger without a database', () => {
  it('refuses to connect to an unreachable database with E_LEDGER_UNAVAILABLE, naming the host but not the credentials', async () => {
    const url = 'postgres://someone:secret-password@127.0.0.1:1/guard';
    const error = await PostgresLedger.connect(url, { connectTimeoutMs: 2000 }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(GuardError.is(error) && error.code).toBe('E_LEDGER_UNAVAILABLE');
    expect((error as Error).message).toContain('127.0.0.1:1/guard');
    expect((error as Error).message).not.toContain('secret-password');
    expect((error as Error).message).not.toContain('someone');
  });

  it('connects lazily: calls fail closed while the database is unreachable', async () => {
    const ledger = await PostgresLedger.connect('postgres://guard@127.0.0.1:1/guard', {
      lazy: true,
      reconnect: { initialDelayMs: 50, maxDelayMs: 200 },
    });
    try {
      expect(ledger.health().up).toBe(false);
      expect(await codeOf(() => ledger.acceptBusinessReceipt(createBusinessReceipt(businessInput(), testDeps(1))))).toBe(
        'E_LEDGER_UNAVAILABLE',
      );
      expect(await codeOf(() => ledger.listNavigations())).toBe('E_LEDGER_UNAVAILABLE');
    } finally {
      await ledger.close();
    }
  });
});
