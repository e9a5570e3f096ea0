import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { defaultPolicy, loadPolicy, type Policy, type PolicyDocument } from '../policy/policy.js';
import { GuardError } from '../protocol/errors.js';
import { writeLine, type CliIo } from './io.js';

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

/**
 * The `--policy` a command judges with, or `null` after telling the user why the file cannot be
 * used (the command then exits 2).
 */
export function commandPolicy(command: string, file: string | undefined, io: CliIo): Policy | null {
  try {
    return loadRunPolicy(file, io.cwd).document.base;
  } catch (error) {
    if (!GuardError.is(error)) throw error;
    writeLine(io.stderr, `mcp-elicitation-guard ${command}: ${error.code}: ${error.message}`);
    return null;
  }
}
