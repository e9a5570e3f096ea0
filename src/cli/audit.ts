import { closeSync, openSync, readSync, statSync, unwatchFile, watchFile } from 'node:fs';
import { resolve } from 'node:path';
import { describeEvent } from './describe-event.js';
import type { GuardEvent } from '../core/events.js';
import { decisionOf, matchesFilter, parseAuditLine, readAuditLog, type AuditFilter, type ReadStats } from './audit-log.js';
import { BufferedWriter } from './buffered-writer.js';
import { Exit, UsageError, parseCommandArgs, writeLine, type CliIo } from './io.js';

const HELP = `usage:
  mcp-elicitation-guard audit show FILE [filters] [--json]
  mcp-elicitation-guard audit tail FILE [-n N] [-f|--follow] [filters] [--json]
  mcp-elicitation-guard audit summary FILE [filters] [--json]

Reads back the JSON Lines audit log the proxy writes with --audit FILE (or createAuditLog).
  show      every event, one human line each (the proxy's stderr format, with the time)
  tail      the last N events (default 10); --follow keeps printing events as they are appended
  summary   a table of decisions per server and code, with counts and the first and last time

filters:
  --server KEY     the server's key (--server of the proxy) or the name it gave in initialize
  --type T[,T]     event types (form.sensitive) or families (form, elicitation, exception)
  --since TIME     ISO time (2026-12-01T09:00Z, 2026-12-01) or an age (30m, 2h, 7d)
  --until TIME     same forms
  --json           JSON: the matching lines (show, tail) or the table's rows (summary)

exit codes: 0 done, 2 bad usage or unreadable file`;

const OPTIONS = {
  server: { type: 'string' },
  type: { type: 'string', multiple: true },
  since: { type: 'string' },
  until: { type: 'string' },
  json: { type: 'boolean' },
  follow: { type: 'boolean', short: 'f' },
  lines: { type: 'string', short: 'n' },
  help: { type: 'boolean', short: 'h' },
} as const;

interface AuditIo extends CliIo {
  /** Ends `tail --follow` (tests); SIGINT and SIGTERM do otherwise. */
  readonly abort?: AbortSignal;
  readonly now?: () => number;
  /** How often `--follow` looks at the file, in milliseconds. */
  readonly pollMs?: number;
}

const UNITS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** A time given as ISO text or as an age (`30m`): milliseconds since the epoch. */
export function parseTime(text: string, now: number, option: string): number {
  const age = /^(\d+(?:\.\d+)?)([smhdw])$/u.exec(text.trim());
  if (age !== null) return now - Number(age[1]) * UNITS[age[2]!]!;
  const at = Date.parse(text);
  if (Number.isNaN(at))
    throw new UsageError(`${option} ${JSON.stringify(text)} is not a time: give an ISO time (2026-12-01T09:00Z) or an age (30m, 2h, 7d)`);
  return at;
}

function iso(at: number): string {
  return new Date(at).toISOString();
}

/** One human line for an event in the log (also for events the proxy tells as part of another line). */
function showLine(event: GuardEvent): string {
  const line = describeEvent(event);
  if (line !== null) return `${iso(event.at)}  ${line.text}`;
  const code = 'code' in event ? `: ${String(event.code)}` : '';
  return `${iso(event.at)}  ${event.type}${code} (${event.server.key ?? event.server.name ?? 'the server'})`;
}

function lineFor(event: GuardEvent, json: boolean): string {
  return json ? JSON.stringify(event) : showLine(event);
}

function noteSkipped(io: CliIo, stats: ReadStats): void {
  if (stats.skipped > 0)
    writeLine(
      io.stderr,
      `mcp-elicitation-guard audit: ${stats.skipped} of ${stats.lines} lines are not audit events (not JSON, or no "type" and ` +
        `"at"); skipped`,
    );
}

/** `audit show | tail | summary FILE`. */
export async function auditCommand(argv: readonly string[], io: AuditIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h') {
    writeLine(sub === undefined ? io.stderr : io.stdout, HELP);
    return sub === undefined ? Exit.usage : Exit.ok;
  }
  if (sub !== 'show' && sub !== 'tail' && sub !== 'summary')
    throw new UsageError(`unknown audit subcommand "${sub}" (show, tail, summary)`);
  const { values, positionals } = parseCommandArgs(rest, OPTIONS, true);
  if (values.help === true) {
    writeLine(io.stdout, HELP);
    return Exit.ok;
  }
  if (positionals.length !== 1) throw new UsageError(`audit ${sub} takes exactly one FILE (the JSONL audit log)`);
  if (sub !== 'tail' && (values.follow === true || values.lines !== undefined))
    throw new UsageError('-n and --follow are options of "audit tail"');
  const now = (io.now ?? Date.now)();
  const filter: AuditFilter = {
    ...(values.server === undefined ? {} : { server: values.server }),
    ...(values.type === undefined
      ? {}
      : {
          types: values.type
            .flatMap((t) => t.split(','))
            .map((t) => t.trim())
            .filter((t) => t !== ''),
        }),
    ...(values.since === undefined ? {} : { since: parseTime(values.since, now, '--since') }),
    ...(values.until === undefined ? {} : { until: parseTime(values.until, now, '--until') }),
  };
  const file = resolve(io.cwd, positionals[0]!);
  try {
    statSync(file);
  } catch (error) {
    writeLine(
      io.stderr,
      `mcp-elicitation-guard audit: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
    return Exit.usage;
  }
  const json = values.json === true;
  if (sub === 'summary') return summary(file, filter, json, io);
  if (sub === 'show') {
    const out = new BufferedWriter(io.stdout);
    const pending: Promise<void>[] = [];
    const stats = await readAuditLog(file, (event) => {
      if (matchesFilter(event, filter)) pending.push(out.write(lineFor(event, json) + '\n'));
    });
    await Promise.all(pending);
    await out.flush();
    noteSkipped(io, stats);
    return Exit.ok;
  }
  const count = values.lines === undefined ? 10 : Number(values.lines);
  if (!Number.isInteger(count) || count < 0) throw new UsageError(`-n takes a whole number (got ${JSON.stringify(values.lines)})`);
  const last: GuardEvent[] = [];
  const size = statSync(file).size;
  const stats = await readAuditLog(file, (event) => {
    if (!matchesFilter(event, filter)) return;
    last.push(event);
    if (last.length > count) last.shift();
  });
  for (const event of last) writeLine(io.stdout, lineFor(event, json));
  noteSkipped(io, stats);
  if (values.follow !== true) return Exit.ok;
  await follow(file, size, filter, json, io);
  return Exit.ok;
}

/** Prints events appended after `offset` until aborted; a truncated (rotated) file is read from its start. */
async function follow(file: string, offset: number, filter: AuditFilter, json: boolean, io: AuditIo): Promise<void> {
  let position = offset;
  let partial = '';
  const readNew = () => {
    let size: number;
    try {
      size = statSync(file).size;
    } catch {
      return;
    }
    if (size < position) {
      position = 0;
      partial = '';
    }
    if (size === position) return;
    const fd = openSync(file, 'r');
    try {
      const buffer = Buffer.alloc(size - position);
      const read = readSync(fd, buffer, 0, buffer.length, position);
      position += read;
      const text = partial + buffer.subarray(0, read).toString('utf8');
      const lines = text.split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        const event = parseAuditLine(line);
        if (event !== null && matchesFilter(event, filter)) writeLine(io.stdout, lineFor(event, json));
      }
    } finally {
      closeSync(fd);
    }
  };
  await new Promise<void>((done) => {
    const stop = () => {
      unwatchFile(file, readNew);
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      readNew();
      done();
    };
    watchFile(file, { interval: io.pollMs ?? 250, persistent: true }, readNew);
    if (io.abort !== undefined) {
      if (io.abort.aborted) return stop();
      io.abort.addEventListener('abort', stop, { once: true });
    } else {
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    }
  });
}

interface Row {
  server: string;
  decision: string;
  code: string;
  count: number;
  first: number;
  last: number;
}

async function summary(file: string, filter: AuditFilter, json: boolean, io: CliIo): Promise<number> {
  const rows = new Map<string, Row>();
  let events = 0;
  let first = Infinity;
  let last = -Infinity;
  const servers = new Set<string>();
  const stats = await readAuditLog(file, (event) => {
    if (!matchesFilter(event, filter)) return;
    events++;
    first = Math.min(first, event.at);
    last = Math.max(last, event.at);
    const server = event.server.key ?? event.server.name ?? '(unnamed)';
    servers.add(server);
    const decision = decisionOf(event);
    if (decision === null) return;
    const key = JSON.stringify([server, decision.decision, decision.code]);
    const row = rows.get(key);
    if (row === undefined) rows.set(key, { server, ...decision, count: 1, first: event.at, last: event.at });
    else {
      row.count++;
      row.last = Math.max(row.last, event.at);
      row.first = Math.min(row.first, event.at);
    }
  });
  const sorted = [...rows.values()].sort(
    (a, b) => a.server.localeCompare(b.server) || b.count - a.count || a.decision.localeCompare(b.decision) || a.code.localeCompare(b.code),
  );
  if (json) {
    writeLine(
      io.stdout,
      JSON.stringify(
        {
          events,
          servers: servers.size,
          first: events === 0 ? null : iso(first),
          last: events === 0 ? null : iso(last),
          rows: sorted.map((r) => ({ ...r, first: iso(r.first), last: iso(r.last) })),
        },
        null,
        2,
      ),
    );
    noteSkipped(io, stats);
    return Exit.ok;
  }
  const table = [
    ['server', 'decision', 'code', 'count', 'first', 'last'],
    ...sorted.map((r) => [r.server, r.decision, r.code, String(r.count), iso(r.first), iso(r.last)]),
  ];
  const widths = table[0]!.map((_, c) => Math.max(...table.map((r) => r[c]!.length)));
  const format = (r: readonly string[]) =>
    r
      .map((cell, c) => (c === 3 ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!)))
      .join('  ')
      .trimEnd();
  const lines =
    sorted.length === 0
      ? ['no decisions']
      : [format(table[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...table.slice(1).map(format)];
  lines.push(
    '',
    events === 0
      ? 'no matching events'
      : `${events} event${events === 1 ? '' : 's'} from ${servers.size} server${servers.size === 1 ? '' : 's'}, ${iso(first)} ` +
          `to ${iso(last)}`,
  );
  writeLine(io.stdout, lines.join('\n'));
  noteSkipped(io, stats);
  return Exit.ok;
}
