export type { AcceptOutcome, FlowTransition, FlowUpdate, Ledger, NavigationQuery, StoredNavigation } from './types.js';
export { MemoryLedger } from './memory.js';
// Loads better-sqlite3 only inside SqliteLedger.open: importing this module does not.
export { DEFAULT_MAX_GROUP_SIZE, SqliteLedger, type SqliteLedgerOptions, type SqliteLedgerSettings } from './sqlite.js';
export type { GroupCommitStats } from './group-commit.js';
export { LATEST_VERSION, MIGRATIONS, migrate, schemaVersion, type Migration } from './migrations.js';
// Loads pg only inside PostgresLedger.connect: importing this module does not.
export {
  POSTGRES_DEFAULT_SCHEMA,
  POSTGRES_LATEST_VERSION,
  POSTGRES_MIGRATIONS,
  PostgresLedger,
  type PostgresLedgerOptions,
  type PostgresLedgerSettings,
} from './postgres.js';
export type { BackoffOptions, PgMigration, PostgresTarget } from './postgres-support.js';
export { ledgerExists, openLedger, parseLedgerSpec, type LedgerKind, type LedgerLocation, type OpenLedgerOptions } from './open.js';
