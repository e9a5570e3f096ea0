/** Argument checks and errors shared by every Ledger implementation, so they refuse alike. */
import { canTransition, illegalTransition, type FlowState, type FlowTrigger } from '../flow/states.js';
import { GuardCode, GuardError } from '../protocol/errors.js';
import type { NavigationQuery } from './types.js';

export function checkMove(from: FlowState, to: FlowState, trigger: FlowTrigger, at: number): void {
  if (!canTransition(from, to, trigger)) throw illegalTransition(from, to, trigger);
  checkTime(at);
}

export function checkTime(at: number): void {
  if (!Number.isSafeInteger(at) || at < 0)
    throw new GuardError(GuardCode.recordInvalid, 'a ledger time must be a non-negative integer (ms since the epoch)');
}

/** The limit as a number, `null` for none. */
export function checkQuery(query: NavigationQuery | undefined): number | null {
  const limit = query?.limit;
  if (limit === undefined) return null;
  if (!Number.isSafeInteger(limit) || limit < 1)
    throw new GuardError(GuardCode.recordInvalid, 'listNavigations: limit must be a positive integer');
  return limit;
}

export function checkDigest(digest: string): void {
  if (typeof digest !== 'string' || !/^[0-9a-f]{64}$/.test(digest))
    throw new GuardError(GuardCode.recordInvalid, 'a request digest must be a sha256 digest in lower-case hex');
}

export function closedError(): GuardError {
  return new GuardError(GuardCode.ledgerUnavailable, 'the ledger is closed');
}

export function unknownNavigation(id: string): GuardError {
  return new GuardError(GuardCode.unknownNavigation, `no navigation record "${id}" in the ledger`, { id });
}

export function duplicateRecord(kind: string, id: string): GuardError {
  return new GuardError(GuardCode.duplicateRecord, `a ${kind} with id "${id}" is already in the ledger`, { id });
}
