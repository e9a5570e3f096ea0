/**
 * The safety invariants summed over the whole fault suite. Vitest runs test files in parallel
 * workers, so each fault file appends its final counters as one JSON line to a file named by the
 * run id (set by `global-setup.ts`), and the global teardown sums them. No vitest import here: the
 * teardown runs in vitest's main process.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The environment variable holding the run id (set by the global setup, inherited by the workers). */
export const RUN_ENV = 'MEG_FAULT_RUN_ID';

/** The final counters of one fault file: the sums over its guards and connect services. */
export interface FaultCounters {
  readonly file: string;
  readonly guards: number;
  readonly connectServices: number;
  readonly sensitiveFieldsBlocked: number;
  readonly sensitiveFieldsLetThrough: number;
  readonly completionsDelivered: number;
  readonly completionsDropped: number;
  readonly completionNoticesAdvancingUnknown: number;
  readonly originalOperationsAccepted: number;
  /** The largest, not the sum: the invariant is per lineage key. */
  readonly maxAcceptancesPerLineage: number;
  readonly tokensBound: number;
  /** Includes tokens whose provider account (`sub`) is not the flow subject's, as the vault shows. */
  readonly crossSubjectBindings: number;
  readonly bindingsByOtherBrowser: number;
  readonly callbackReplayRefused: number;
}

export interface FaultTotals extends Omit<FaultCounters, 'file'> {
  readonly files: readonly string[];
}

export function countersFile(runId: string): string {
  return join(tmpdir(), `mcp-elicitation-guard-faults-${runId}.jsonl`);
}

const NUMERIC = [
  'guards',
  'connectServices',
  'sensitiveFieldsBlocked',
  'sensitiveFieldsLetThrough',
  'completionsDelivered',
  'completionsDropped',
  'completionNoticesAdvancingUnknown',
  'originalOperationsAccepted',
  'maxAcceptancesPerLineage',
  'tokensBound',
  'crossSubjectBindings',
  'bindingsByOtherBrowser',
  'callbackReplayRefused',
] as const satisfies readonly (keyof FaultCounters)[];

/** Parses the JSONL written by the fault files; a malformed line is an error, never skipped. */
export function parseCounters(text: string): FaultCounters[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, i) => {
      const value: unknown = JSON.parse(line);
      if (typeof value !== 'object' || value === null) throw new Error(`fault counters line ${i + 1} is not an object`);
      const row = value as Record<string, unknown>;
      if (typeof row.file !== 'string') throw new Error(`fault counters line ${i + 1} has no file`);
      for (const key of NUMERIC) {
        if (!Number.isSafeInteger(row[key]) || (row[key] as number) < 0)
          throw new Error(`fault counters line ${i + 1} (${row.file}): ${key} is not a count`);
      }
      return row as unknown as FaultCounters;
    });
}

export function sumCounters(rows: readonly FaultCounters[]): FaultTotals {
  const sum = (key: (typeof NUMERIC)[number]) => rows.reduce((n, row) => n + row[key], 0);
  return {
    files: rows.map((row) => row.file),
    guards: sum('guards'),
    connectServices: sum('connectServices'),
    sensitiveFieldsBlocked: sum('sensitiveFieldsBlocked'),
    sensitiveFieldsLetThrough: sum('sensitiveFieldsLetThrough'),
    completionsDelivered: sum('completionsDelivered'),
    completionsDropped: sum('completionsDropped'),
    completionNoticesAdvancingUnknown: sum('completionNoticesAdvancingUnknown'),
    originalOperationsAccepted: sum('originalOperationsAccepted'),
    maxAcceptancesPerLineage: rows.reduce((n, row) => Math.max(n, row.maxAcceptancesPerLineage), 0),
    tokensBound: sum('tokensBound'),
    crossSubjectBindings: sum('crossSubjectBindings'),
    bindingsByOtherBrowser: sum('bindingsByOtherBrowser'),
    callbackReplayRefused: sum('callbackReplayRefused'),
  };
}

/** Each broken invariant, as a sentence; empty when all hold. */
export function violations(totals: FaultTotals): string[] {
  const broken: string[] = [];
  if (totals.sensitiveFieldsLetThrough !== 0)
    broken.push(`${totals.sensitiveFieldsLetThrough} sensitive form field(s) were let through under onSensitive "block"`);
  if (totals.completionNoticesAdvancingUnknown !== 0)
    broken.push(
      `${totals.completionNoticesAdvancingUnknown} completion notice(s) for ids not pending in their session were delivered ` +
        `or advanced a flow`,
    );
  if (totals.crossSubjectBindings !== 0) broken.push(`${totals.crossSubjectBindings} token(s) were bound across subjects`);
  if (totals.bindingsByOtherBrowser !== 0)
    broken.push(`${totals.bindingsByOtherBrowser} token(s) were bound from a browser that did not start the flow`);
  if (totals.maxAcceptancesPerLineage > 1)
    broken.push(`one lineage had its original operation accepted ${totals.maxAcceptancesPerLineage} times`);
  return broken;
}

/** The totals as a few printable lines. */
export function formatTotals(totals: FaultTotals): string {
  return [
    `fault suite invariants over ${totals.files.length} file(s), ${totals.guards} guard(s), ${totals.connectServices} connect service(s):`,
    `  sensitive fields blocked ${totals.sensitiveFieldsBlocked}, let through ${totals.sensitiveFieldsLetThrough} (must be 0)`,
    `  completions delivered ${totals.completionsDelivered}, dropped ${totals.completionsDropped}; unknown notices that ` +
      `advanced ${totals.completionNoticesAdvancingUnknown} (must be 0)`,
    `  original operations accepted ${totals.originalOperationsAccepted}; most acceptances of one ` +
      `lineage ${totals.maxAcceptancesPerLineage} (must be <= 1)`,
    `  tokens bound ${totals.tokensBound}; cross-subject bindings ${totals.crossSubjectBindings} (must be 0); bound from ` +
      `another browser ${totals.bindingsByOtherBrowser} (must be 0); callback replays refused ${totals.callbackReplayRefused}`,
  ].join('\n');
}
