export type { AcceptOutcome, FlowTransition, FlowUpdate, Ledger, NavigationQuery, StoredNavigation } from './types.js';
export { MemoryLedger } from './memory.js';
// Loads better-sqlite3 only inside SqliteLedger.open: importing this module does not.
export { SqliteLedger, type SqliteLedgerOptions, type SqliteLedgerSettings } from './sqlite.js';
export { LATEST_VERSION, MIGRATIONS, migrate, schemaVersion, type Migration } from './migrations.js';
