export type { AcceptOutcome, FlowTransition, FlowUpdate, Ledger, NavigationQuery, StoredNavigation } from './types.js';
export { MemoryLedger } from './memory.js';
// Loads better-sqlite3 only inside SqliteLedger.open: importing this module does not.
export { DEFAULT_MAX_GROUP_SIZE, SqliteLedger, type SqliteLedgerOptions, type SqliteLedgerSettings } from './sqlite.js';
export type { GroupCommitStats } from './group-commit.js';
export { LATEST_VERSION, MIGRATIONS, migrate, schemaVersion, type Migration } from './migrations.js';
