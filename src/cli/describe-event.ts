import type { GuardEvent } from '../core/events.js';
import { redact } from '../audit/redact.js';

/** How loud a line is; a logger at level L prints the lines at L and above. */
export type LogLevel = 'error' | 'warn' | 'info' | 'debug';

export const LOG_LEVELS: readonly LogLevel[] = ['error', 'warn', 'info', 'debug'];

/** True when a line at `level` is printed by a logger set to `threshold`. */
export function shouldLog(level: LogLevel, threshold: LogLevel): boolean {
  return LOG_LEVELS.indexOf(level) <= LOG_LEVELS.indexOf(threshold);
}

export interface EventLine {
  readonly level: LogLevel;
  /** One human line, e.g. `BLOCK form from everything: field "api_key" (credential: name:api key)`. */
  readonly text: string;
}

/** Server-provided text on one line: redacted once more, no control characters, bounded length. */
function clean(text: string, max = 300): string {
  // eslint-disable-next-line no-control-regex
  const flat = redact(text).replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu, ' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function who(event: GuardEvent): string {
  return clean(event.server.key ?? event.server.name ?? 'the server', 80);
}

function quoted(name: string): string {
  return JSON.stringify(clean(name, 80));
}

function list(codes: readonly string[]): string {
  return [...new Set(codes)].join(', ');
}

/**
 * The human line for a guard event, or `null` for an event that is part of another line (a
 * sensitive-form refusal is told once, by its `form.sensitive` event). Lines hold codes, field
 * names, hosts and the guard's reasons: never a value, a URL query or a secret (redacted once more).
 */
export function describeEvent(event: GuardEvent): EventLine | null {
  const from = who(event);
  switch (event.type) {
    case 'form.sensitive': {
      const fields = event.fields
        .map((f) => `field ${quoted(f.name)} (${f.class}${f.reasons.length > 0 ? `: ${clean(f.reasons.join(', '), 120)}` : ''})`)
        .join(', ');
      if (event.action === 'blocked')
        return {
          level: 'warn',
          text: `BLOCK form from ${from}: ${fields}${event.schemaDigest === undefined ? '' : ` [schema ${event.schemaDigest}]`}`,
        };
      return { level: 'warn', text: `AUDIT form from ${from}: ${fields} let through (form.onSensitive is "audit")` };
    }
    case 'elicitation.refused':
      if (event.code === 'E_SENSITIVE_FIELD') return null;
      return {
        level: 'warn',
        text: `BLOCK ${event.mode ?? 'elicitation'} from ${from}: ${event.code}${
          event.findings.length > 0 && event.code === 'E_URL_BLOCKED' ? ` (${list(event.findings)})` : ''
        }: ${clean(event.reason)}`,
      };
    case 'elicitation.forwarded': {
      const host = event.host === null ? '' : ` ${clean(event.host, 120)}`;
      const findings = event.findings.length > 0 ? ` (${list(event.findings)})` : '';
      if (event.verdict === 'allow') return { level: 'info', text: `ALLOW ${event.mode} from ${from}${host}${findings}` };
      return { level: 'warn', text: `WARN ${event.mode} from ${from}${host}: shown with a warning${findings}` };
    }
    case 'content.withheld':
      return {
        level: 'warn',
        text: `WITHHELD answer to ${from}: ${event.code} in ${
          event.fields.length > 0 ? event.fields.map(quoted).join(', ') : 'the content'
        }; the server got "cancel"`,
      };
    case 'url-required.filtered':
      return {
        level: 'warn',
        text: `FILTER -32042 from ${from}: kept ${event.kept}, removed ${event.removed}${
          event.code === null ? '' : ` (${event.code})`
        }${event.findings.length > 0 ? `: ${list(event.findings)}` : ''}`,
      };
    case 'retry.refused':
      return { level: 'warn', text: `REFUSE retry to ${from}: ${event.code}: ${clean(event.reason)}` };
    case 'response.withheld':
      return { level: 'warn', text: `WITHHELD response from ${from}: ${event.code}: ${clean(event.reason)}` };
    case 'exception.used':
      return {
        level: 'warn',
        text: `EXCEPTION ${event.kind} for ${from}: ${quoted(event.target)} allowed (${list(event.findings)}): ${clean(event.reason, 200)}`,
      };
    case 'url.audited':
      return {
        level: 'warn',
        text:
          `AUDIT url from ${from}${event.host === null ? '' : ` ${clean(event.host, 120)}`}: would block ` +
          `(${list(event.findings)}), let through (url.onBlock is "audit")`,
      };
    case 'protocol.violation':
      return { level: 'warn', text: `VIOLATION from ${from}: ${event.code}: ${clean(event.reason)}` };
    case 'url-required.loop':
      return {
        level: 'warn',
        text:
          `LOOP input required from ${from}: round ${event.round}, the same URL again ` +
          `(${event.hosts.map((h) => clean(h, 120)).join(', ')})`,
      };
    case 'session.era':
      return { level: 'info', text: `ERA ${from}: ${event.era} (protocol ${clean(event.protocolVersion ?? '?', 40)})` };
    case 'guard.error':
      return { level: 'error', text: `ERROR guard (${from}): ${event.code}: ${clean(event.message)}` };
    case 'issuing.changed':
      return {
        level: 'warn',
        text: `ROLLBACK issuing ${event.issuing} (${from}): ${
          event.issuing === 'stopped' ? 'new URL elicitations are declined' : 'URL elicitations are let through again'
        }`,
      };
    case 'nonces.revoked':
      return { level: 'warn', text: `ROLLBACK revoked ${event.revoked} outstanding nonce(s) (${from})` };
    case 'completion.dropped':
      return {
        level: 'info',
        text: `DROP completion from ${from}: ${event.reason}${event.elicitation === null ? '' : ` (${quoted(event.elicitation)})`}`,
      };
    case 'completion.delivered':
      return { level: 'info', text: `DELIVER completion from ${from}: ${quoted(event.elicitation)}` };
    case 'capabilities.narrowed':
      return {
        level: 'info',
        text: `NARROW capabilities for ${from}: the server sees ${modes(event.forwarded)} (the host declared ${modes(event.declared)})`,
      };
    case 'session.initialized':
      return {
        level: 'info',
        text: `SESSION with ${from}: protocol ${clean(event.protocolVersion ?? '?', 40)}, elicitation ${modes(event.modes)}`,
      };
    case 'flow.transition':
      return { level: 'debug', text: `FLOW ${clean(event.navigation, 80)} ${event.from} → ${event.to} (${event.trigger})` };
    case 'receipt.consent':
      return { level: 'debug', text: `RECEIPT consent ${clean(event.receipt, 80)}: ${event.decision}` };
    case 'receipt.business':
      return {
        level: 'debug',
        text:
          `RECEIPT business ${clean(event.receipt, 80)}: request ${clean(String(event.requestId), 80)}, ${event.lineage} ` +
          `lineage, retry ${event.retryGeneration}`,
      };
    default: {
      const unknown = event as { type?: unknown };
      return { level: 'debug', text: `EVENT ${clean(String(unknown.type), 60)} (${from})` };
    }
  }
}

function modes(m: { readonly form: boolean; readonly url: boolean }): string {
  const on = [m.form ? 'form' : null, m.url ? 'url' : null].filter((x) => x !== null);
  return on.length === 0 ? 'none' : on.join(' + ');
}
