/**
 * One way to open a ledger from what a user typed (`--ledger`, a config value): the CLI's `proxy`,
 * `ledger …` and `ledger serve` all go through `openLedger`, so they understand the same specs.
 *
 *   memory                      a MemoryLedger (lost on exit)
 *   postgres://… | postgresql://…   a PostgresLedger (one database shared by many guards)
 *   anything else               a SQLite file path (relative to `cwd`)
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { GuardCode, GuardError } from '../protocol/errors.js';
import { MemoryLedger } from './memory.js';
import { describeTarget } from './postgres-support.js';
import type { Ledger } from './types.js';

export type LedgerKind = 'memory' | 'sqlite' | 'postgres';

export interface LedgerLocation {
  readonly kind: LedgerKind;
  /** The absolute file path (sqlite), the URL (postgres) or `memory`. */
  readonly target: string;
  /** For messages: the file path, or `host:port/database` without credentials. */
  readonly display: string;
}

export interface OpenLedgerOptions {
  /** Where a relative SQLite path is resolved from (default: the process's working directory). */
  readonly cwd?: string;
  /** Create the SQLite file's folder when missing (default false). */
  readonly createDirectories?: boolean;
  /** A PostgreSQL ledger returns at once even when the database is not reachable yet (default false). */
  readonly lazy?: boolean;
  /** The PostgreSQL schema (default `mcp_elicitation_guard`). */
  readonly schema?: string;
}

const POSTGRES_URL = /^postgres(?:ql)?:\/\//i;

/** What a ledger spec names, without opening anything. */
export function parseLedgerSpec(spec: string, cwd: string = process.cwd()): LedgerLocation {
  if (typeof spec !== 'string' || spec.trim() === '')
    throw new GuardError(GuardCode.input, 'a ledger spec is "memory", a postgres:// URL or a SQLite file path');
  if (spec === 'memory') return { kind: 'memory', target: 'memory', display: 'memory' };
  if (POSTGRES_URL.test(spec)) {
    try {
      new URL(spec);
    } catch {
      throw new GuardError(GuardCode.input, 'the PostgreSQL ledger URL is not a valid URL (postgres://user@host:port/database)');
    }
    return { kind: 'postgres', target: spec, display: `postgres ${describeTarget(spec)}` };
  }
  const file = resolve(cwd, spec);
  return { kind: 'sqlite', target: file, display: file };
}

/** Whether the ledger a spec names exists already (a memory ledger never does; a database is asked when opened). */
export function ledgerExists(location: LedgerLocation): boolean {
  return location.kind === 'postgres' || (location.kind === 'sqlite' && existsSync(location.target));
}

/**
 * Opens the ledger a spec names: `SqliteLedger.open` for a file, `PostgresLedger.connect` for a
 * URL, a `MemoryLedger` for `memory`. Errors are `GuardError`s with `E_LEDGER_UNAVAILABLE` and
 * never include a URL's credentials.
 *
 * @example const ledger = await openLedger(process.env.MCP_GUARD_LEDGER ?? 'ledger.sqlite')
 */
export async function openLedger(spec: string | LedgerLocation, options: OpenLedgerOptions = {}): Promise<Ledger> {
  const location = typeof spec === 'string' ? parseLedgerSpec(spec, options.cwd) : spec;
  switch (location.kind) {
    case 'memory':
      return new MemoryLedger();
    case 'sqlite': {
      if (options.createDirectories === true) mkdirSync(dirname(location.target), { recursive: true });
      const { SqliteLedger } = await import('./sqlite.js');
      return SqliteLedger.open(location.target);
    }
    case 'postgres': {
      const { PostgresLedger } = await import('./postgres.js');
      return PostgresLedger.connect(location.target, {
        ...(options.lazy === undefined ? {} : { lazy: options.lazy }),
        ...(options.schema === undefined ? {} : { schema: options.schema }),
      });
    }
  }
}
