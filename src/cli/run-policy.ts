import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { defaultPolicy, loadPolicy, type PolicyDocument } from '../policy/policy.js';

/** The policy a command runs with: the parsed document and the JSON it came from (for row overrides). */
export interface RunPolicy {
  readonly document: PolicyDocument;
  /** The policy file's JSON object (`{}` when no file was given). */
  readonly json: Readonly<Record<string, unknown>>;
}

/**
 * Loads `--policy FILE` relative to the working directory, or the built-in policy. Throws the
 * `GuardError` of `loadPolicy` (`E_POLICY_UNREADABLE`, `E_POLICY_INVALID`) for the command to report.
 */
export function loadRunPolicy(file: string | undefined, cwd: string): RunPolicy {
  if (file === undefined) return { document: defaultPolicy, json: {} };
  const path = resolve(cwd, file);
  const document = loadPolicy(path);
  // loadPolicy has just parsed the same bytes, so this cannot fail short of a race with a writer.
  const json = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  return { document, json };
}
