/**
 * The SQLite ledger's schema, as an ordered list of steps. `PRAGMA user_version` holds the
 * number of the last step applied; opening a file applies the missing steps in one transaction,
 * so a file is always at exactly one version. Steps are append-only: a released step is never
 * edited, a change is a new step.
 */
import type Database from 'better-sqlite3';
import { GuardCode, GuardError } from '../protocol/errors.js';

export interface Migration {
  readonly version: number;
  readonly summary: string;
  readonly sql: string;
}

export const MIGRATIONS: readonly Migration[] = Object.freeze([
  Object.freeze({
    version: 1,
    summary: 'navigation records with their flow state, consent receipts, business receipts unique per lineage',
    sql: `
      CREATE TABLE navigations (
        id TEXT PRIMARY KEY,
        elicitation_id TEXT NOT NULL,
        server_key TEXT,
        state TEXT NOT NULL,
        flow_trigger TEXT,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        record TEXT NOT NULL
      ) STRICT;
      CREATE TABLE consent_receipts (
        id TEXT PRIMARY KEY,
        navigation_id TEXT NOT NULL REFERENCES navigations(id),
        decision TEXT NOT NULL,
        at INTEGER NOT NULL,
        record TEXT NOT NULL
      ) STRICT;
      CREATE INDEX consent_receipts_by_navigation ON consent_receipts(navigation_id, at);
      CREATE TABLE business_receipts (
        id TEXT PRIMARY KEY,
        session TEXT NOT NULL,
        lineage_kind TEXT NOT NULL CHECK (lineage_kind IN ('nested', 'error-retry')),
        original_request_digest TEXT NOT NULL,
        at INTEGER NOT NULL,
        record TEXT NOT NULL,
        UNIQUE (session, lineage_kind, original_request_digest)
      ) STRICT;
    `,
  }),
  Object.freeze({
    version: 2,
    summary: 'flow history (one row per move) and an index for listing flows by state',
    sql: `
      CREATE TABLE flow_transitions (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        navigation_id TEXT NOT NULL REFERENCES navigations(id),
        from_state TEXT,
        to_state TEXT NOT NULL,
        flow_trigger TEXT,
        at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX flow_transitions_by_navigation ON flow_transitions(navigation_id, seq);
      -- Flows recorded before the history existed start it at the state they had then.
      INSERT INTO flow_transitions (navigation_id, from_state, to_state, flow_trigger, at)
        SELECT id, NULL, state, NULL, updated_at FROM navigations ORDER BY created_at, id;
      CREATE INDEX navigations_by_state ON navigations(state, created_at);
      CREATE INDEX navigations_by_created ON navigations(created_at, id);
    `,
  }),
  Object.freeze({
    version: 3,
    summary:
      'business receipts keyed by a sequential row number, the receipt id and the lineage as unique secondaries, columns ' +
      'instead of a JSON copy',
    // A receipt used to be a row keyed by its random id (a rowid table with a unique index on the
    // id and one on the lineage) plus a JSON copy of the columns. Business receipt ids are now
    // time-ordered, so with a sequential row key only the lineage index takes a random page per
    // receipt: about half the WAL per receipt. Rows keep their order; uniqueness is checked again
    // as they are copied (a file that broke it would fail the step and stay at version 2).
    sql:
      `
      CREATE TABLE business_receipts_v3 (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        session TEXT NOT NULL,
        lineage_kind TEXT NOT NULL CHECK (lineage_kind IN ('nested', 'error-retry')),
        original_request_digest TEXT NOT NULL,
        request_id TEXT NOT NULL,
        retry_generation INTEGER NOT NULL,
        requirement_receipt_ids TEXT NOT NULL,
        response_digest TEXT NOT NULL,
        at INTEGER NOT NULL,
        UNIQUE (session, lineage_kind, original_request_digest)
      ) STRICT;
      INSERT INTO business_receipts_v3 (id, session, lineage_kind, original_request_digest, request_id, retry_generation, ` +
      `requirement_receipt_ids, response_digest, at)
        SELECT id, session, lineage_kind, original_request_digest, record -> '$.requestId', record ->> '$.retryGeneration', ` +
      `record -> '$.requirementReceiptIds',
               record ->> '$.responseDigest', at
        FROM business_receipts ORDER BY rowid;
      DROP TABLE business_receipts;
      ALTER TABLE business_receipts_v3 RENAME TO business_receipts;
    `,
  }),
  Object.freeze({
    version: 4,
    summary: 'business receipts of the 2026-07-28 input-required lineage',
    // The same layout as step 3; only the lineage kinds allowed grow by one.
    sql:
      `
      CREATE TABLE business_receipts_v4 (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        session TEXT NOT NULL,
        lineage_kind TEXT NOT NULL CHECK (lineage_kind IN ('nested', 'error-retry', 'input-required')),
        original_request_digest TEXT NOT NULL,
        request_id TEXT NOT NULL,
        retry_generation INTEGER NOT NULL,
        requirement_receipt_ids TEXT NOT NULL,
        response_digest TEXT NOT NULL,
        at INTEGER NOT NULL,
        UNIQUE (session, lineage_kind, original_request_digest)
      ) STRICT;
      INSERT INTO business_receipts_v4 (seq, id, session, lineage_kind, original_request_digest, request_id, retry_generation,
                                        requirement_receipt_ids, response_digest, at)
        SELECT seq, id, session, lineage_kind, original_request_digest, request_id, retry_generation, requirement_receipt_ids,` +
      ` response_digest, at
        FROM business_receipts ORDER BY seq;
      DROP TABLE business_receipts;
      ALTER TABLE business_receipts_v4 RENAME TO business_receipts;
    `,
  }),
]);

export const LATEST_VERSION: number = MIGRATIONS[MIGRATIONS.length - 1]!.version;

export function schemaVersion(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/**
 * Brings the file up to `target` (default: the latest). Returns the version it is at. Refuses a
 * file written by a newer release rather than guess at its meaning.
 */
export function migrate(db: Database.Database, target: number = LATEST_VERSION): number {
  if (!MIGRATIONS.some((m) => m.version === target))
    throw new GuardError(GuardCode.ledgerUnavailable, `no ledger schema version ${target}`);
  const apply = db.transaction(() => {
    // Read again under the write lock: another process may have migrated the file meanwhile.
    const current = schemaVersion(db);
    if (current > LATEST_VERSION) {
      throw new GuardError(
        GuardCode.ledgerUnavailable,
        `the ledger file has schema version ${current}, newer than this release understands (${LATEST_VERSION})`,
      );
    }
    if (current >= target) return current;
    for (const step of MIGRATIONS) if (step.version > current && step.version <= target) db.exec(step.sql);
    db.pragma(`user_version = ${target}`);
    return target;
  });
  return apply.immediate();
}
