import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The shared legitimate-host corpora live beside the repository (`../shared/corpora`) and are never
 * copied into it. A clone without them still tests and benchmarks everything else: the measurements
 * that need them say so in one line and are skipped. With `CI=true` they are required (CI has them).
 * `MCP_GUARD_CORPORA_DIR` points elsewhere (with a trailing slash), e.g. to test the skip itself.
 */
export const CORPORA_DIR = process.env.MCP_GUARD_CORPORA_DIR ?? fileURLToPath(new URL('../../../shared/corpora/', import.meta.url));

export const CORPORA_REQUIRED = process.env.CI === 'true';

/** True when the corpora folder is there. */
export function corporaAvailable(): boolean {
  return existsSync(CORPORA_DIR);
}

/** The one line printed when the corpora are absent. */
export function corporaMissingLine(what: string): string {
  return `shared corpora not found (../shared/corpora beside the repository): ${what} skipped${
    CORPORA_REQUIRED ? ', but CI=true requires them' : ' (required when CI=true)'
  }`;
}
