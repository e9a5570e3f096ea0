/**
 * What the PostgreSQL ledger needs from `pg` beyond queries: loading the optional driver, a pool
 * that never crashes its host, errors that name the database without its credentials, schema
 * steps applied once under an advisory lock, and a health watch that reconnects with backoff.
 */
import type pg from 'pg';
import { GuardCode, GuardError } from '../protocol/errors.js';

export type PgModule = typeof pg;

/** Loads `pg` (an optional dependency) with a clear error when it is missing. */
export async function loadPg(what: string): Promise<PgModule> {
  try {
    const module = (await import('pg')) as unknown as { default?: PgModule } & PgModule;
    return module.default ?? module;
  } catch (error) {
    throw new GuardError(
      GuardCode.ledgerUnavailable,
      `${what} needs the optional dependency pg (npm install pg): ${(error as Error).message}`,
    );
  }
}

/** A connection string or `pg` pool settings. */
export type PostgresTarget = string | pg.PoolConfig;

/** `host:port/database` of a target, for messages: never the user name or the password. */
export function describeTarget(target: PostgresTarget): string {
  try {
    if (typeof target === 'string') {
      const url = new URL(target);
      const host = url.hostname === '' ? (url.searchParams.get('host') ?? 'localhost') : url.hostname;
      return `${host}:${url.port === '' ? '5432' : url.port}${url.pathname === '' || url.pathname === '/' ? '' : url.pathname}`;
    }
    if (target.connectionString !== undefined) return describeTarget(target.connectionString);
    return `${target.host ?? 'localhost'}:${target.port ?? 5432}/${target.database ?? ''}`;
  } catch {
    return 'the configured database';
  }
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** The schema name, checked, as a quoted identifier. */
export function schemaIdentifier(schema: string): string {
  if (!SCHEMA_NAME.test(schema))
    throw new GuardError(
      GuardCode.recordInvalid,
      'a PostgreSQL schema name must be 1 to 63 lower-case letters, digits or "_", not starting with a digit',
    );
  return `"${schema}"`;
}

/** int8 as a JavaScript number (the ledger's times are milliseconds, well within 2^53), without touching `pg`'s global parsers. */
export function poolTypes(driver: PgModule): pg.CustomTypesConfig {
  return {
    getTypeParser: ((oid: number, format?: string) =>
      oid === 20
        ? (text: string) => Number(text)
        : driver.types.getTypeParser(oid, format as 'text')) as pg.CustomTypesConfig['getTypeParser'],
  };
}

export interface PoolSettings {
  readonly max: number;
  readonly connectTimeoutMs: number;
  readonly statementTimeoutMs: number;
  readonly applicationName: string;
}

/** A pool whose connection errors are reported, never thrown (a restarted server must not crash the host). */
export function createPool(driver: PgModule, target: PostgresTarget, settings: PoolSettings, onIdleError: (error: Error) => void): pg.Pool {
  const base: pg.PoolConfig = typeof target === 'string' ? { connectionString: target } : { ...target };
  const pool = new driver.Pool({
    ...base,
    max: base.max ?? settings.max,
    connectionTimeoutMillis: base.connectionTimeoutMillis ?? settings.connectTimeoutMs,
    statement_timeout: base.statement_timeout ?? settings.statementTimeoutMs,
    idle_in_transaction_session_timeout: base.idle_in_transaction_session_timeout ?? Math.max(settings.statementTimeoutMs * 2, 10_000),
    application_name: base.application_name ?? settings.applicationName,
    keepAlive: base.keepAlive ?? true,
    allowExitOnIdle: base.allowExitOnIdle ?? true,
    types: base.types ?? poolTypes(driver),
  });
  pool.on('error', onIdleError);
  // A connection that dies while checked out but between queries emits 'error' on its client, which
  // would be an uncaught exception without a listener: every client gets one for its whole life.
  pool.on('connect', (client) => client.on('error', onIdleError));
  return pool;
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);

/** Whether an error means the database cannot be reached (as opposed to a refused statement). */
export function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (CONNECTION_CODES.has(code) || code.startsWith('08'))) return true;
  const message = (error as { message?: unknown } | null)?.message;
  return (
    typeof message === 'string' &&
    /connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|not queryable/i.test(
      message,
    )
  );
}

/** A deadlock or serialization failure: the transaction was rolled back and may simply be run again. */
export function isRetryableTransaction(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '40P01' || code === '40001';
}

/** The error's code for a message: a PostgreSQL SQLSTATE or a Node error code, never its text. */
export function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[A-Z0-9_]{1,32}$/.test(code) ? code : 'error';
}

/** One schema step of a component. Steps are append-only: a released step is never edited. */
export interface PgMigration {
  readonly version: number;
  readonly summary: string;
  /** The step's SQL; `$schema` stands for the quoted schema name. */
  readonly sql: string;
}

/**
 * Brings `component`'s tables in `schema` up to the latest step, once, whatever the number of
 * processes doing the same at the same moment (a transaction-scoped advisory lock). Refuses a
 * database written by a newer release. Returns the version it is at.
 */
export async function migratePg(client: pg.ClientBase, schema: string, component: string, steps: readonly PgMigration[]): Promise<number> {
  const quoted = schemaIdentifier(schema);
  const latest = steps[steps.length - 1]?.version ?? 0;
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`mcp-elicitation-guard/${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${quoted}.schema_migrations (component text NOT NULL, version integer NOT NULL, summary ` +
        `text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (component, version))`,
    );
    const { rows } = await client.query<{ version: number | null }>(
      `SELECT max(version) AS version FROM ${quoted}.schema_migrations WHERE component = $1`,
      [component],
    );
    const current = rows[0]?.version ?? 0;
    if (current > latest)
      throw new GuardError(
        GuardCode.ledgerUnavailable,
        `the ${component} tables in schema ${schema} are at version ${current}, newer than this release understands (${latest})`,
      );
    for (const step of steps) {
      if (step.version <= current) continue;
      await client.query(step.sql.replaceAll('$schema', quoted));
      await client.query(`INSERT INTO ${quoted}.schema_migrations (component, version, summary) VALUES ($1, $2, $3)`, [
        component,
        step.version,
        step.summary,
      ]);
    }
    await client.query('COMMIT');
    return Math.max(current, latest);
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

export interface BackoffOptions {
  /** The first wait before probing again after the database was lost (default 100 ms). */
  readonly initialDelayMs?: number;
  /** The longest wait between probes (default 5000 ms). */
  readonly maxDelayMs?: number;
}

/**
 * Whether the database is reachable, as the last attempt found it. When an attempt finds it
 * unreachable, calls fail fast with `E_LEDGER_UNAVAILABLE` while a probe retries in the background
 * with exponential backoff (with jitter), until the database answers again.
 */
export class HealthWatch {
  readonly #probe: () => Promise<void>;
  readonly #initialDelayMs: number;
  readonly #maxDelayMs: number;
  readonly #random: () => number;
  #down: { since: number; reason: string } | null = null;
  #delay: number;
  #timer: NodeJS.Timeout | null = null;
  #stopped = false;
  #reconnects = 0;
  #listeners: (() => void)[] = [];

  constructor(probe: () => Promise<void>, options: BackoffOptions = {}, random: () => number = Math.random) {
    this.#probe = probe;
    this.#initialDelayMs = options.initialDelayMs ?? 100;
    this.#maxDelayMs = options.maxDelayMs ?? 5000;
    if (
      !Number.isSafeInteger(this.#initialDelayMs) ||
      this.#initialDelayMs < 1 ||
      !Number.isSafeInteger(this.#maxDelayMs) ||
      this.#maxDelayMs < this.#initialDelayMs
    ) {
      throw new GuardError(GuardCode.recordInvalid, 'reconnect delays must be positive integers with maxDelayMs >= initialDelayMs');
    }
    this.#delay = this.#initialDelayMs;
    this.#random = random;
  }

  /** Why the database is considered down, or null when it is up. */
  get down(): { readonly since: number; readonly reason: string } | null {
    return this.#down;
  }

  /** How many times the database came back after being lost. */
  get reconnects(): number {
    return this.#reconnects;
  }

  /** Records that an attempt could not reach the database, and starts probing. */
  lost(reason: string): void {
    if (this.#stopped) return;
    if (this.#down === null) {
      this.#down = { since: Date.now(), reason };
      this.#delay = this.#initialDelayMs;
    }
    this.#schedule();
  }

  /** Resolves the next time the database is found up (immediately when it is up). */
  whenUp(): Promise<void> {
    if (this.#down === null) return Promise.resolve();
    return new Promise((resolve) => this.#listeners.push(resolve));
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    for (const listener of this.#listeners.splice(0)) listener();
  }

  #schedule(): void {
    if (this.#timer !== null || this.#stopped) return;
    const wait = Math.round(this.#delay * (0.5 + this.#random()));
    this.#timer = setTimeout(() => void this.#attempt(), wait);
    this.#timer.unref();
  }

  async #attempt(): Promise<void> {
    this.#timer = null;
    if (this.#stopped) return;
    try {
      await this.#probe();
    } catch (error) {
      if (this.#down !== null) this.#down = { since: this.#down.since, reason: errorCode(error) };
      this.#delay = Math.min(this.#delay * 2, this.#maxDelayMs);
      this.#schedule();
      return;
    }
    this.#down = null;
    this.#delay = this.#initialDelayMs;
    this.#reconnects += 1;
    for (const listener of this.#listeners.splice(0)) listener();
  }
}
