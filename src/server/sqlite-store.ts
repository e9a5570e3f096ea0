/**
 * Connect flows in a SQLite file, so the connect page and the callback survive a restart of the
 * server between issuing the URL and the user's callback. WAL mode with `synchronous=FULL`;
 * `takeState`, `complete` and `retire` are single transactions, so one caller wins also when
 * several processes on one machine share the file. `better-sqlite3` is loaded only by `open`.
 */
import type Database from 'better-sqlite3';
import { GuardCode, GuardError } from '../protocol/errors.js';
import type { ConnectCode } from './connect-audit.js';
import { attemptText, flowFromRow, rowValues, type ConnectFlowRow } from './connect-store-codec.js';
import type { ConnectAttempt, ConnectFlow, ConnectFlowStore, StateLookup } from './connect-store.js';

const STEPS: readonly { readonly version: number; readonly sql: string }[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE connect_flows (
        id TEXT PRIMARY KEY,
        elicitation_id TEXT NOT NULL,
        subject TEXT NOT NULL,
        session TEXT,
        purpose TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        status TEXT NOT NULL,
        attempt TEXT,
        live_state TEXT UNIQUE,
        retired_reason TEXT,
        ended_at INTEGER
      ) STRICT;
      CREATE INDEX connect_flows_by_expiry ON connect_flows (expires_at);
      CREATE TABLE connect_used_states (
        digest TEXT PRIMARY KEY,
        flow_id TEXT NOT NULL,
        until INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX connect_used_states_by_expiry ON connect_used_states (until);
    `,
  },
];

const COLUMNS = 'id, elicitation_id, subject, session, purpose, created_at, expires_at, status, attempt, retired_reason, ended_at';

export interface SqliteConnectFlowStoreOptions {
  /** How long a write waits for another connection's lock (default 5000 ms). */
  readonly busyTimeoutMs?: number;
}

export class SqliteConnectFlowStore implements ConnectFlowStore {
  readonly #db: Database.Database;
  readonly #sql;
  readonly #take: (digest: string) => StateLookup;
  readonly #startAttempt: (id: string, attempt: ConnectAttempt) => boolean;
  readonly #retire: (id: string, reason: ConnectCode, at: number) => boolean;
  readonly #sweep: (now: number) => number;
  #closed = false;

  private constructor(db: Database.Database) {
    this.#db = db;
    const sql = {
      insert: db.prepare(
        `INSERT INTO connect_flows (${COLUMNS.replace(
          'retired_reason',
          'live_state, retired_reason',
        )}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      get: db.prepare<[string], ConnectFlowRow>(`SELECT ${COLUMNS} FROM connect_flows WHERE id = ?`),
      byState: db.prepare<[string], ConnectFlowRow & { live_state: string }>(
        `SELECT ${COLUMNS}, live_state FROM connect_flows WHERE live_state = ?`,
      ),
      used: db.prepare<[string], { flow_id: string }>('SELECT flow_id FROM connect_used_states WHERE digest = ?'),
      exists: db.prepare<[string], { one: number }>('SELECT 1 AS one FROM connect_flows WHERE id = ?'),
      tombstone: db.prepare<[string, string, number]>(
        'INSERT OR IGNORE INTO connect_used_states (digest, flow_id, until) VALUES (?, ?, ?)',
      ),
      dropAttempt: db.prepare<[string]>('UPDATE connect_flows SET live_state = NULL, attempt = NULL WHERE id = ?'),
      setAttempt: db.prepare<[string, string, string]>(
        "UPDATE connect_flows SET attempt = ?, live_state = ? WHERE id = ? AND status = 'pending'",
      ),
      complete: db.prepare<[number, string]>(
        "UPDATE connect_flows SET status = 'completed', ended_at = ? WHERE id = ? AND status = 'pending'",
      ),
      retire: db.prepare<[string, number, string]>(
        "UPDATE connect_flows SET status = 'retired', retired_reason = ?, ended_at = ?, live_state = NULL, attempt = NULL " +
          "WHERE id = ? AND status <> 'retired'",
      ),
      sweepFlows: db.prepare<[number]>('DELETE FROM connect_flows WHERE expires_at <= ?'),
      sweepStates: db.prepare<[number]>('DELETE FROM connect_used_states WHERE until <= ?'),
    };
    this.#sql = sql;
    this.#take = db.transaction((digest: string): StateLookup => {
      const row = sql.byState.get(digest);
      if (row !== undefined) {
        const flow = flowFromRow(row);
        sql.tombstone.run(digest, flow.id, flow.expiresAt);
        sql.dropAttempt.run(flow.id);
        return { kind: 'live', flow };
      }
      const used = sql.used.get(digest);
      if (used === undefined) return { kind: 'unknown' };
      return { kind: 'used', flowId: sql.exists.get(used.flow_id) === undefined ? null : used.flow_id };
    }).immediate;
    this.#startAttempt = db.transaction((id: string, attempt: ConnectAttempt): boolean => {
      const row = sql.get.get(id);
      if (row === undefined || row.status !== 'pending') return false;
      const current = flowFromRow(row);
      if (current.attempt !== null) sql.tombstone.run(current.attempt.navigation.stateNonceDigest, id, current.expiresAt);
      return sql.setAttempt.run(attemptText(attempt), attempt.navigation.stateNonceDigest, id).changes === 1;
    }).immediate;
    this.#retire = db.transaction((id: string, reason: ConnectCode, at: number): boolean => {
      const row = sql.get.get(id);
      if (row === undefined || row.status === 'retired') return false;
      const current = flowFromRow(row);
      if (current.attempt !== null) sql.tombstone.run(current.attempt.navigation.stateNonceDigest, id, current.expiresAt);
      return sql.retire.run(reason, at, id).changes === 1;
    }).immediate;
    this.#sweep = db.transaction((now: number): number => {
      sql.sweepStates.run(now);
      return sql.sweepFlows.run(now).changes;
    }).immediate;
  }

  /**
   * Opens (creating if needed) the store in a SQLite file. The file may be the ledger's: the
   * store's tables have their own names and their own version row.
   *
   * @example const store = await SqliteConnectFlowStore.open('/var/lib/my-server/connect.sqlite')
   */
  static async open(path: string, options: SqliteConnectFlowStoreOptions = {}): Promise<SqliteConnectFlowStore> {
    let Driver: typeof Database;
    try {
      Driver = (await import('better-sqlite3')).default;
    } catch (error) {
      throw new GuardError(
        GuardCode.ledgerUnavailable,
        `the SQLite connect flow store needs the optional dependency better-sqlite3 (npm install ` +
          `better-sqlite3): ${(error as Error).message}`,
      );
    }
    let db: Database.Database;
    try {
      db = new Driver(path, { timeout: options.busyTimeoutMs ?? 5000 });
    } catch (error) {
      throw new GuardError(GuardCode.ledgerUnavailable, `cannot open the connect flow store ${path}: ${(error as Error).message}`);
    }
    try {
      if (String(db.pragma('journal_mode = WAL', { simple: true })).toLowerCase() !== 'wal')
        throw new GuardError(GuardCode.ledgerUnavailable, 'the connect flow store needs a file that can use WAL mode');
      db.pragma('synchronous = FULL');
      migrate(db);
      return new SqliteConnectFlowStore(db);
    } catch (error) {
      db.close();
      if (GuardError.is(error)) throw error;
      throw new GuardError(GuardCode.ledgerUnavailable, `cannot use the connect flow store ${path}: ${(error as Error).message}`);
    }
  }

  add(flow: ConnectFlow): void {
    this.#open();
    try {
      this.#sql.insert.run(...rowValues(flow));
    } catch (error) {
      if ((error as { code?: unknown }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') throw new Error('a connect flow with this id exists');
      throw error;
    }
  }

  get(id: string): ConnectFlow | null {
    this.#open();
    const row = this.#sql.get.get(id);
    return row === undefined ? null : flowFromRow(row);
  }

  startAttempt(id: string, attempt: ConnectAttempt): boolean {
    this.#open();
    return this.#startAttempt(id, attempt);
  }

  takeState(stateDigest: string): StateLookup {
    this.#open();
    return this.#take(stateDigest);
  }

  complete(id: string, at: number): boolean {
    this.#open();
    return this.#sql.complete.run(at, id).changes === 1;
  }

  retire(id: string, reason: ConnectCode, at: number): boolean {
    this.#open();
    return this.#retire(id, reason, at);
  }

  sweep(now: number): number {
    this.#open();
    return this.#sweep(now);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#db.close();
  }

  #open(): void {
    if (this.#closed) throw new GuardError(GuardCode.ledgerUnavailable, 'the connect flow store is closed');
  }
}

/** Applies the store's missing steps; its version lives in its own table, so it can share a file with the ledger. */
function migrate(db: Database.Database): void {
  db.transaction(() => {
    db.exec('CREATE TABLE IF NOT EXISTS mcp_guard_components (component TEXT PRIMARY KEY, version INTEGER NOT NULL) STRICT');
    const row = db
      .prepare<[string], { version: number }>('SELECT version FROM mcp_guard_components WHERE component = ?')
      .get('connect-flows');
    const current = row?.version ?? 0;
    const latest = STEPS[STEPS.length - 1]!.version;
    if (current > latest)
      throw new GuardError(
        GuardCode.ledgerUnavailable,
        `the connect flow tables are at version ${current}, newer than this release understands (${latest})`,
      );
    for (const step of STEPS) if (step.version > current) db.exec(step.sql);
    db.prepare(
      'INSERT INTO mcp_guard_components (component, version) VALUES (?, ?) ON CONFLICT (component) DO UPDATE SET version = ' +
        'excluded.version',
    ).run('connect-flows', latest);
  }).immediate();
}
