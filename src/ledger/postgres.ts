/**
 * The ledger for many guards on many machines: one PostgreSQL database (through `pg` and its
 * pool), shared by every proxy and host process of a team. `pg` is loaded only by
 * `PostgresLedger.connect`, so hosts that do not choose PostgreSQL never load it.
 *
 * At most one business receipt per lineage key is a UNIQUE constraint of the table: the receipt is
 * written with `INSERT … ON CONFLICT DO NOTHING`, and what was inserted is checked in the same
 * transaction, so it holds for any number of processes. Commits are durable as the server is
 * configured (`synchronous_commit = on`, the default, waits for the WAL flush).
 *
 * Writes are group-committed: every write submitted while the previous group commits (at least one
 * event-loop turn) goes into the next transaction, in call order, so the navigation and consent
 * records a receipt rests on share its transaction when they were written together. Runs of
 * business receipts become one multi-row statement. No write raises on an expected conflict (a
 * duplicate id, an unknown navigation, a stale state): each is answered alone, the group goes on.
 * A write's promise settles only after the transaction holding it has committed.
 *
 * When the database cannot be reached, calls fail at once with `E_LEDGER_UNAVAILABLE` (the guard
 * then fails closed for elicitation) while a probe reconnects with exponential backoff.
 */
import type pg from 'pg';
import {
  lineageKeyString,
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
import type { GroupCommitStats } from './group-commit.js';
import {
  createPool,
  describeTarget,
  errorCode,
  HealthWatch,
  isConnectionError,
  isRetryableTransaction,
  loadPg,
  migratePg,
  schemaIdentifier,
  type BackoffOptions,
  type PgMigration,
  type PostgresTarget,
} from './postgres-support.js';
import { rowReader, type NavigationRow, type TransitionRow } from './rows.js';
import type { AcceptOutcome, EndedFlow, FlowTransition, FlowUpdate, Ledger, NavigationQuery, StoredNavigation } from './types.js';

export interface PostgresLedgerOptions {
  /** The schema the tables live in (created when missing; default `mcp_elicitation_guard`). */
  readonly schema?: string;
  /** Pool size (default 10): reads use any connection, writes one at a time per ledger. */
  readonly maxConnections?: number;
  /** At most this many writes per transaction (default 256). */
  readonly maxGroupSize?: number;
  /**
   * How many groups of business receipts may commit at once on separate connections (default 4,
   * at most the pool size less one). PostgreSQL flushes concurrent commits together, so a busy
   * guard is not held to one commit at a time. Receipts for one lineage never overlap (a later one
   * waits for the earlier one's group), and groups holding other writes run alone, so call order
   * holds wherever it can be seen.
   */
  readonly maxConcurrentGroups?: number;
  /** How long to wait for a connection (default 5000 ms). */
  readonly connectTimeoutMs?: number;
  /** `statement_timeout` of the ledger's connections (default 10 000 ms). */
  readonly statementTimeoutMs?: number;
  /**
   * Return at once even when the database cannot be reached yet: calls fail with
   * `E_LEDGER_UNAVAILABLE` until it answers (the proxy uses this so a host keeps working, with
   * elicitation failing closed). Default false: `connect` waits for the database and the schema.
   */
  readonly lazy?: boolean;
  /** Backoff between reconnection probes. */
  readonly reconnect?: BackoffOptions;
}

export const POSTGRES_DEFAULT_SCHEMA = 'mcp_elicitation_guard';

/** The ledger's tables, as ordered steps (`$schema` is the quoted schema). Append-only. */
export const POSTGRES_MIGRATIONS: readonly PgMigration[] = Object.freeze([
  Object.freeze({
    version: 1,
    summary: 'navigation records with their flow state and history, consent receipts, business receipts unique per lineage',
    sql: `
      CREATE TABLE $schema.navigations (
        id text PRIMARY KEY,
        elicitation_id text NOT NULL,
        server_key text,
        state text NOT NULL,
        flow_trigger text,
        created_at bigint NOT NULL,
        expires_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        record text NOT NULL
      );
      CREATE INDEX navigations_by_state ON $schema.navigations (state, created_at DESC, id DESC);
      CREATE INDEX navigations_by_created ON $schema.navigations (created_at DESC, id DESC);
      CREATE TABLE $schema.flow_transitions (
        seq bigserial PRIMARY KEY,
        navigation_id text NOT NULL REFERENCES $schema.navigations (id),
        from_state text,
        to_state text NOT NULL,
        flow_trigger text,
        at bigint NOT NULL
      );
      CREATE INDEX flow_transitions_by_navigation ON $schema.flow_transitions (navigation_id, seq);
      CREATE TABLE $schema.consent_receipts (
        seq bigserial UNIQUE,
        id text PRIMARY KEY,
        navigation_id text NOT NULL REFERENCES $schema.navigations (id),
        decision text NOT NULL,
        at bigint NOT NULL,
        record text NOT NULL
      );
      CREATE INDEX consent_receipts_by_navigation ON $schema.consent_receipts (navigation_id, at, seq);
      CREATE TABLE $schema.business_receipts (
        id text PRIMARY KEY,
        session text NOT NULL,
        lineage_kind text NOT NULL,
        original_request_digest text NOT NULL,
        at bigint NOT NULL,
        record text NOT NULL,
        UNIQUE (session, lineage_kind, original_request_digest)
      );
    `,
  }),
]);

export const POSTGRES_LATEST_VERSION: number = POSTGRES_MIGRATIONS[POSTGRES_MIGRATIONS.length - 1]!.version;

/** One queued write; the group runner executes these in order inside one transaction. */
type Write =
  | { readonly kind: 'navigation'; readonly record: NavigationRecord }
  | { readonly kind: 'consent'; readonly receipt: ConsentReceipt }
  | {
      readonly kind: 'move';
      readonly id: string;
      readonly from: FlowState;
      readonly to: FlowState;
      readonly trigger: FlowTrigger;
      readonly at: number;
    }
  | { readonly kind: 'accept'; readonly receipt: BusinessReceipt }
  | { readonly kind: 'accept-many'; readonly receipts: readonly BusinessReceipt[] };

type Answer = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown };

interface Queued {
  readonly write: Write;
  readonly settle: (answer: Answer) => void;
}

const MAX_TRANSACTION_RETRIES = 3;

/** SQL of one schema, prepared once per connection (`pg` names them). */
function statements(schema: string) {
  const s = schemaIdentifier(schema);
  const nav = 'id, state, flow_trigger, created_at, updated_at, record';
  const named = (name: string, text: string) => ({ name: `meg_${schema}_${name}`, text });
  return {
    insertNavigation: named(
      'insert_navigation',
      `WITH ins AS (
         INSERT INTO ${s}.navigations (id, elicitation_id, server_key, state, flow_trigger, created_at, expires_at, updated_at, record)
         VALUES ($1, $2, $3, 'CREATED', NULL, $4, $5, $4, $6) ON CONFLICT (id) DO NOTHING RETURNING id, created_at)
       INSERT INTO ${s}.flow_transitions (navigation_id, from_state, to_state, flow_trigger, at) SELECT id, NULL, 'CREATED', ` +
        `NULL, created_at FROM ins RETURNING navigation_id`,
    ),
    insertConsent: named(
      'insert_consent',
      `INSERT INTO ${s}.consent_receipts (id, navigation_id, decision, at, record)
       SELECT $1, $2, $3, $4, $5 WHERE EXISTS (SELECT 1 FROM ${s}.navigations WHERE id = $2)
       ON CONFLICT (id) DO NOTHING RETURNING id`,
    ),
    navigationExists: named('navigation_exists', `SELECT 1 AS one FROM ${s}.navigations WHERE id = $1`),
    move: named(
      'move',
      `WITH cur AS (SELECT ${nav} FROM ${s}.navigations WHERE id = $1 FOR UPDATE),
       upd AS (UPDATE ${s}.navigations n SET state = $3, flow_trigger = $4, updated_at = $5 FROM cur WHERE n.id = cur.id AND ` +
        `cur.state = $2 RETURNING n.id),
       tr AS (INSERT INTO ${s}.flow_transitions (navigation_id, from_state, to_state, flow_trigger, at) SELECT id, $2, $3, $4, $5 FROM upd)
       SELECT cur.*, (SELECT count(*) FROM upd)::int AS moved FROM cur`,
    ),
    acceptMany: named(
      'accept_many',
      // A receipt resting on a flow another process ended (CANCELLED, DECLINED) is not inserted.
      `INSERT INTO ${s}.business_receipts (id, session, lineage_kind, original_request_digest, at, record)
       SELECT r.* FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[])
         AS r(id, session, lineage_kind, original_request_digest, at, record)
       WHERE NOT EXISTS (SELECT 1 FROM ${s}.consent_receipts c JOIN ${s}.navigations n ON n.id = c.navigation_id
         WHERE c.id IN (SELECT jsonb_array_elements_text(r.record::jsonb -> 'requirementReceiptIds'))
           AND n.state IN ('CANCELLED', 'DECLINED'))
       ON CONFLICT DO NOTHING RETURNING id`,
    ),
    endedRequirements: named(
      'ended_requirements',
      `SELECT c.id AS consent_id, n.id, n.state FROM ${s}.consent_receipts c JOIN ${s}.navigations n ON n.id = c.navigation_id
       WHERE c.id = ANY($1::text[]) AND n.state IN ('CANCELLED', 'DECLINED')`,
    ),
    businessByKeys: named(
      'business_by_keys',
      `SELECT b.session, b.lineage_kind, b.original_request_digest, b.record FROM ${s}.business_receipts b
       JOIN unnest($1::text[], $2::text[], $3::text[]) AS k(session, kind, digest)
         ON b.session = k.session AND b.lineage_kind = k.kind AND b.original_request_digest = k.digest`,
    ),
    getNavigation: named('get_navigation', `SELECT ${nav} FROM ${s}.navigations WHERE id = $1`),
    listAll: named('list_all', `SELECT ${nav} FROM ${s}.navigations ORDER BY created_at DESC, id DESC LIMIT $1`),
    listByState: named('list_by_state', `SELECT ${nav} FROM ${s}.navigations WHERE state = $1 ORDER BY created_at DESC, id DESC LIMIT $2`),
    listTransitions: named(
      'list_transitions',
      `SELECT navigation_id, from_state, to_state, flow_trigger, at FROM ${s}.flow_transitions WHERE navigation_id = $1 ORDER BY seq`,
    ),
    listConsents: named('list_consents', `SELECT record FROM ${s}.consent_receipts WHERE navigation_id = $1 ORDER BY at, seq`),
    getBusiness: named(
      'get_business',
      `SELECT record FROM ${s}.business_receipts WHERE session = $1 AND lineage_kind = $2 AND original_request_digest = $3`,
    ),
    listBusinessByDigest: named(
      'list_business_by_digest',
      `SELECT record FROM ${s}.business_receipts WHERE original_request_digest = $1 ORDER BY at, id`,
    ),
  };
}

type Statements = ReturnType<typeof statements>;

export interface PostgresLedgerSettings {
  readonly target: string;
  readonly schema: string;
  readonly schemaVersion: number;
  readonly synchronousCommit: string;
  readonly serverVersion: string;
}

export class PostgresLedger implements Ledger {
  readonly #pool: pg.Pool;
  readonly #sql: Statements;
  readonly #schema: string;
  readonly #target: string;
  readonly #maxGroupSize: number;
  readonly #health: HealthWatch;
  #ready: boolean;
  #queue: Queued[] = [];
  /** Groups committing now; at most one when it is exclusive (holds writes other than receipts). */
  readonly #running = new Set<Promise<void>>();
  #exclusive = false;
  /** Lineage keys of receipts in groups committing now: a later receipt for one of them waits. */
  readonly #keysInFlight = new Map<string, number>();
  readonly #maxConcurrentGroups: number;
  #scheduled = false;
  #closed = false;
  readonly #stats = { commits: 0, writes: 0, failures: 0, largestGroup: 0 };

  private constructor(
    pool: pg.Pool,
    schema: string,
    target: string,
    maxGroupSize: number,
    reconnect: BackoffOptions | undefined,
    ready: boolean,
    maxConcurrentGroups: number,
  ) {
    this.#pool = pool;
    this.#maxConcurrentGroups = maxConcurrentGroups;
    this.#schema = schema;
    this.#sql = statements(schema);
    this.#target = target;
    this.#maxGroupSize = maxGroupSize;
    this.#ready = ready;
    this.#health = new HealthWatch(() => this.#prepare(), reconnect);
  }

  /**
   * Connects to a PostgreSQL database (a `postgres://` URL or `pg` pool settings) and brings the
   * ledger's tables in `schema` up to date. Rejects with `E_LEDGER_UNAVAILABLE` when the database
   * cannot be reached (unless `lazy`), without the URL's credentials in the message.
   *
   * @example const ledger = await PostgresLedger.connect('postgres://guard@db.internal/guard')
   */
  static async connect(target: PostgresTarget, options: PostgresLedgerOptions = {}): Promise<PostgresLedger> {
    const schema = options.schema ?? POSTGRES_DEFAULT_SCHEMA;
    schemaIdentifier(schema);
    const maxGroupSize = positive(options.maxGroupSize ?? 256, 'maxGroupSize');
    const max = positive(options.maxConnections ?? 10, 'maxConnections');
    const connectTimeoutMs = positive(options.connectTimeoutMs ?? 5000, 'connectTimeoutMs');
    const statementTimeoutMs = positive(options.statementTimeoutMs ?? 10_000, 'statementTimeoutMs');
    const described = describeTarget(target);
    const driver = await loadPg('the PostgreSQL ledger');
    let ledger: PostgresLedger | null = null;
    const pool = createPool(
      driver,
      target,
      { max, connectTimeoutMs, statementTimeoutMs, applicationName: 'mcp-elicitation-guard' },
      (error) => {
        // An idle connection died (a server restart, a network cut): the next call reconnects.
        if (isConnectionError(error) && ledger !== null) ledger.#health.lost(errorCode(error));
      },
    );
    const concurrent = Math.min(positive(options.maxConcurrentGroups ?? 4, 'maxConcurrentGroups'), Math.max(1, max - 1));
    ledger = new PostgresLedger(pool, schema, described, maxGroupSize, options.reconnect, false, concurrent);
    try {
      await ledger.#prepare();
    } catch (error) {
      if (options.lazy === true && isConnectionError(error)) {
        ledger.#health.lost(errorCode(error));
        return ledger;
      }
      await pool.end().catch(() => undefined);
      throw ledger.#unavailable(error, 'cannot open the ledger');
    }
    return ledger;
  }

  /** Reaches the database and applies the schema steps (first connect and every reconnect). */
  async #prepare(): Promise<void> {
    const client = await this.#pool.connect();
    try {
      await migratePg(client, this.#schema, 'ledger', POSTGRES_MIGRATIONS);
      this.#ready = true;
    } finally {
      client.release();
    }
  }

  async putNavigation(record: NavigationRecord): Promise<StoredNavigation> {
    this.#open();
    const checked = parseNavigationRecord(record);
    await this.#submit({ kind: 'navigation', record: checked });
    return Object.freeze({
      record: checked,
      flow: Object.freeze({ id: checked.id, state: 'CREATED', trigger: null, createdAt: checked.createdAt, updatedAt: checked.createdAt }),
    });
  }

  async getNavigation(id: string): Promise<StoredNavigation | null> {
    const rows = await this.#read<NavigationRow>(this.#sql.getNavigation, [id]);
    return rows[0] === undefined ? null : storedOf(rows[0]);
  }

  async listNavigations(query?: NavigationQuery): Promise<readonly StoredNavigation[]> {
    this.#open();
    const limit = checkQuery(query);
    const rows =
      query?.state === undefined
        ? await this.#read<NavigationRow>(this.#sql.listAll, [limit])
        : await this.#read<NavigationRow>(this.#sql.listByState, [query.state, limit]);
    return Object.freeze(rows.map(storedOf));
  }

  async updateFlowState(id: string, from: FlowState, to: FlowState, trigger: FlowTrigger, at: number): Promise<FlowUpdate> {
    this.#open();
    checkMove(from, to, trigger, at);
    return this.#submit({ kind: 'move', id, from, to, trigger, at }) as Promise<FlowUpdate>;
  }

  async listTransitions(navigationId: string): Promise<readonly FlowTransition[]> {
    return Object.freeze((await this.#read<TransitionRow>(this.#sql.listTransitions, [navigationId])).map(transitionOf));
  }

  async putConsentReceipt(receipt: ConsentReceipt): Promise<void> {
    this.#open();
    const checked = parseConsentReceipt(receipt);
    await this.#submit({ kind: 'consent', receipt: checked });
  }

  async listConsentReceipts(navigationId: string): Promise<readonly ConsentReceipt[]> {
    return Object.freeze(
      (await this.#read<{ record: string }>(this.#sql.listConsents, [navigationId])).map((row) =>
        parseStored(parseConsentReceipt, row.record),
      ),
    );
  }

  /**
   * Resolves once the transaction holding the receipt has committed. Receipts submitted together
   * are decided in call order: of two for one lineage, the first is accepted and the second is
   * answered with the first. Across processes, the first to commit wins and every other is
   * answered with the winner. Rejects with `E_DUPLICATE_RECORD` (a known receipt id on another
   * lineage) for this receipt alone, and with `E_LEDGER_UNAVAILABLE` for every write of the group
   * when the transaction could not commit. If the connection is lost during COMMIT the outcome is
   * unknown to this process; re-submitting the same receipt answers `{ accepted: false, existing }`
   * with its own id if it did commit.
   */
  async acceptBusinessReceipt(receipt: BusinessReceipt): Promise<AcceptOutcome> {
    this.#open();
    const checked = parseBusinessReceipt(receipt);
    return this.#submit({ kind: 'accept', receipt: checked }) as Promise<AcceptOutcome>;
  }

  /** Several receipts as one write, each with the outcome it would get alone; all or nothing. */
  async acceptBusinessReceipts(receipts: readonly BusinessReceipt[]): Promise<readonly AcceptOutcome[]> {
    this.#open();
    const checked = receipts.map(parseBusinessReceipt);
    return Object.freeze((await this.#submit({ kind: 'accept-many', receipts: checked })) as AcceptOutcome[]);
  }

  async getBusinessReceipt(key: LineageKey): Promise<BusinessReceipt | null> {
    const checked = parseLineageKey(key);
    const rows = await this.#read<{ record: string }>(this.#sql.getBusiness, [
      checked.session,
      checked.kind,
      checked.originalRequestDigest,
    ]);
    return rows[0] === undefined ? null : parseStored(parseBusinessReceipt, rows[0].record);
  }

  async listBusinessReceipts(originalRequestDigest: string): Promise<readonly BusinessReceipt[]> {
    checkDigest(originalRequestDigest);
    return Object.freeze(
      (await this.#read<{ record: string }>(this.#sql.listBusinessByDigest, [originalRequestDigest])).map((row) =>
        parseStored(parseBusinessReceipt, row.record),
      ),
    );
  }

  /** What the server reports for this ledger's connection (for diagnostics, tests and the benchmark). */
  async settings(): Promise<PostgresLedgerSettings> {
    const [commit] = await this.#read<{ synchronous_commit: string }>(
      { name: `meg_${this.#schema}_sync`, text: 'SHOW synchronous_commit' },
      [],
    );
    const [version] = await this.#read<{ server_version: string }>(
      { name: `meg_${this.#schema}_version`, text: 'SHOW server_version' },
      [],
    );
    const [migrated] = await this.#read<{ version: number }>(
      {
        name: `meg_${this.#schema}_schema_version`,
        text: `SELECT max(version) AS version FROM ${schemaIdentifier(this.#schema)}.schema_migrations WHERE component = 'ledger'`,
      },
      [],
    );
    return Object.freeze({
      target: this.#target,
      schema: this.#schema,
      schemaVersion: migrated?.version ?? 0,
      synchronousCommit: commit?.synchronous_commit ?? 'unknown',
      serverVersion: version?.server_version ?? 'unknown',
    });
  }

  /** How the writes of this ledger were grouped so far. */
  writeStats(): GroupCommitStats {
    return Object.freeze({ ...this.#stats });
  }

  /** Whether the database is reachable as far as the last attempt knows, and how often it came back. */
  health(): { readonly up: boolean; readonly reason: string | null; readonly reconnects: number } {
    const down = this.#health.down;
    return Object.freeze({ up: down === null && this.#ready, reason: down?.reason ?? null, reconnects: this.#health.reconnects });
  }

  /** Writes what is still queued (each caller gets its answer), then closes the pool. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    while (this.#running.size > 0 || this.#queue.length > 0) {
      this.#pump();
      if (this.#running.size > 0) await Promise.race(this.#running);
    }
    this.#health.stop();
    await this.#pool.end().catch(() => undefined);
  }

  #open(): void {
    if (this.#closed) throw closedError();
  }

  /** Fails fast while the database is known to be down (the probe reconnects in the background). */
  #reachable(): void {
    this.#open();
    const down = this.#health.down;
    if (down !== null || !this.#ready) {
      throw new GuardError(
        GuardCode.ledgerUnavailable,
        `the PostgreSQL ledger at ${this.#target} is unreachable (${down?.reason ?? 'not connected yet'}); reconnecting in the background`,
      );
    }
  }

  async #read<R extends pg.QueryResultRow>(statement: { name: string; text: string }, values: unknown[]): Promise<R[]> {
    this.#reachable();
    try {
      return (await this.#pool.query<R>({ ...statement, values })).rows;
    } catch (error) {
      throw this.#unavailable(error, 'cannot read the ledger');
    }
  }

  #unavailable(error: unknown, what: string): GuardError {
    if (GuardError.is(error)) return error;
    if (isConnectionError(error)) this.#health.lost(errorCode(error));
    return new GuardError(
      GuardCode.ledgerUnavailable,
      `${what} at ${this.#target} (${errorCode(error)}${isConnectionError(error) ? ': the database cannot be reached' : ''})`,
    );
  }

  #submit(write: Write): Promise<unknown> {
    this.#reachable();
    return new Promise((resolve, reject) => {
      this.#queue.push({ write, settle: (answer) => (answer.ok ? resolve(answer.value) : reject(answer.error)) });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    // The end of this event-loop turn: every write submitted in it can join a group.
    setImmediate(() => {
      this.#scheduled = false;
      this.#pump();
    });
  }

  /**
   * Starts every group that may start now. A group that holds anything but business receipts is
   * exclusive: it waits until nothing else commits and nothing starts beside it. Runs of receipts
   * are split over the free connections, each run stopping before a receipt whose lineage is still
   * being committed by another group (that receipt waits, so per-lineage call order holds).
   */
  #pump(): void {
    while (this.#queue.length > 0 && !this.#exclusive) {
      const head = this.#queue[0]!.write;
      if (head.kind !== 'accept') {
        if (this.#running.size > 0) return;
        const group = this.#queue.splice(0, Math.min(this.#queue.length, this.#maxGroupSize));
        this.#exclusive = true;
        this.#launch(group, [], () => (this.#exclusive = false));
        return;
      }
      const free = this.#maxConcurrentGroups - this.#running.size;
      if (free <= 0) return;
      let run = 0;
      while (run < this.#queue.length && this.#queue[run]!.write.kind === 'accept') run++;
      const size = Math.min(this.#maxGroupSize, Math.max(8, Math.ceil(run / free)));
      const keys: string[] = [];
      const fresh = new Set<string>();
      let take = 0;
      while (take < Math.min(run, size)) {
        const key = lineageKeyString((this.#queue[take]!.write as { receipt: BusinessReceipt }).receipt.lineage);
        if (this.#keysInFlight.has(key) && !fresh.has(key)) break;
        if (!fresh.has(key)) {
          fresh.add(key);
          keys.push(key);
        }
        take++;
      }
      if (take === 0) return;
      const group = this.#queue.splice(0, take);
      this.#launch(group, keys, () => undefined);
    }
  }

  #launch(group: Queued[], keys: readonly string[], done: () => void): void {
    for (const key of keys) this.#keysInFlight.set(key, (this.#keysInFlight.get(key) ?? 0) + 1);
    const running: Promise<void> = this.#commitGroup(group).finally(() => {
      this.#running.delete(running);
      for (const key of keys) {
        const left = (this.#keysInFlight.get(key) ?? 1) - 1;
        if (left === 0) this.#keysInFlight.delete(key);
        else this.#keysInFlight.set(key, left);
      }
      done();
      // Writes that arrived meanwhile form the next groups at once.
      this.#pump();
    });
    this.#running.add(running);
  }

  async #commitGroup(group: Queued[]): Promise<void> {
    let lastError: unknown = null;
    for (let attempt = 0; attempt <= MAX_TRANSACTION_RETRIES; attempt++) {
      let client: pg.PoolClient;
      try {
        client = await this.#pool.connect();
      } catch (error) {
        lastError = error;
        break;
      }
      let answers: Answer[];
      const writes = group.map((q) => q.write);
      try {
        if (writes.every((w) => w.kind === 'accept')) {
          // One INSERT is its own transaction: no BEGIN/COMMIT round trips for the hot path.
          answers = await this.#acceptRun(
            client,
            writes.map((w) => (w as { receipt: BusinessReceipt }).receipt),
          );
        } else {
          await client.query('BEGIN');
          answers = await this.#runWrites(client, writes);
          await client.query('COMMIT');
        }
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        client.release(isConnectionError(error) ? (error as Error) : undefined);
        lastError = error;
        // A deadlock between processes' groups rolled this one back whole: run it again.
        if (isRetryableTransaction(error)) continue;
        break;
      }
      client.release();
      this.#stats.commits += 1;
      this.#stats.writes += group.length;
      this.#stats.largestGroup = Math.max(this.#stats.largestGroup, group.length);
      group.forEach((q, i) =>
        q.settle(
          answers[i] ?? { ok: false, error: new GuardError(GuardCode.internal, 'the ledger answered fewer writes than it was given') },
        ),
      );
      return;
    }
    this.#stats.failures += 1;
    const failure = GuardError.is(lastError)
      ? lastError
      : this.#unavailable(lastError, `the ledger could not commit a group of ${group.length} write${group.length === 1 ? '' : 's'}`);
    for (const q of group) q.settle({ ok: false, error: failure });
  }

  /** Runs the group's writes in order on one connection inside its transaction; one answer per write. */
  async #runWrites(client: pg.PoolClient, writes: readonly Write[]): Promise<Answer[]> {
    const answers: Answer[] = new Array(writes.length);
    let i = 0;
    while (i < writes.length) {
      const write = writes[i]!;
      if (write.kind === 'accept') {
        // A run of receipts becomes one statement.
        let j = i;
        while (j < writes.length && writes[j]!.kind === 'accept') j++;
        const receipts = writes.slice(i, j).map((w) => (w as { receipt: BusinessReceipt }).receipt);
        const outcomes = await this.#acceptRun(client, receipts);
        for (let k = 0; k < outcomes.length; k++) answers[i + k] = outcomes[k]!;
        i = j;
        continue;
      }
      answers[i] = await this.#runOne(client, write);
      i++;
    }
    return answers;
  }

  async #runOne(client: pg.PoolClient, write: Exclude<Write, { kind: 'accept' }>): Promise<Answer> {
    switch (write.kind) {
      case 'navigation': {
        const r = write.record;
        const inserted = await client.query({
          ...this.#sql.insertNavigation,
          values: [r.id, r.elicitationId, r.server.key, r.createdAt, r.expiresAt, JSON.stringify(r)],
        });
        return inserted.rowCount === 1 ? { ok: true, value: undefined } : { ok: false, error: duplicateRecord('navigation record', r.id) };
      }
      case 'consent': {
        const r = write.receipt;
        const inserted = await client.query({
          ...this.#sql.insertConsent,
          values: [r.id, r.navigationId, r.decision, r.at, JSON.stringify(r)],
        });
        if (inserted.rowCount === 1) return { ok: true, value: undefined };
        const exists = await client.query({ ...this.#sql.navigationExists, values: [r.navigationId] });
        return { ok: false, error: exists.rowCount === 0 ? unknownNavigation(r.navigationId) : duplicateRecord('consent receipt', r.id) };
      }
      case 'move': {
        const { rows } = await client.query<NavigationRow & { moved: number }>({
          ...this.#sql.move,
          values: [write.id, write.from, write.to, write.trigger, write.at],
        });
        const row = rows[0];
        if (row === undefined)
          return { ok: true, value: { updated: false, reason: 'unknown-navigation', current: null } satisfies FlowUpdate };
        const current = flowOf(row);
        if (row.moved !== 1) return { ok: true, value: { updated: false, reason: 'state-conflict', current } satisfies FlowUpdate };
        return { ok: true, value: { updated: true, flow: transition(current, write.to, write.trigger, write.at) } satisfies FlowUpdate };
      }
      case 'accept-many': {
        // All or nothing: in a savepoint, undone when one receipt id is already taken elsewhere.
        await client.query('SAVEPOINT accept_many');
        const outcomes = await this.#acceptRun(client, write.receipts);
        const failed = outcomes.find((o) => !o.ok);
        if (failed !== undefined) {
          await client.query('ROLLBACK TO SAVEPOINT accept_many');
          return {
            ok: false,
            error: new GuardError(GuardCode.duplicateRecord, 'a business receipt id in the batch is already in the ledger'),
          };
        }
        await client.query('RELEASE SAVEPOINT accept_many');
        return { ok: true, value: outcomes.map((o) => (o as { value: unknown }).value) };
      }
      default:
        throw new GuardError(GuardCode.internal, 'unknown ledger write');
    }
  }

  /**
   * Accepts receipts in call order with one INSERT … ON CONFLICT DO NOTHING, then reads back the
   * lineages that were not inserted. Within the run, the first receipt of a lineage is the one
   * offered; later ones are answered with whatever holds that lineage afterwards. Rows are sent
   * sorted by lineage key, so two processes' groups lock the unique index in one order.
   */
  async #acceptRun(client: pg.PoolClient, receipts: readonly BusinessReceipt[]): Promise<Answer[]> {
    const firstByKey = new Map<string, BusinessReceipt>();
    for (const receipt of receipts) {
      const key = lineageKeyString(receipt.lineage);
      if (!firstByKey.has(key)) firstByKey.set(key, receipt);
    }
    const offered = [...firstByKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);
    const inserted = await client.query<{ id: string }>({
      ...this.#sql.acceptMany,
      values: [
        offered.map((r) => r.id),
        offered.map((r) => r.lineage.session),
        offered.map((r) => r.lineage.kind),
        offered.map((r) => r.lineage.originalRequestDigest),
        offered.map((r) => r.at),
        offered.map((r) => JSON.stringify(r)),
      ],
    });
    const won = new Set(inserted.rows.map((row) => row.id));
    const holders = new Map<string, BusinessReceipt>();
    for (const r of offered) if (won.has(r.id)) holders.set(lineageKeyString(r.lineage), r);
    const lost = offered.filter((r) => !won.has(r.id));
    if (lost.length > 0) {
      const { rows } = await client.query<{ session: string; lineage_kind: string; original_request_digest: string; record: string }>({
        ...this.#sql.businessByKeys,
        values: [lost.map((r) => r.lineage.session), lost.map((r) => r.lineage.kind), lost.map((r) => r.lineage.originalRequestDigest)],
      });
      for (const row of rows)
        holders.set(
          JSON.stringify([row.session, row.lineage_kind, row.original_request_digest]),
          parseStored(parseBusinessReceipt, row.record),
        );
    }
    // A lost receipt with no holder either rests on an ended flow or has a taken id.
    const ended = new Map<string, EndedFlow>();
    const unheld = lost.filter((r) => !holders.has(lineageKeyString(r.lineage)) && r.requirementReceiptIds.length > 0);
    if (unheld.length > 0) {
      const { rows } = await client.query<{ consent_id: string; id: string; state: EndedFlow['state'] }>({
        ...this.#sql.endedRequirements,
        values: [unheld.flatMap((r) => r.requirementReceiptIds)],
      });
      for (const row of rows) ended.set(row.consent_id, { navigationId: row.id, state: row.state });
    }
    return receipts.map((receipt): Answer => {
      const key = lineageKeyString(receipt.lineage);
      const holder = holders.get(key);
      if (holder === undefined) {
        const flow = receipt.requirementReceiptIds.map((id) => ended.get(id)).find((f) => f !== undefined);
        if (flow !== undefined) return { ok: true, value: { accepted: false, existing: null, endedFlow: flow } satisfies AcceptOutcome };
        return { ok: false, error: duplicateRecord('business receipt', receipt.id) };
      }
      if (holder.id === receipt.id && firstByKey.get(key) === receipt && won.has(receipt.id))
        return { ok: true, value: { accepted: true } satisfies AcceptOutcome };
      return { ok: true, value: { accepted: false, existing: holder } satisfies AcceptOutcome };
    });
  }
}

function positive(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new GuardError(GuardCode.recordInvalid, `${what} must be a positive integer`);
  return value;
}

function corrupt(message: string): GuardError {
  return new GuardError(GuardCode.ledgerUnavailable, `the PostgreSQL ledger holds a corrupt record: ${message}`);
}

const { parseStored, flowOf, storedOf, transitionOf } = rowReader(corrupt);
