/**
 * The connect service's audit trail. Events carry stable codes, digests of subjects and flow ids,
 * the elicitation id and the provider's name: never a token, a code, a state, a verifier or a URL
 * query. The JSONL writer also passes every event through `redact`, as a second line of defence.
 */
import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { redact } from '../audit/redact.js';

/** Why a connect page or callback was refused. Stable: dashboards and tests match on them. */
export const ConnectCode = {
  unknownFlow: 'E_CONNECT_UNKNOWN_FLOW',
  unauthenticated: 'E_CONNECT_UNAUTHENTICATED',
  subjectMismatch: 'E_CONNECT_SUBJECT_MISMATCH',
  expired: 'E_CONNECT_EXPIRED',
  alreadyCompleted: 'E_CONNECT_ALREADY_COMPLETED',
  stateMissing: 'E_CONNECT_STATE_MISSING',
  stateUnknown: 'E_CONNECT_STATE_UNKNOWN',
  stateReplayed: 'E_CONNECT_STATE_REPLAYED',
  providerDenied: 'E_CONNECT_PROVIDER_DENIED',
  responseInvalid: 'E_CONNECT_RESPONSE_INVALID',
  tokenRefused: 'E_CONNECT_TOKEN_REFUSED',
  tokenInvalid: 'E_CONNECT_TOKEN_INVALID',
  audienceMismatch: 'E_CONNECT_AUDIENCE_MISMATCH',
  providerUnavailable: 'E_CONNECT_PROVIDER_UNAVAILABLE',
  vaultFailed: 'E_CONNECT_VAULT_FAILED',
  completionFailed: 'E_CONNECT_COMPLETION_FAILED',
  notFound: 'E_CONNECT_NOT_FOUND',
  /** The callback came from a browser other than the one that opened the connect page. */
  otherBrowser: 'E_CONNECT_OTHER_BROWSER',
  /** The provider's token is for another account than the one this server expects for the user. */
  accountMismatch: 'E_CONNECT_ACCOUNT_MISMATCH',
  /** The flow was ended by an earlier refused callback. */
  flowRetired: 'E_CONNECT_FLOW_RETIRED',
} as const;

export type ConnectCode = (typeof ConnectCode)[keyof typeof ConnectCode];

interface ConnectEventBase {
  /** Milliseconds since the epoch, from the service's clock. */
  readonly at: number;
  /** The provider's name (the vault key's second half). */
  readonly provider: string;
}

/** Every event the connect service reports. Subjects and flow ids appear only as short digests. */
export type ConnectEvent =
  | (ConnectEventBase & {
      readonly type: 'connect.issued';
      readonly elicitationId: string;
      readonly flow: string;
      readonly subject: string;
      readonly expiresAt: number;
    })
  | (ConnectEventBase & {
      readonly type: 'connect.redirected';
      readonly elicitationId: string;
      readonly flow: string;
      readonly subject: string;
      readonly navigation: string;
    })
  | (ConnectEventBase & {
      readonly type: 'connect.completed';
      readonly elicitationId: string;
      readonly flow: string;
      readonly subject: string;
      readonly scope: string | null;
    })
  | (ConnectEventBase & {
      readonly type: 'connect.refused';
      readonly code: ConnectCode;
      /** The HTTP status the browser got. */
      readonly status: number;
      readonly stage: 'connect' | 'callback' | 'completion';
      readonly elicitationId: string | null;
      readonly flow: string | null;
      /** Digest of the subject the request was authenticated as, if any. */
      readonly subject: string | null;
      /** Digest of the subject the flow was issued for, if the flow is known. */
      readonly expectedSubject: string | null;
      /** A fixed description, or the provider's OAuth error code: never a value from the request. */
      readonly reason: string;
      /** True when the refusal ended the flow (its state burned, its reason recorded). */
      readonly retired: boolean;
    });

export type ConnectEventType = ConnectEvent['type'];

/** Where the connect service writes its events. */
export interface ConnectAudit {
  write(event: ConnectEvent): void;
}

export interface ConnectAuditLog extends ConnectAudit {
  close(): Promise<void>;
}

/** Opens (creating folders as needed) a JSONL log of connect events that appends to `path`. */
export function createConnectAuditLog(path: string): ConnectAuditLog {
  mkdirSync(dirname(path), { recursive: true });
  const stream = createWriteStream(path, { flags: 'a', mode: 0o600 });
  return {
    write(event) {
      stream.write(JSON.stringify(redact(event)) + '\n');
    },
    close() {
      return new Promise((resolve, reject) => stream.end((error?: Error | null) => (error ? reject(error) : resolve())));
    },
  };
}
