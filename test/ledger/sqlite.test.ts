import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBusinessReceipt, createConsentReceipt, createNavigation } from '../../src/flow/records.js';
import { LATEST_VERSION, MIGRATIONS, migrate, schemaVersion } from '../../src/ledger/migrations.js';
import { SqliteLedger } from '../../src/ledger/sqlite.js';
import { GuardError } from '../../src/protocol/errors.js';
import { businessInput, navigationInput, testDeps } from '../flow/support.js';
import { ledgerContract } from './contract.js';
import { tempDir } from './support.js';

ledgerContract('SqliteLedger', async () => {
  const tmp = tempDir();
  const ledger = await SqliteLedger.open(join(tmp.dir, 'ledger.sqlite'));
  return {
    ledger,
    dispose: async () => {
      await ledger.close();
      tmp.remove();
    },
  };
});

async function codeOf(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
  } catch (error) {
    return GuardError.is(error) ? error.code : `not a GuardError: ${(error as Error).message}`;
  }
  return 'no error';
}

describe('SqliteLedger on disk', () => {
  let tmp: ReturnType<typeof tempDir>;
  let file: string;
  const open: SqliteLedger[] = [];
  const openLedger = async (path = file) => {
    const ledger = await SqliteLedger.open(path);
    open.push(ledger);
    return ledger;
  };

  beforeEach(() => {
    tmp = tempDir();
    file = join(tmp.dir, 'ledger.sqlite');
  });
  afterEach(async () => {
    for (const ledger of open.splice(0)) await ledger.close();
    tmp.remove();
  });

  it('runs in WAL mode with synchronous=FULL and foreign keys on, at the latest schema', async () => {
    const ledger = await openLedger();
    expect(ledger.settings()).toEqual({
      path: file,
      journalMode: 'wal',
      synchronous: 'FULL',
      foreignKeys: true,
      schemaVersion: LATEST_VERSION,
    });
  });

  it('keeps everything across a close and reopen', async () => {
    const deps = testDeps(3);
    const first = await openLedger();
    const record = createNavigation(navigationInput(), deps).record;
    await first.putNavigation(record);
    await first.updateFlowState(record.id, 'CREATED', 'USER_REVIEW', 'presented', deps.advance(1));
    const consent = createConsentReceipt(
      { navigationId: record.id, shown: { display: null, findings: [], message: 'm' }, decision: 'accept' },
      deps,
    );
    await first.putConsentReceipt(consent);
    const receipt = createBusinessReceipt(businessInput(), deps);
    await first.acceptBusinessReceipt(receipt);
    await first.close();

    const second = await openLedger();
    expect((await second.getNavigation(record.id))!.flow.state).toBe('USER_REVIEW');
    expect(await second.listConsentReceipts(record.id)).toEqual([consent]);
    expect(await second.acceptBusinessReceipt(createBusinessReceipt(businessInput({ requestId: 99 }), deps))).toEqual({
      accepted: false,
      existing: receipt,
    });
  });

  it('makes a second business receipt for one lineage impossible in the file itself, not only through the API', async () => {
    const ledger = await openLedger();
    await ledger.acceptBusinessReceipt(createBusinessReceipt(businessInput(), testDeps(5)));
    const raw = new Database(file);
    try {
      const lineage = businessInput().lineage;
      const insert = () =>
        raw
          .prepare(
            'INSERT INTO business_receipts (id, session, lineage_kind, original_request_digest, request_id, retry_generation, ' +
              'requirement_receipt_ids, response_digest, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
          )
          .run('br_raw', lineage.session, lineage.kind, lineage.originalRequestDigest, '1', 0, '[]', lineage.originalRequestDigest, 1);
      expect(insert).toThrow(/UNIQUE constraint failed/);
    } finally {
      raw.close();
    }
  });

  it('lets exactly one of two connections on one file accept a lineage', async () => {
    const a = await openLedger();
    const b = await openLedger();
    const deps = testDeps(9);
    const receipts = Array.from({ length: 10 }, (_, i) => createBusinessReceipt(businessInput({ requestId: i }), deps));
    const outcomes = await Promise.all(receipts.map((r, i) => (i % 2 === 0 ? a : b).acceptBusinessReceipt(r)));
    expect(outcomes.filter((o) => o.accepted)).toHaveLength(1);
    expect(await a.getBusinessReceipt(receipts[0]!.lineage)).toEqual(await b.getBusinessReceipt(receipts[0]!.lineage));
  });

  it('lets exactly one of two connections win a compare-and-set on a flow', async () => {
    const a = await openLedger();
    const b = await openLedger();
    const deps = testDeps(10);
    const record = createNavigation(navigationInput(), deps).record;
    await a.putNavigation(record);
    await b.updateFlowState(record.id, 'CREATED', 'USER_REVIEW', 'presented', deps.advance(1));
    const [fromA, fromB] = await Promise.all([
      a.updateFlowState(record.id, 'USER_REVIEW', 'NAVIGATION_ACCEPTED', 'user-accepted', deps.advance(1)),
      b.updateFlowState(record.id, 'USER_REVIEW', 'DECLINED', 'user-declined', deps.advance(1)),
    ]);
    expect([fromA.updated, fromB.updated].filter(Boolean)).toHaveLength(1);
  });

  it('accepts a batch in one transaction with the outcome each would get alone', async () => {
    const ledger = await openLedger();
    const deps = testDeps(11);
    const other = { ...businessInput().lineage, session: 'session-2' };
    const batch = [
      createBusinessReceipt(businessInput(), deps),
      createBusinessReceipt(businessInput({ requestId: 2 }), deps),
      createBusinessReceipt(businessInput({ lineage: other }), deps),
    ];
    expect(await ledger.acceptBusinessReceipts(batch)).toEqual([
      { accepted: true },
      { accepted: false, existing: batch[0] },
      { accepted: true },
    ]);
    // All or nothing: a reused receipt id fails the batch, and the fresh receipt before it is not kept.
    const fresh = createBusinessReceipt(businessInput({ lineage: { ...other, session: 'session-3' } }), deps);
    const reusedId = { ...batch[2]!, lineage: { ...other, session: 'session-4' } };
    expect(await codeOf(() => ledger.acceptBusinessReceipts([fresh, reusedId]))).toBe('E_DUPLICATE_RECORD');
    expect(await ledger.getBusinessReceipt(fresh.lineage)).toBeNull();
  });

  it('refuses a file written by a newer release', async () => {
    const raw = new Database(file);
    raw.pragma(`user_version = ${LATEST_VERSION + 1}`);
    raw.close();
    expect(await codeOf(() => SqliteLedger.open(file))).toBe('E_LEDGER_UNAVAILABLE');
  });

  it('refuses a file that is not SQLite with a clear code', async () => {
    writeFileSync(file, 'this is not a database, it is a text file that is long enough to have a header'.repeat(20));
    expect(await codeOf(() => SqliteLedger.open(file))).toBe('E_LEDGER_UNAVAILABLE');
  });

  it('refuses a corrupt stored record instead of returning it', async () => {
    const ledger = await openLedger();
    const record = createNavigation(navigationInput(), testDeps(12)).record;
    await ledger.putNavigation(record);
    const raw = new Database(file);
    raw.prepare('UPDATE navigations SET record = ? WHERE id = ?').run(JSON.stringify({ ...record, schema: 'something-else' }), record.id);
    raw.close();
    expect(await codeOf(() => ledger.getNavigation(record.id))).toBe('E_LEDGER_UNAVAILABLE');
  });
});

describe('schema migrations', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => {
    tmp = tempDir();
  });
  afterEach(() => tmp.remove());

  it('numbers its steps 1, 2, … in order', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    expect(LATEST_VERSION).toBe(MIGRATIONS.length);
  });

  it('upgrades a file written by the first migration only, keeping its data', async () => {
    const file = join(tmp.dir, 'v1.sqlite');
    const deps = testDeps(21);
    const record = createNavigation(navigationInput(), deps).record;
    const consent = createConsentReceipt(
      { navigationId: record.id, shown: { display: null, findings: [], message: 'm' }, decision: 'accept' },
      deps,
    );
    const receipt = createBusinessReceipt(businessInput(), deps);
    const pendingSince = record.createdAt + 50;

    // Written the way release 1 wrote it: schema v1, no flow history table.
    const raw = new Database(file);
    raw.pragma('journal_mode = WAL');
    expect(migrate(raw, 1)).toBe(1);
    expect(schemaVersion(raw)).toBe(1);
    raw
      .prepare(
        'INSERT INTO navigations (id, elicitation_id, server_key, state, flow_trigger, created_at, expires_at, updated_at, ' +
          'record) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        record.id,
        record.elicitationId,
        record.server.key,
        'OUT_OF_BAND_PENDING',
        'navigation-opened',
        record.createdAt,
        record.expiresAt,
        pendingSince,
        JSON.stringify(record),
      );
    raw
      .prepare('INSERT INTO consent_receipts (id, navigation_id, decision, at, record) VALUES (?, ?, ?, ?, ?)')
      .run(consent.id, record.id, consent.decision, consent.at, JSON.stringify(consent));
    raw
      .prepare('INSERT INTO business_receipts (id, session, lineage_kind, original_request_digest, at, record) VALUES (?, ?, ?, ?, ?, ?)')
      .run(
        receipt.id,
        receipt.lineage.session,
        receipt.lineage.kind,
        receipt.lineage.originalRequestDigest,
        receipt.at,
        JSON.stringify(receipt),
      );
    expect(raw.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'flow_transitions'").get()).toEqual({ n: 0 });
    raw.close();

    const ledger = await SqliteLedger.open(file);
    try {
      expect(ledger.settings().schemaVersion).toBe(LATEST_VERSION);
      const stored = await ledger.getNavigation(record.id);
      expect(stored).toEqual({
        record,
        flow: {
          id: record.id,
          state: 'OUT_OF_BAND_PENDING',
          trigger: 'navigation-opened',
          createdAt: record.createdAt,
          updatedAt: pendingSince,
        },
      });
      expect(await ledger.listTransitions(record.id)).toEqual([
        { navigationId: record.id, from: null, to: 'OUT_OF_BAND_PENDING', trigger: null, at: pendingSince },
      ]);
      expect((await ledger.listNavigations({ state: 'OUT_OF_BAND_PENDING' })).map((s) => s.record.id)).toEqual([record.id]);
      expect(await ledger.listConsentReceipts(record.id)).toEqual([consent]);
      expect(await ledger.acceptBusinessReceipt(createBusinessReceipt(businessInput({ requestId: 5 }), deps))).toEqual({
        accepted: false,
        existing: receipt,
      });
      const recovered = await ledger.updateFlowState(record.id, 'OUT_OF_BAND_PENDING', 'USER_RETRY', 'manual-recovery', pendingSince + 1);
      expect(recovered.updated).toBe(true);
      expect(await ledger.listTransitions(record.id)).toHaveLength(2);
    } finally {
      await ledger.close();
    }
  });

  it('moves business receipts written by schema 2 to the sequential layout, keeping every record, its order and both unique keys', async () => {
    const file = join(tmp.dir, 'v2.sqlite');
    const deps = testDeps(22);
    // Receipts of release 2: random ids, every kind of JSON-RPC id, the JSON copy as the only place of the other fields.
    const old = [
      createBusinessReceipt(businessInput({ requestId: 7 }), deps),
      createBusinessReceipt(
        businessInput({ requestId: 'req "quoted" \\ 1', lineage: { ...businessInput().lineage, session: 's-2' } }),
        deps,
      ),
      createBusinessReceipt(
        businessInput({
          requestId: 0.30000000000000004,
          retryGeneration: 3,
          requirementReceiptIds: ['cr_a', 'cr_b'],
          lineage: { ...businessInput().lineage, kind: 'error-retry' },
        }),
        deps,
      ),
    ].map((r, i) => ({ ...r, id: `br_${String(9 - i).repeat(32)}` }));
    const raw = new Database(file);
    raw.pragma('journal_mode = WAL');
    expect(migrate(raw, 2)).toBe(2);
    const insert = raw.prepare(
      'INSERT INTO business_receipts (id, session, lineage_kind, original_request_digest, at, record) VALUES (?, ?, ?, ?, ?, ?)',
    );
    for (const r of old) insert.run(r.id, r.lineage.session, r.lineage.kind, r.lineage.originalRequestDigest, r.at, JSON.stringify(r));
    raw.close();

    const ledger = await SqliteLedger.open(file);
    try {
      expect(ledger.settings().schemaVersion).toBe(LATEST_VERSION);
      for (const r of old) expect(await ledger.getBusinessReceipt(r.lineage)).toEqual(r);
      // Uniqueness per lineage and per receipt id holds for the migrated rows.
      for (const r of old)
        expect(
          await ledger.acceptBusinessReceipt(createBusinessReceipt({ ...businessInput({ requestId: 99 }), lineage: r.lineage }, deps)),
        ).toEqual({ accepted: false, existing: r });
      const reused = { ...old[0]!, lineage: { ...old[0]!.lineage, session: 'another' } };
      expect(await codeOf(() => ledger.acceptBusinessReceipt(reused))).toBe('E_DUPLICATE_RECORD');
      const fresh = createBusinessReceipt(businessInput({ lineage: { ...businessInput().lineage, session: 'new' } }), deps);
      expect(await ledger.acceptBusinessReceipt(fresh)).toEqual({ accepted: true });
    } finally {
      await ledger.close();
    }
    const after = new Database(file, { readonly: true });
    try {
      // Rows keep the order they were written in; the JSON copy is gone.
      expect(
        after
          .prepare('SELECT id FROM business_receipts ORDER BY seq')
          .all()
          .map((row) => (row as { id: string }).id),
      ).toEqual([...old.map((r) => r.id), expect.stringMatching(/^br_/)]);
      expect(after.prepare("SELECT count(*) AS n FROM pragma_table_info('business_receipts') WHERE name = 'record'").get()).toEqual({
        n: 0,
      });
    } finally {
      after.close();
    }
  });

  it('opens an up-to-date file without touching it again', async () => {
    const file = join(tmp.dir, 'same.sqlite');
    await (await SqliteLedger.open(file)).close();
    const raw = new Database(file);
    const before = raw.prepare('SELECT count(*) AS n FROM sqlite_master').get();
    raw.close();
    const again = await SqliteLedger.open(file);
    expect(again.settings().schemaVersion).toBe(LATEST_VERSION);
    await again.close();
    const after = new Database(file);
    expect(after.prepare('SELECT count(*) AS n FROM sqlite_master').get()).toEqual(before);
    after.close();
  });
});

describe('loading better-sqlite3', () => {
  it('happens only when a SqliteLedger is opened, not when the ledger module is imported', () => {
    const script = `
      const { createRequire } = await import('node:module');
      const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes('better-sqlite3'));
      const { SqliteLedger, MemoryLedger } = await import('./src/ledger/index.ts');
      await import('./src/cli/ledger.ts');
      const afterImport = loaded();
      new MemoryLedger();
      const ledger = await SqliteLedger.open(':memory:').catch((e) => e);
      console.log(JSON.stringify({ afterImport, afterOpen: loaded(), code: ledger.code ?? null }));
    `;
    const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: process.cwd(),
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.stderr).toBe('');
    // An in-memory database cannot use WAL, so the open itself is refused after loading the driver.
    expect(JSON.parse(result.stdout.trim())).toEqual({ afterImport: false, afterOpen: true, code: 'E_LEDGER_UNAVAILABLE' });
  });
});
