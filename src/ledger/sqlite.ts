/**
 * The durable ledger: one SQLite file in WAL mode with `synchronous=FULL`, so a commit that
 * returned survives a crash of the process or the machine. `better-sqlite3` is loaded only by
 * `SqliteLedger.open`, so hosts that do not choose SQLite never load it.
 *
 * At most one business receipt per lineage key is a UNIQUE constraint of the file, not a check
 * in memory: it holds for any number of guard instances (connections) sharing the file.
 *
 * Writes are group-committed (see group-commit.ts): every write submitted in one event-loop turn
 * goes into one `BEGIN IMMEDIATE` transaction, in call order, each in its own savepoint, so one
 * fsync covers the group and a write that fails on its own (a duplicate id, an unknown navigation)
 * is undone and answered alone. A write's promise settles only after that transaction committed.
 */
import type Database from 'better-sqlite3';
import {
  BUSINESS_SCHEMA,
  parseBusinessReceipt,
  parseConsentReceipt,
  parseLineageKey,
  parseNavigationRecord,
  type BusinessReceipt,
  type ConsentReceipt,
  type LineageKey,
  type NavigationRecord,
} from '../flow/records.js';
import { transition, type FlowState, type FlowTrigger } from '../flow/states.js';
import { GuardCode, GuardError } from '../protocol/errors.js';
import { checkDigest, checkMove, checkQuery, closedError, duplicateRecord, unknownNavigation } from './checks.js';
import { GroupCommitter, type GroupCommitStats, type Settled } from './group-commit.js';
import { migrate, schemaVersion } from './migrations.js';
import { rowReader, type NavigationRow, type TransitionRow } from './rows.js';
import type { AcceptOutcome, FlowTransition, FlowUpdate, Ledger, NavigationQuery, StoredNavigation } from './types.js';

export interface SqliteLedgerOptions {
  /** How long a write waits for another connection's lock before failing (default 5000 ms). */
  readonly busyTimeoutMs?: number;
  /**
   * At most this many writes per transaction (default 256). A burst larger than this is written
   * as several transactions, so no caller waits behind the whole burst and the write lock is
   * never held for long.
   */
  readonly maxGroupSize?: number;
  /**
   * How a burst is cut into transactions (default `'adaptive'`): `'adaptive'` starts at 64 writes
   * and follows the measured time per write between 16 and `maxGroupSize` (see group-commit.ts);
   * `'fixed'` always cuts at `maxGroupSize`.
   */
  readonly groupSizing?: 'adaptive' | 'fixed';
}

export const DEFAULT_MAX_GROUP_SIZE = 256;
/** Where adaptive group sizing starts: measured on a 2-core machine, 64-write groups beat 256. */
export const INITIAL_GROUP_SIZE = 64;
const MIN_GROUP_SIZE = 16;

export interface SqliteLedgerSettings {
  readonly path: string;
  readonly journalMode: string;
  readonly synchronous: 'OFF' | 'NORMAL' | 'FULL' | 'EXTRA';
  readonly foreignKeys: boolean;
  readonly schemaVersion: number;
}

interface BusinessRow {
  id: string;
  session: string;
  lineage_kind: string;
  original_request_digest: string;
  request_id: string;
  retry_generation: number;
  requirement_receipt_ids: string;
  response_digest: string;
  at: number;
}

const businessColumns =
  'id, session, lineage_kind, original_request_digest, request_id, retry_generation, requirement_receipt_ids, response_digest, at';

type Db = Database.Database;

function prepare(db: Db) {
  const navigationColumns = 'id, state, flow_trigger, created_at, updated_at, record';
  return {
    insertNavigation: db.prepare<[string, string, string | null, string, number, number, number, string]>(
      'INSERT INTO navigations (id, elicitation_id, server_key, state, flow_trigger, created_at, expires_at, updated_at, ' +
        'record) VALUES (?, ?, ?, ?, NULL, ?, ?, ?, ?)',
    ),
    getNavigation: db.prepare<[string], NavigationRow>(`SELECT ${navigationColumns} FROM navigations WHERE id = ?`),
    listAll: db.prepare<[number], NavigationRow>(`SELECT ${navigationColumns} FROM navigations ORDER BY created_at DESC, id DESC LIMIT ?`),
    listByState: db.prepare<[string, number], NavigationRow>(
      `SELECT ${navigationColumns} FROM navigations WHERE state = ? ORDER BY created_at DESC, id DESC LIMIT ?`,
    ),
    setState: db.prepare<[string, string, number, string, string]>(
      'UPDATE navigations SET state = ?, flow_trigger = ?, updated_at = ? WHERE id = ? AND state = ?',
    ),
    insertTransition: db.prepare<[string, string | null, string, string | null, number]>(
      'INSERT INTO flow_transitions (navigation_id, from_state, to_state, flow_trigger, at) VALUES (?, ?, ?, ?, ?)',
    ),
    listTransitions: db.prepare<[string], TransitionRow>(
      'SELECT navigation_id, from_state, to_state, flow_trigger, at FROM flow_transitions WHERE navigation_id = ? ORDER BY seq',
    ),
    navigationExists: db.prepare<[string], { one: number }>('SELECT 1 AS one FROM navigations WHERE id = ?'),
    insertConsent: db.prepare<[string, string, string, number, string]>(
      'INSERT INTO consent_receipts (id, navigation_id, decision, at, record) VALUES (?, ?, ?, ?, ?)',
    ),
    listConsents: db.prepare<[string], { record: string }>(
      'SELECT record FROM consent_receipts WHERE navigation_id = ? ORDER BY at, rowid',
    ),
    insertBusiness: db.prepare<[string, string, string, string, string, number, string, string, number]>(
      `INSERT INTO business_receipts (id, session, lineage_kind, original_request_digest, request_id, retry_generation, ` +
        `requirement_receipt_ids, response_digest, at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (session, lineage_kind, original_request_digest) DO NOTHING`,
    ),
    getBusiness: db.prepare<[string, string, string], BusinessRow>(
      `SELECT ${businessColumns} FROM business_receipts WHERE session = ? AND lineage_kind = ? AND original_request_digest = ?`,
    ),
    endedRequirement: db.prepare<[string], { id: string; state: 'CANCELLED' | 'DECLINED' }>(
      `SELECT n.id AS id, n.state AS state FROM consent_receipts c JOIN navigations n ON n.id = c.navigation_id
       WHERE c.id IN (SELECT value FROM json_each(?)) AND n.state IN ('CANCELLED', 'DECLINED') LIMIT 1`,
    ),
    listBusinessByDigest: db.prepare<[string], BusinessRow>(
      `SELECT ${businessColumns} FROM business_receipts WHERE original_request_digest = ? ORDER BY at, seq`,
    ),
  };
}

type Statements = ReturnType<typeof prepare>;

export class SqliteLedger implements Ledger {
  readonly #db: Db;
  readonly #path: string;
  readonly #sql: Statements;
  readonly #writes: GroupCommitter;
  // Each runs in a savepoint of the group's transaction: a write that throws is undone alone.
  readonly #accept: (receipt: BusinessReceipt) => AcceptOutcome;
  readonly #acceptMany: (receipts: readonly BusinessReceipt[]) => AcceptOutcome[];
  readonly #update: (id: string, from: FlowState, to: FlowState, trigger: FlowTrigger, at: number) => FlowUpdate;
  readonly #putNavigation: (record: NavigationRecord) => void;
  readonly #putConsent: (receipt: ConsentReceipt) => void;
  #closed = false;

  private constructor(db: Db, path: string, maxGroupSize: number, sizing: 'adaptive' | 'fixed') {
    this.#db = db;
    this.#path = path;
    const sql = prepare(db);
    this.#sql = sql;
    const acceptOne = (receipt: BusinessReceipt): AcceptOutcome => {
      const { session, kind, originalRequestDigest } = receipt.lineage;
      // In the group's transaction (the write lock held): a flow the receipt rests on that another
      // connection ended is seen here, or ends after this commits.
      if (receipt.requirementReceiptIds.length > 0) {
        const ended = sql.endedRequirement.get(JSON.stringify(receipt.requirementReceiptIds));
        if (ended !== undefined) {
          const row = sql.getBusiness.get(session, kind, originalRequestDigest);
          if (row !== undefined) return { accepted: false, existing: businessOf(row) };
          return { accepted: false, existing: null, endedFlow: { navigationId: ended.id, state: ended.state } };
        }
      }
      const inserted = sql.insertBusiness.run(
        receipt.id,
        session,
        kind,
        originalRequestDigest,
        JSON.stringify(receipt.requestId),
        receipt.retryGeneration,
        JSON.stringify(receipt.requirementReceiptIds),
        receipt.responseDigest,
        receipt.at,
      );
      if (inserted.changes === 1) return { accepted: true };
      // Reads this transaction's own earlier writes too: a second receipt for a lineage in the same group sees the first.
      const row = sql.getBusiness.get(session, kind, originalRequestDigest);
      if (row === undefined) throw corrupt('a business receipt conflicted but cannot be read back');
      return { accepted: false, existing: businessOf(row) };
    };
    // One statement, so no savepoint: a failing INSERT is undone by SQLite alone (statement
    // rollback) and the group's transaction goes on. The lineage conflict is the upsert target
    // (answered, not failed); the only other unique key is the receipt id.
    this.#accept = (receipt: BusinessReceipt) => {
      try {
        return acceptOne(receipt);
      } catch (error) {
        if (isConstraint(error, 'SQLITE_CONSTRAINT_UNIQUE')) throw duplicateRecord('business receipt', receipt.id);
        throw error;
      }
    };
    this.#acceptMany = db.transaction((receipts: readonly BusinessReceipt[]) => {
      try {
        return receipts.map(acceptOne);
      } catch (error) {
        if (isConstraint(error, 'SQLITE_CONSTRAINT_UNIQUE'))
          throw new GuardError(GuardCode.duplicateRecord, 'a business receipt id in the batch is already in the ledger');
        throw error;
      }
    });
    this.#putNavigation = db.transaction((record: NavigationRecord) => {
      try {
        sql.insertNavigation.run(
          record.id,
          record.elicitationId,
          record.server.key,
          'CREATED',
          record.createdAt,
          record.expiresAt,
          record.createdAt,
          JSON.stringify(record),
        );
      } catch (error) {
        if (isConstraint(error, 'SQLITE_CONSTRAINT_PRIMARYKEY')) throw duplicateRecord('navigation record', record.id);
        throw error;
      }
      sql.insertTransition.run(record.id, null, 'CREATED', null, record.createdAt);
    });
    this.#putConsent = db.transaction((receipt: ConsentReceipt) => {
      if (sql.navigationExists.get(receipt.navigationId) === undefined) throw unknownNavigation(receipt.navigationId);
      try {
        sql.insertConsent.run(receipt.id, receipt.navigationId, receipt.decision, receipt.at, JSON.stringify(receipt));
      } catch (error) {
        if (isConstraint(error, 'SQLITE_CONSTRAINT_PRIMARYKEY')) throw duplicateRecord('consent receipt', receipt.id);
        throw error;
      }
    });
    this.#update = db.transaction((id: string, from: FlowState, to: FlowState, trigger: FlowTrigger, at: number): FlowUpdate => {
      const row = sql.getNavigation.get(id);
      if (row === undefined) return { updated: false, reason: 'unknown-navigation', current: null };
      const current = flowOf(row);
      if (current.state !== from) return { updated: false, reason: 'state-conflict', current };
      const next = transition(current, to, trigger, at);
      sql.setState.run(to, trigger, at, id, from);
      sql.insertTransition.run(id, from, to, trigger, at);
      return { updated: true, flow: next };
    });
    // IMMEDIATE takes the write lock at BEGIN, so a second connection waits instead of failing mid-way.
    const commitGroup = db.transaction((writes: readonly (() => unknown)[]): Settled[] => writes.map(runOwnWrite)).immediate;
    this.#writes = new GroupCommitter(
      (writes) => {
        try {
          return commitGroup(writes);
        } catch (error) {
          throw groupFailure(error, writes.length);
        }
      },
      maxGroupSize,
      sizing === 'fixed' ? null : { initial: INITIAL_GROUP_SIZE, min: MIN_GROUP_SIZE, now: () => performance.now() },
    );
  }

  /**
   * Opens (creating if needed) a ledger file and brings its schema up to date. A file is required:
   * `:memory:` cannot run in WAL mode and is refused (use `MemoryLedger` for a ledger in memory).
   *
   * @example const ledger = await SqliteLedger.open('/var/lib/app/ledger.sqlite')
   */
  static async open(path: string, options: SqliteLedgerOptions = {}): Promise<SqliteLedger> {
    const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
    if (!Number.isSafeInteger(busyTimeoutMs) || busyTimeoutMs < 0)
      throw new GuardError(GuardCode.recordInvalid, 'busyTimeoutMs must be a non-negative integer');
    const maxGroupSize = options.maxGroupSize ?? DEFAULT_MAX_GROUP_SIZE;
    if (!Number.isSafeInteger(maxGroupSize) || maxGroupSize < 1)
      throw new GuardError(GuardCode.recordInvalid, 'maxGroupSize must be a positive integer');
    const sizing = options.groupSizing ?? 'adaptive';
    if (sizing !== 'adaptive' && sizing !== 'fixed')
      throw new GuardError(GuardCode.recordInvalid, 'groupSizing must be "adaptive" or "fixed"');
    let Driver: typeof Database;
    try {
      Driver = (await import('better-sqlite3')).default;
    } catch (error) {
      throw new GuardError(
        GuardCode.ledgerUnavailable,
        `the SQLite ledger needs the optional dependency better-sqlite3 (npm install better-sqlite3): ${(error as Error).message}`,
      );
    }
    let db: Db;
    try {
      db = new Driver(path, { timeout: busyTimeoutMs });
    } catch (error) {
      throw new GuardError(GuardCode.ledgerUnavailable, `cannot open the ledger file ${path}: ${(error as Error).message}`);
    }
    try {
      configure(db);
      migrate(db);
      return new SqliteLedger(db, path, maxGroupSize, sizing);
    } catch (error) {
      db.close();
      if (GuardError.is(error)) throw error;
      throw new GuardError(GuardCode.ledgerUnavailable, `cannot use the ledger file ${path}: ${(error as Error).message}`);
    }
  }

  async putNavigation(record: NavigationRecord): Promise<StoredNavigation> {
    this.#open();
    const checked = parseNavigationRecord(record);
    await this.#writes.submit(() => this.#putNavigation(checked));
    return Object.freeze({
      record: checked,
      flow: Object.freeze({ id: checked.id, state: 'CREATED', trigger: null, createdAt: checked.createdAt, updatedAt: checked.createdAt }),
    });
  }

  async getNavigation(id: string): Promise<StoredNavigation | null> {
    this.#open();
    const row = this.#sql.getNavigation.get(id);
    return row === undefined ? null : storedOf(row);
  }

  async listNavigations(query?: NavigationQuery): Promise<readonly StoredNavigation[]> {
    this.#open();
    const limit = checkQuery(query) ?? -1;
    const rows = query?.state === undefined ? this.#sql.listAll.all(limit) : this.#sql.listByState.all(query.state, limit);
    return Object.freeze(rows.map(storedOf));
  }

  async updateFlowState(id: string, from: FlowState, to: FlowState, trigger: FlowTrigger, at: number): Promise<FlowUpdate> {
    this.#open();
    checkMove(from, to, trigger, at);
    return this.#writes.submit(() => this.#update(id, from, to, trigger, at));
  }

  async listTransitions(navigationId: string): Promise<readonly FlowTransition[]> {
    this.#open();
    return Object.freeze(this.#sql.listTransitions.all(navigationId).map(transitionOf));
  }

  async putConsentReceipt(receipt: ConsentReceipt): Promise<void> {
    this.#open();
    const checked = parseConsentReceipt(receipt);
    await this.#writes.submit(() => this.#putConsent(checked));
  }

  async listConsentReceipts(navigationId: string): Promise<readonly ConsentReceipt[]> {
    this.#open();
    return Object.freeze(this.#sql.listConsents.all(navigationId).map((row) => parseStored(parseConsentReceipt, row.record)));
  }

  /**
   * Resolves once the transaction holding the receipt has committed (and been fsynced). Receipts
   * submitted in the same event-loop turn share that transaction and are decided in call order:
   * of two for one lineage, the first is accepted and the second answered with the first.
   * Rejects with `E_DUPLICATE_RECORD` (a known receipt id) for this receipt alone; with
   * `E_LEDGER_UNAVAILABLE` for every receipt of the group when the transaction itself failed.
   */
  async acceptBusinessReceipt(receipt: BusinessReceipt): Promise<AcceptOutcome> {
    this.#open();
    const checked = parseBusinessReceipt(receipt);
    return this.#writes.submit(() => this.#accept(checked));
  }

  /**
   * Accepts several receipts as one write: each gets the outcome it would get alone, in order.
   * All or nothing: if one fails (a duplicate receipt id), none is stored.
   */
  async acceptBusinessReceipts(receipts: readonly BusinessReceipt[]): Promise<readonly AcceptOutcome[]> {
    this.#open();
    const checked = receipts.map(parseBusinessReceipt);
    return Object.freeze(await this.#writes.submit(() => this.#acceptMany(checked)));
  }

  async getBusinessReceipt(key: LineageKey): Promise<BusinessReceipt | null> {
    this.#open();
    const checked = parseLineageKey(key);
    const row = this.#sql.getBusiness.get(checked.session, checked.kind, checked.originalRequestDigest);
    return row === undefined ? null : businessOf(row);
  }

  async listBusinessReceipts(originalRequestDigest: string): Promise<readonly BusinessReceipt[]> {
    this.#open();
    checkDigest(originalRequestDigest);
    return Object.freeze(this.#sql.listBusinessByDigest.all(originalRequestDigest).map(businessOf));
  }

  /** The settings this connection runs with, as SQLite reports them (for diagnostics and tests). */
  settings(): SqliteLedgerSettings {
    this.#open();
    const synchronous = this.#db.pragma('synchronous', { simple: true }) as number;
    return Object.freeze({
      path: this.#path,
      journalMode: String(this.#db.pragma('journal_mode', { simple: true })),
      synchronous: (['OFF', 'NORMAL', 'FULL', 'EXTRA'] as const)[synchronous] ?? 'OFF',
      foreignKeys: this.#db.pragma('foreign_keys', { simple: true }) === 1,
      schemaVersion: schemaVersion(this.#db),
    });
  }

  /** How the writes of this connection were grouped so far (for diagnostics, tests and the benchmark). */
  writeStats(): GroupCommitStats {
    return this.#writes.stats();
  }

  /** The number of writes a burst is cut at now (adaptive sizing moves it; for diagnostics and the benchmark). */
  groupSize(): number {
    return this.#writes.groupSize();
  }

  /** Writes what is still queued (each caller gets its answer), then closes the file. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#writes.drain();
    this.#db.close();
  }

  #open(): void {
    if (this.#closed) throw closedError();
  }
}

/**
 * One write of a group, in its savepoint. A GuardError or a constraint violation belongs to this
 * write alone: SQLite has undone only the statement (and the savepoint the rest of the write), the
 * transaction is intact, so the group goes on. Anything else (busy, I/O, disk full, a bug) fails
 * the group.
 */
function runOwnWrite(write: () => unknown): Settled {
  try {
    return { ok: true, value: write() };
  } catch (error) {
    if (GuardError.is(error)) return { ok: false, error };
    if (isConstraintError(error))
      return {
        ok: false,
        error: new GuardError(GuardCode.ledgerUnavailable, `the ledger refused a write (${(error as { code: string }).code})`),
      };
    throw error;
  }
}

/**
 * SQLite's own failures (busy, I/O, corruption) surface as one GuardError for every caller in the
 * group. The transaction was rolled back; only when COMMIT itself failed on I/O can a write have
 * reached the disk regardless, which a caller re-submitting the same receipt then learns from
 * `{ accepted: false, existing }` carrying its own receipt id.
 */
function groupFailure(error: unknown, writes: number): GuardError {
  if (GuardError.is(error)) return error;
  const code = (error as { code?: unknown } | null)?.code;
  return new GuardError(
    GuardCode.ledgerUnavailable,
    `the ledger could not commit a group of ${writes} write${writes === 1 ? '' : 's'} (${
      typeof code === 'string' ? code : 'error'
    }): ${(error as Error).message}`,
  );
}

function configure(db: Db): void {
  const mode = db.pragma('journal_mode = WAL', { simple: true });
  if (String(mode).toLowerCase() !== 'wal')
    throw new GuardError(GuardCode.ledgerUnavailable, `the ledger file cannot use WAL mode (got ${String(mode)})`);
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
}

function isConstraint(error: unknown, code: string): boolean {
  return (error as { code?: unknown } | null)?.code === code;
}

function isConstraintError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_CONSTRAINT');
}

function corrupt(message: string): GuardError {
  return new GuardError(GuardCode.ledgerUnavailable, `the ledger file is corrupt: ${message}`);
}

const { parseStored, flowOf, storedOf, transitionOf } = rowReader(corrupt);

function storedJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw corrupt(`a stored ${what} is not JSON`);
  }
}

/** A business receipt from its columns, validated as any record read back. */
function businessOf(row: BusinessRow): BusinessReceipt {
  const value = {
    schema: BUSINESS_SCHEMA,
    id: row.id,
    lineage: { session: row.session, kind: row.lineage_kind, originalRequestDigest: row.original_request_digest },
    requestId: storedJson(row.request_id, 'request id'),
    retryGeneration: row.retry_generation,
    requirementReceiptIds: storedJson(row.requirement_receipt_ids, 'list of requirement receipts'),
    responseDigest: row.response_digest,
    at: row.at,
  };
  try {
    return parseBusinessReceipt(value);
  } catch (error) {
    throw corrupt((error as Error).message);
  }
}
