import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryLedger } from '../../src/ledger/memory.js';
import { ledgerExists, openLedger, parseLedgerSpec } from '../../src/ledger/open.js';
import { SqliteLedger } from '../../src/ledger/sqlite.js';
import { GuardError } from '../../src/protocol/errors.js';
import { tempDir } from './support.js';

describe('openLedger(spec)', () => {
  it("tells memory, PostgreSQL URLs and SQLite paths apart, and never shows a URL's credentials", () => {
    expect(parseLedgerSpec('memory')).toEqual({ kind: 'memory', target: 'memory', display: 'memory' });
    const pg = parseLedgerSpec('postgres://guard:s3cret@db.internal:6543/team');
    expect(pg).toMatchObject({ kind: 'postgres', display: 'postgres db.internal:6543/team' });
    expect(pg.display).not.toContain('s3cret');
    expect(parseLedgerSpec('postgresql://db/guard').kind).toBe('postgres');
    expect(parseLedgerSpec('ledger.sqlite', '/srv/app')).toEqual({
      kind: 'sqlite',
      target: '/srv/app/ledger.sqlite',
      display: '/srv/app/ledger.sqlite',
    });
    for (const bad of ['', '   ']) expect(() => parseLedgerSpec(bad)).toThrow(/ledger spec/);
    expect(() => parseLedgerSpec('postgres://[bad')).toThrow(/not a valid URL/);
  });

  it('opens a memory ledger and a SQLite file (creating its folder when asked), and says whether one exists', async () => {
    const tmp = tempDir();
    try {
      expect(await openLedger('memory')).toBeInstanceOf(MemoryLedger);
      const location = parseLedgerSpec(join('nested', 'dir', 'ledger.sqlite'), tmp.dir);
      expect(ledgerExists(location)).toBe(false);
      const sqlite = await openLedger(location, { createDirectories: true });
      expect(sqlite).toBeInstanceOf(SqliteLedger);
      await sqlite.close();
      expect(ledgerExists(location)).toBe(true);
    } finally {
      tmp.remove();
    }
  });

  it('refuses an unreachable PostgreSQL ledger with E_LEDGER_UNAVAILABLE and no credentials in the message', async () => {
    const error = await openLedger('postgres://guard:s3cret@127.0.0.1:1/team').then(
      () => null,
      (e: unknown) => e,
    );
    expect(GuardError.is(error) && error.code).toBe('E_LEDGER_UNAVAILABLE');
    expect((error as Error).message).not.toContain('s3cret');
  });
});
