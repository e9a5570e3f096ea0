import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { GuardEvent } from '../core/events.js';

/** Which events of an audit log to keep. */
export interface AuditFilter {
  /** Matches the server's key or the name it gave in `initialize`. */
  readonly server?: string;
  /** Event types (`form.sensitive`) or families (`form`, `elicitation`). */
  readonly types?: readonly string[];
  /** Milliseconds since the epoch, inclusive. */
  readonly since?: number;
  readonly until?: number;
}

/** One line of the log: the event, or `null` when the line is not an event (blank, not JSON, no type/time). */
export function parseAuditLine(line: string): GuardEvent | null {
  if (line.trim() === '') return null;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const event = value as Partial<GuardEvent>;
  if (typeof event.type !== 'string' || typeof event.at !== 'number') return null;
  const server = typeof event.server === 'object' && event.server !== null ? event.server : { key: null, name: null, version: null };
  return { ...event, server } as GuardEvent;
}

export function matchesFilter(event: GuardEvent, filter: AuditFilter): boolean {
  if (filter.server !== undefined && event.server.key !== filter.server && event.server.name !== filter.server) return false;
  if (filter.since !== undefined && event.at < filter.since) return false;
  if (filter.until !== undefined && event.at > filter.until) return false;
  if (
    filter.types !== undefined &&
    filter.types.length > 0 &&
    !filter.types.some((t) => event.type === t || event.type.startsWith(`${t}.`))
  )
    return false;
  return true;
}

export interface ReadStats {
  lines: number;
  /** Lines that are not events (not JSON, or without `type` and `at`): skipped. */
  skipped: number;
}

/** Streams the events of a JSONL audit log, in file order, from byte `start`. */
export async function readAuditLog(path: string, onEvent: (event: GuardEvent) => void, start = 0): Promise<ReadStats> {
  const stats: ReadStats = { lines: 0, skipped: 0 };
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8', start }), crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === '') continue;
    stats.lines++;
    const event = parseAuditLine(line);
    if (event === null) stats.skipped++;
    else onEvent(event);
  }
  return stats;
}

/** The row an event is counted in by `audit summary`: a decision and its code. */
export function decisionOf(event: GuardEvent): { readonly decision: string; readonly code: string } | null {
  switch (event.type) {
    case 'elicitation.refused':
      return { decision: `block ${event.mode ?? 'elicitation'}`, code: event.code };
    case 'elicitation.forwarded':
      return {
        decision: `${event.verdict === 'allow' ? 'allow' : 'warn'} ${event.mode}`,
        code: event.verdict === 'allow' ? '-' : event.findings.join(',') || '-',
      };
    case 'form.sensitive':
      // A block is counted by its elicitation.refused event; an audited form is its own decision.
      return event.action === 'audited' ? { decision: 'audit form', code: 'E_SENSITIVE_FIELD' } : null;
    case 'url.audited':
      return { decision: 'audit url', code: event.findings.join(',') || '-' };
    case 'exception.used':
      return { decision: `exception ${event.kind}`, code: event.target };
    case 'content.withheld':
      return { decision: 'withhold answer', code: event.code };
    case 'url-required.filtered':
      return { decision: 'filter -32042', code: event.code ?? 'partial' };
    case 'retry.refused':
      return { decision: 'refuse retry', code: event.code };
    case 'response.withheld':
      return { decision: 'withhold response', code: event.code };
    case 'completion.dropped':
      return { decision: 'drop completion', code: event.reason };
    case 'completion.delivered':
      return { decision: 'deliver completion', code: '-' };
    case 'guard.error':
      return { decision: 'error', code: event.code };
    default:
      return null;
  }
}
