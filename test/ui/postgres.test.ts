/**
 * The query page over a PostgresLedger: the flows, one flow with its business receipt, and the
 * manual controls through the shared database. Runs where PostgreSQL is available (CI starts it).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresLedger } from '../../src/ledger/postgres.js';
import { startQueryPage } from '../../src/ui/server.js';
import { dropSchema, freshSchema, postgresUrl } from '../ledger/postgres-support.js';
import { seedLedger } from './support/seed.js';

const schemas: string[] = [];
afterAll(async () => {
  for (const schema of schemas) await dropSchema(schema);
});

describe.skipIf(postgresUrl === null)('query page over PostgreSQL', () => {
  it('lists, shows and moves flows in the shared database', async () => {
    const schema = freshSchema('ui');
    schemas.push(schema);
    const seeding = await PostgresLedger.connect(postgresUrl!, { schema });
    const seeded = await seedLedger(seeding);
    await seeded.close();
    await seeding.close();

    // Another process's view of the same database: a fresh connection, no guard.
    const ledger = await PostgresLedger.connect(postgresUrl!, { schema });
    const page = await startQueryPage({ ledger });
    try {
      const login = await fetch(page.accessUrl, { redirect: 'manual' });
      const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
      const get = async (path: string) => (await fetch(page.url + path, { headers: { cookie } })).text();
      const flows = await get('/');
      for (const id of Object.values(seeded.ids)) expect(flows).toContain(`href="/flows/${id}"`);
      const completed = await get(`/flows/${seeded.ids.completed}`);
      expect(completed).toMatch(/<h2>Business receipt<\/h2>\s*<dl class="record">/);
      expect(completed).toContain('nested (inside the original request)');

      const detail = await get(`/flows/${seeded.ids.pending}`);
      const csrf = /name="csrf" value="([^"]+)"/.exec(detail)![1]!;
      const confirmed = await fetch(`${page.url}/flows/${seeded.ids.pending}/confirm`, {
        method: 'POST',
        headers: { cookie, accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf }).toString(),
      });
      expect(await confirmed.json()).toEqual({ ok: true, from: 'OUT_OF_BAND_PENDING', state: 'REQUIREMENT_VERIFIED', via: 'ledger' });
      expect((await ledger.getNavigation(seeded.ids.pending))!.flow.state).toBe('REQUIREMENT_VERIFIED');
    } finally {
      await page.close();
      await ledger.close();
    }
  }, 60_000);
});
