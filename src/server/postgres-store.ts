/**
 * The server companion's state in PostgreSQL, for servers that run several instances behind a
 * load balancer: connect flows (the page and the callback may hit different instances, and survive
 * restarts) and third-party tokens. Every state change is one statement or one transaction, so
 * one caller wins across instances. `pg` is loaded only by `connect`.
 *
 * The vault seals each secret with AES-256-GCM under a key the database never sees (the same
 * envelope as `EncryptedFileVault`, with (subject, provider) as additional authenticated data): a
 * dump of the database holds no plaintext token, and a row copied under another user fails.
 */
import type pg from 'pg';
import {
  createPool,
  describeTarget,
  errorCode,
  isConnectionError,
  loadPg,
  migratePg,
  schemaIdentifier,
  type PgMigration,
  type PostgresTarget,
} from '../ledger/postgres-support.js';
import { GuardCode, GuardError } from '../protocol/errors.js';
import type { ConnectCode } from './connect-audit.js';
import { attemptText, flowFromRow, rowValues, type ConnectFlowRow } from './connect-store-codec.js';
import type { ConnectAttempt, ConnectFlow, ConnectFlowStore, StateLookup } from './connect-store.js';
import { cleanSecret, KEY_BYTES, parseVaultKey, requireName, seal, unseal, VAULT_KEY_ENV } from './vault.js';
import type { SecretVault, StoredSecret } from './vault-types.js';
import { ServerCode } from './errors.js';

export interface PostgresStoreOptions {
  /** The schema the tables live in (created when missing; default `mcp_elicitation_guard`). */
  readonly schema?: string;
  /** Pool size (default 5). */
  readonly maxConnections?: number;
  /** How long to wait for a connection (default 5000 ms). */
  readonly connectTimeoutMs?: number;
}

const DEFAULT_SCHEMA = 'mcp_elicitation_guard';

const CONNECT_STEPS: readonly PgMigration[] = [
  {
    version: 1,
    summary: 'connect flows with their live state, and spent states',
    sql: `
      CREATE TABLE $schema.connect_flows (
        id text PRIMARY KEY,
        elicitation_id text NOT NULL,
        subject text NOT NULL,
        session text,
        purpose text NOT NULL,
        created_at bigint NOT NULL,
        expires_at bigint NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'completed', 'retired')),
        attempt text,
        live_state text UNIQUE,
        retired_reason text,
        ended_at bigint
      );
      CREATE INDEX connect_flows_by_expiry ON $schema.connect_flows (expires_at);
      CREATE TABLE $schema.connect_used_states (
        digest text PRIMARY KEY,
        flow_id text NOT NULL,
        until bigint NOT NULL
      );
      CREATE INDEX connect_used_states_by_expiry ON $schema.connect_used_states (until);
    `,
  },
];

const VAULT_STEPS: readonly PgMigration[] = [
  {
    version: 1,
    summary: 'sealed third-party secrets, one per subject and provider',
    sql: `
      CREATE TABLE $schema.vault_secrets (
        subject text NOT NULL,
        provider text NOT NULL,
        iv bytea NOT NULL,
        tag bytea NOT NULL,
        data bytea NOT NULL,
        updated_at bigint NOT NULL,
        PRIMARY KEY (subject, provider)
      );
    `,
  },
];

async function openPool(
  what: string,
  target: PostgresTarget,
  options: PostgresStoreOptions,
  component: string,
  steps: readonly PgMigration[],
): Promise<{ pool: pg.Pool; schema: string; described: string }> {
  const schema = options.schema ?? DEFAULT_SCHEMA;
  schemaIdentifier(schema);
  const described = describeTarget(target);
  const driver = await loadPg(what);
  const pool = createPool(
    driver,
    target,
    {
      max: options.maxConnections ?? 5,
      connectTimeoutMs: options.connectTimeoutMs ?? 5000,
      statementTimeoutMs: 10_000,
      applicationName: `mcp-elicitation-guard ${component}`,
    },
    () => undefined,
  );
  try {
    const client = await pool.connect();
    try {
      await migratePg(client, schema, component, steps);
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end().catch(() => undefined);
    if (GuardError.is(error)) throw error;
    throw new GuardError(
      GuardCode.ledgerUnavailable,
      `${what}: cannot open the database at ${described} (${errorCode(error)}${isConnectionError(error) ? ': it cannot be reached' : ''})`,
    );
  }
  return { pool, schema, described };
}

function unavailable(what: string, described: string, error: unknown): GuardError {
  if (GuardError.is(error)) return error;
  return new GuardError(GuardCode.ledgerUnavailable, `${what} at ${described} failed (${errorCode(error)})`);
}

const COLUMNS = 'id, elicitation_id, subject, session, purpose, created_at, expires_at, status, attempt, retired_reason, ended_at';

/** Connect flows in PostgreSQL: one table for all instances of a server. */
export class PostgresConnectFlowStore implements ConnectFlowStore {
  readonly #pool: pg.Pool;
  readonly #described: string;
  readonly #sql: ReturnType<typeof connectStatements>;

  private constructor(pool: pg.Pool, schema: string, described: string) {
    this.#pool = pool;
    this.#described = described;
    this.#sql = connectStatements(schema);
  }

  /**
   * Connects and creates or updates the store's tables in `schema`.
   *
   * @example const store = await PostgresConnectFlowStore.connect(process.env.DATABASE_URL!)
   */
  static async connect(target: PostgresTarget, options: PostgresStoreOptions = {}): Promise<PostgresConnectFlowStore> {
    const { pool, schema, described } = await openPool(
      'the PostgreSQL connect flow store',
      target,
      options,
      'connect-flows',
      CONNECT_STEPS,
    );
    return new PostgresConnectFlowStore(pool, schema, described);
  }

  async add(flow: ConnectFlow): Promise<void> {
    const inserted = await this.#query(this.#sql.insert, rowValues(flow));
    if (inserted.rowCount !== 1) throw new Error('a connect flow with this id exists');
  }

  async get(id: string): Promise<ConnectFlow | null> {
    const { rows } = await this.#query<ConnectFlowRow>(this.#sql.get, [id]);
    return rows[0] === undefined ? null : flowFromRow(rows[0]);
  }

  async startAttempt(id: string, attempt: ConnectAttempt): Promise<boolean> {
    const { rows } = await this.#query<{ moved: number }>(this.#sql.startAttempt, [
      id,
      attemptText(attempt),
      attempt.navigation.stateNonceDigest,
    ]);
    return rows[0]?.moved === 1;
  }

  async takeState(stateDigest: string): Promise<StateLookup> {
    const { rows } = await this.#query<ConnectFlowRow>(this.#sql.take, [stateDigest]);
    if (rows[0] !== undefined) return { kind: 'live', flow: flowFromRow(rows[0]) };
    const used = await this.#query<{ flow_id: string; kept: boolean }>(this.#sql.used, [stateDigest]);
    const row = used.rows[0];
    if (row === undefined) return { kind: 'unknown' };
    return { kind: 'used', flowId: row.kept ? row.flow_id : null };
  }

  async complete(id: string, at: number): Promise<boolean> {
    return (await this.#query(this.#sql.complete, [id, at])).rowCount === 1;
  }

  async retire(id: string, reason: ConnectCode, at: number): Promise<boolean> {
    const { rows } = await this.#query<{ retired: number }>(this.#sql.retire, [id, reason, at]);
    return rows[0]?.retired === 1;
  }

  async sweep(now: number): Promise<number> {
    await this.#query(this.#sql.sweepStates, [now]);
    return (await this.#query(this.#sql.sweepFlows, [now])).rowCount ?? 0;
  }

  async close(): Promise<void> {
    await this.#pool.end().catch(() => undefined);
  }

  async #query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    statement: { name: string; text: string },
    values: unknown[],
  ): Promise<pg.QueryResult<R>> {
    try {
      return await this.#pool.query<R>({ ...statement, values });
    } catch (error) {
      throw unavailable('the connect flow store', this.#described, error);
    }
  }
}

function connectStatements(schema: string) {
  const s = schemaIdentifier(schema);
  const named = (name: string, text: string) => ({ name: `megc_${schema}_${name}`, text });
  return {
    insert: named(
      'insert',
      `INSERT INTO ${s}.connect_flows (id, elicitation_id, subject, session, purpose, created_at, expires_at, status, attempt,` +
        ` live_state, retired_reason, ended_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (id) DO NOTHING`,
    ),
    get: named('get', `SELECT ${COLUMNS} FROM ${s}.connect_flows WHERE id = $1`),
    // The previous attempt's state becomes a tombstone in the same statement that installs the new one.
    startAttempt: named(
      'start_attempt',
      `WITH old AS (SELECT id, live_state, expires_at FROM ${s}.connect_flows WHERE id = $1 AND status = 'pending' FOR UPDATE),
       tomb AS (INSERT INTO ${s}.connect_used_states (digest, flow_id, until) SELECT live_state, id, expires_at FROM old ` +
        `WHERE live_state IS NOT NULL ON CONFLICT DO NOTHING),
       upd AS (UPDATE ${s}.connect_flows f SET attempt = $2, live_state = $3 FROM old WHERE f.id = old.id RETURNING f.id)
       SELECT count(*)::int AS moved FROM upd`,
    ),
    // One winner: the row is locked, re-checked and emptied of its attempt in one statement.
    take: named(
      'take',
      `WITH old AS (SELECT ${COLUMNS}, live_state FROM ${s}.connect_flows WHERE live_state = $1 FOR UPDATE),
       tomb AS (INSERT INTO ${s}.connect_used_states (digest, flow_id, until) SELECT $1, id, expires_at FROM old ON CONFLICT DO NOTHING),
       upd AS (UPDATE ${s}.connect_flows f SET live_state = NULL, attempt = NULL FROM old WHERE f.id = old.id RETURNING f.id)
       SELECT old.id, old.elicitation_id, old.subject, old.session, old.purpose, old.created_at, old.expires_at, old.status, ` +
        `old.attempt, old.retired_reason, old.ended_at FROM old JOIN upd ON upd.id = old.id`,
    ),
    used: named(
      'used',
      `SELECT u.flow_id, EXISTS (SELECT 1 FROM ${s}.connect_flows f WHERE f.id = u.flow_id) AS kept ` +
        `FROM ${s}.connect_used_states u WHERE u.digest = $1`,
    ),
    complete: named('complete', `UPDATE ${s}.connect_flows SET status = 'completed', ended_at = $2 WHERE id = $1 AND status = 'pending'`),
    retire: named(
      'retire',
      `WITH old AS (SELECT id, live_state, expires_at FROM ${s}.connect_flows WHERE id = $1 AND status <> 'retired' FOR UPDATE),
       tomb AS (INSERT INTO ${s}.connect_used_states (digest, flow_id, until) SELECT live_state, id, expires_at FROM old ` +
        `WHERE live_state IS NOT NULL ON CONFLICT DO NOTHING),
       upd AS (UPDATE ${s}.connect_flows f SET status = 'retired', retired_reason = $2, ended_at = $3, live_state = NULL, ` +
        `attempt = NULL FROM old WHERE f.id = old.id RETURNING f.id)
       SELECT count(*)::int AS retired FROM upd`,
    ),
    sweepStates: named('sweep_states', `DELETE FROM ${s}.connect_used_states WHERE until <= $1`),
    sweepFlows: named('sweep_flows', `DELETE FROM ${s}.connect_flows WHERE expires_at <= $1`),
  };
}

/**
 * A `SecretVault` in PostgreSQL for several server instances: each secret sealed in the process
 * (AES-256-GCM, random IV, subject and provider as AAD) and written as one upsert, so instances
 * never overwrite each other's other rows and the database holds only ciphertext.
 *
 * @example const vault = await PostgresSecretVault.fromEnv(process.env.DATABASE_URL!)
 */
export class PostgresSecretVault implements SecretVault {
  readonly #pool: pg.Pool;
  readonly #key: Buffer;
  readonly #described: string;
  readonly #sql: ReturnType<typeof vaultStatements>;

  private constructor(pool: pg.Pool, key: Buffer, schema: string, described: string) {
    this.#pool = pool;
    this.#key = key;
    this.#described = described;
    this.#sql = vaultStatements(schema);
  }

  static async connect(target: PostgresTarget, key: Uint8Array, options: PostgresStoreOptions = {}): Promise<PostgresSecretVault> {
    if (!(key instanceof Uint8Array) || key.length !== KEY_BYTES)
      throw new GuardError(ServerCode.vaultKeyInvalid, `the vault key must be exactly ${KEY_BYTES} bytes`);
    const { pool, schema, described } = await openPool('the PostgreSQL vault', target, options, 'vault', VAULT_STEPS);
    return new PostgresSecretVault(pool, Buffer.from(key), schema, described);
  }

  /** A vault whose key comes from `MCP_GUARD_VAULT_KEY` (base64 of 32 bytes) in `env`. */
  static async fromEnv(
    target: PostgresTarget,
    env: Readonly<Record<string, string | undefined>> = process.env,
    options: PostgresStoreOptions = {},
  ): Promise<PostgresSecretVault> {
    return PostgresSecretVault.connect(target, parseVaultKey(env[VAULT_KEY_ENV]), options);
  }

  async put(subject: string, provider: string, secret: StoredSecret): Promise<void> {
    requireName(subject, 'subject');
    requireName(provider, 'provider');
    const sealed = seal(this.#key, subject, provider, cleanSecret(secret));
    await this.#query(this.#sql.put, [
      subject,
      provider,
      Buffer.from(sealed.iv, 'base64'),
      Buffer.from(sealed.tag, 'base64'),
      Buffer.from(sealed.data, 'base64'),
      Date.now(),
    ]);
  }

  async get(subject: string, provider: string): Promise<StoredSecret | null> {
    requireName(subject, 'subject');
    requireName(provider, 'provider');
    const { rows } = await this.#query<{ iv: Buffer; tag: Buffer; data: Buffer }>(this.#sql.get, [subject, provider]);
    const row = rows[0];
    if (row === undefined) return null;
    return unseal(this.#key, {
      subject,
      provider,
      iv: row.iv.toString('base64'),
      tag: row.tag.toString('base64'),
      data: row.data.toString('base64'),
    });
  }

  async delete(subject: string, provider: string): Promise<void> {
    requireName(subject, 'subject');
    requireName(provider, 'provider');
    await this.#query(this.#sql.delete, [subject, provider]);
  }

  async close(): Promise<void> {
    await this.#pool.end().catch(() => undefined);
  }

  async #query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    statement: { name: string; text: string },
    values: unknown[],
  ): Promise<pg.QueryResult<R>> {
    try {
      return await this.#pool.query<R>({ ...statement, values });
    } catch (error) {
      if (GuardError.is(error)) throw error;
      throw new GuardError(ServerCode.vaultUnavailable, `the vault at ${this.#described} failed (${errorCode(error)})`);
    }
  }
}

function vaultStatements(schema: string) {
  const s = schemaIdentifier(schema);
  const named = (name: string, text: string) => ({ name: `megv_${schema}_${name}`, text });
  return {
    put: named(
      'put',
      `INSERT INTO ${s}.vault_secrets (subject, provider, iv, tag, data, updated_at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (subject, provider) DO UPDATE SET iv = excluded.iv, tag = excluded.tag, data = excluded.data, updated_at = ` +
        `excluded.updated_at`,
    ),
    get: named('get', `SELECT iv, tag, data FROM ${s}.vault_secrets WHERE subject = $1 AND provider = $2`),
    delete: named('delete', `DELETE FROM ${s}.vault_secrets WHERE subject = $1 AND provider = $2`),
  };
}
