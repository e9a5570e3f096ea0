import { existsSync, readdirSync, readFileSync } from 'node:fs';
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

/**
 * The host names of the corpus files `files` (every `.txt` of the folder when not given): `#`
 * comments and blank lines skipped, first tab-separated column. Empty when the corpora are absent;
 * a named file that is missing is skipped.
 */
export function corpusHosts(files?: readonly string[]): string[] {
  if (!corporaAvailable()) return [];
  const hosts: string[] = [];
  for (const file of files ?? readdirSync(CORPORA_DIR).filter((name) => name.endsWith('.txt'))) {
    const path = `${CORPORA_DIR}${file}`;
    if (!existsSync(path)) continue;
    for (const raw of readFileSync(path, 'utf8').split('\n')) {
      const line = raw.trim();
      if (line !== '' && !line.startsWith('#')) hosts.push(line.split('\t')[0]!.trim());
    }
  }
  return hosts;
}
