/**
 * How a connect flow is written to a database row and read back, shared by the SQLite and
 * PostgreSQL stores: every field of `ConnectFlow` and `ConnectAttempt` survives the trip, and a row
 * that does not parse is refused rather than trusted.
 */
import { parseNavigationRecord } from '../flow/records.js';
import { GuardCode, GuardError } from '../protocol/errors.js';
import { ConnectCode } from './connect-audit.js';
import type { ConnectAttempt, ConnectFlow, ConnectFlowStatus } from './connect-store.js';

export interface ConnectFlowRow {
  id: string;
  elicitation_id: string;
  subject: string;
  session: string | null;
  purpose: string;
  created_at: number;
  expires_at: number;
  status: string;
  attempt: string | null;
  retired_reason: string | null;
  ended_at: number | null;
}

const STATUSES = new Set<ConnectFlowStatus>(['pending', 'completed', 'retired']);
const CODES = new Set<string>(Object.values(ConnectCode));

function corrupt(what: string): GuardError {
  return new GuardError(GuardCode.internal, `the connect flow store holds a corrupt row: ${what}`);
}

export function attemptText(attempt: ConnectAttempt): string {
  return JSON.stringify({
    navigation: attempt.navigation,
    codeVerifier: attempt.codeVerifier,
    browserBindingDigest: attempt.browserBindingDigest,
  });
}

export function parseAttempt(text: string): ConnectAttempt {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw corrupt('an attempt is not JSON');
  }
  const v = value as Record<string, unknown>;
  if (
    typeof v['codeVerifier'] !== 'string' ||
    typeof v['browserBindingDigest'] !== 'string' ||
    !/^[0-9a-f]{64}$/.test(v['browserBindingDigest'])
  )
    throw corrupt('an attempt lacks its verifier or binding');
  return Object.freeze({
    navigation: parseNavigationRecord(v['navigation']),
    codeVerifier: v['codeVerifier'],
    browserBindingDigest: v['browserBindingDigest'],
  });
}

export function flowFromRow(row: ConnectFlowRow): ConnectFlow {
  if (!STATUSES.has(row.status as ConnectFlowStatus)) throw corrupt(`flow status ${JSON.stringify(row.status).slice(0, 40)}`);
  if (row.retired_reason !== null && !CODES.has(row.retired_reason)) throw corrupt('an unknown retirement reason');
  return Object.freeze({
    id: row.id,
    elicitationId: row.elicitation_id,
    subject: row.subject,
    session: row.session,
    purpose: row.purpose,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    status: row.status as ConnectFlowStatus,
    attempt: row.attempt === null ? null : parseAttempt(row.attempt),
    retiredReason: row.retired_reason as ConnectFlow['retiredReason'],
    endedAt: row.ended_at === null ? null : Number(row.ended_at),
  });
}

/** The row's values in column order: id, elicitation_id, subject, session, purpose, created_at, expires_at, status, attempt, live_state, retired_reason, ended_at. */
export function rowValues(flow: ConnectFlow): unknown[] {
  return [
    flow.id,
    flow.elicitationId,
    flow.subject,
    flow.session,
    flow.purpose,
    flow.createdAt,
    flow.expiresAt,
    flow.status,
    flow.attempt === null ? null : attemptText(flow.attempt),
    flow.attempt === null || flow.status !== 'pending' ? null : flow.attempt.navigation.stateNonceDigest,
    flow.retiredReason,
    flow.endedAt,
  ];
}
