import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import { redact } from './redact.js';

/** What the audit log records: a guard event (`GuardEvent` in the core) or any event shaped like one. */
export interface AuditRecord {
  readonly type: string;
  readonly at: number;
}

/** An append-only JSON Lines audit log of guard events, redacted on the way in. */
export interface AuditLog {
  write<E extends AuditRecord>(event: E): void;
  close(): Promise<void>;
}

/** Opens (creating folders as needed) a JSONL audit log that appends to `path`. */
export function createAuditLog(path: string): AuditLog {
  mkdirSync(dirname(path), { recursive: true });
  const stream: WriteStream = createWriteStream(path, { flags: 'a', mode: 0o600 });
  return {
    write(event) {
      stream.write(JSON.stringify(redact(event)) + '\n');
    },
    close() {
      return new Promise((resolve, reject) => stream.end((error?: Error | null) => (error ? reject(error) : resolve())));
    },
  };
}
