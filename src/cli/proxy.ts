import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { AuditLog } from '../audit/log.js';
import { createAuditLog } from '../audit/log.js';
import type { GuardEvent } from '../core/events.js';
import { describeEvent, LOG_LEVELS, shouldLog, type LogLevel } from './describe-event.js';
import { ChildUpstream, type Upstream } from '../adapters/proxy/child.js';
import { HttpUpstream } from '../adapters/proxy/http.js';
import { ElicitationProxy } from '../adapters/proxy/proxy.js';
import { createGuard, type Guard } from '../core/guard.js';
import { MemoryLedger } from '../ledger/memory.js';
import { openLedger, parseLedgerSpec } from '../ledger/open.js';
import type { Ledger } from '../ledger/types.js';
import { defaultPolicy, loadPolicy } from '../policy/policy.js';
import { nearest } from '../policy/suggest.js';
import { Exit, UsageError, parseCommandArgs, writeLine, type CliIo } from './io.js';
import { defaultLedgerPath } from './ledger.js';
import { parsePort } from './ledger-serve.js';
import type { QueryPageServer } from '../ui/server.js';
import { RollbackFile, fileRollback, followRollback, guardRollback, type RollbackControl } from '../ui/rollback.js';

const HELP = `usage:
  mcp-elicitation-guard proxy [options] -- <server command> [args...]
  mcp-elicitation-guard proxy [options] --upstream-url URL

Speaks MCP on its own stdin/stdout to the host and passes every message to and from the server
through the guard. stdout carries only the protocol; diagnostics go to stderr.

options:
  --policy FILE        policy file (default: the built-in production policy)
  --server KEY         the server's key in the policy's "servers" overrides
  --ledger FILE|URL    SQLite ledger (default: $XDG_STATE_HOME/mcp-elicitation-guard/ledger.sqlite),
                       a postgres://user@host/db URL shared by many proxies (the password from
                       PGPASSWORD or ~/.pgpass), or "memory" to keep receipts in memory only;
                       default also from MCP_GUARD_LEDGER
  --session-key KEY    lineage scope shared with other proxies on the same ledger: each original
                       operation's final answer is accepted at most once between them, and a retry
                       of an operation another of them accepted is refused before it is sent
  --audit FILE         append the redacted audit log (JSON Lines) to FILE
  --subject ID         the verified user subject recorded in navigation records
  --upstream-url URL   a Streamable HTTP server instead of a child process
  --log-level LEVEL    what goes to stderr: error | warn (default: every block, audit, exception
                       and the server's crash) | info (also every allowed decision and the server's
                       start and exit) | debug (also flow moves and receipts)
  --ui [PORT]          serve the query page on 127.0.0.1 (PORT, or a free port): see and recover
                       this proxy's URL flows, stop issuing; the access link is written to a file
                       readable only by you (its path is printed), never to stderr

The proxy follows the rollback switch (rollback.json beside the ledger file, set from any query
page over that ledger): it stops issuing URL elicitations and revokes nonces within a second.

exit code: the server's exit code; 2 on bad usage or when the server cannot be started`;

const OPTIONS = {
  policy: { type: 'string' },
  server: { type: 'string' },
  ledger: { type: 'string' },
  audit: { type: 'string' },
  subject: { type: 'string' },
  'session-key': { type: 'string' },
  'upstream-url': { type: 'string' },
  'log-level': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Where the server command starts when it was given without `--`: the first argument that is not one of ours. */
function strayCommandStart(argv: readonly string[]): number {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('-')) return i;
    const name = arg.replace(/^--?/, '').split('=')[0]!;
    const option = (OPTIONS as Record<string, { type: string } | undefined>)[name];
    if (option === undefined) return -1;
    if (option.type === 'string' && !arg.includes('=')) i++;
  }
  return -1;
}

function parseOwn(own: readonly string[], hasCommand: boolean): ReturnType<typeof parseCommandArgs<typeof OPTIONS>> {
  const start = hasCommand ? -1 : strayCommandStart(own);
  if (start !== -1) {
    const example = ['mcp-elicitation-guard proxy', ...own.slice(0, start), '--', ...own.slice(start)].join(' ');
    throw new UsageError(`put the server command after "--", e.g.\n  ${example}`);
  }
  return parseCommandArgs(own, OPTIONS, false);
}

interface ProxyIo extends CliIo {
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Where signals come from; the real process when absent. */
  readonly signals?: NodeJS.EventEmitter;
}

/** `proxy`: the guard in front of any MCP server, for hosts that cannot be changed. */
export async function proxyCommand(argv: readonly string[], io: ProxyIo): Promise<number> {
  const split = argv.indexOf('--');
  const serverCommand = split === -1 ? [] : argv.slice(split + 1);
  const { rest: own, uiPort } = takeUiOption(split === -1 ? argv : argv.slice(0, split));
  const { values, positionals } = parseOwn(own, split !== -1);
  if (values.help === true) {
    writeLine(io.stdout, HELP);
    return Exit.ok;
  }
  if (positionals.length > 0) throw new UsageError('put the server command after "--"');
  const level = values['log-level'] ?? 'warn';
  if (!(LOG_LEVELS as readonly string[]).includes(level))
    throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')} (got ${JSON.stringify(level)})`);
  const threshold = level as LogLevel;
  const url = values['upstream-url'];
  if ((url === undefined) === (serverCommand.length === 0))
    throw new UsageError('give either a server command after "--" or --upstream-url URL');
  let upstream: Upstream;
  if (url !== undefined) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new UsageError(`--upstream-url is not a URL: ${url}`);
    }
    upstream = new HttpUpstream(parsed);
  } else {
    upstream = new ChildUpstream(serverCommand[0]!, serverCommand.slice(1));
  }

  const say = (at: LogLevel, line: string) => {
    if (shouldLog(at, threshold)) writeLine(io.stderr, `mcp-elicitation-guard: ${line}`);
  };
  const log = (line: string) => {
    if (shouldLog('warn', threshold)) writeLine(io.stderr, line);
  };
  const policy = values.policy === undefined ? defaultPolicy : loadPolicy(resolve(io.cwd, values.policy));
  if (values.policy !== undefined && values.server !== undefined && !Object.hasOwn(policy.servers, values.server)) {
    // A misspelt key would silently judge the server with the top-level policy.
    const keys = Object.keys(policy.servers);
    const hint = nearest(values.server, keys);
    throw new UsageError(
      `--server ${JSON.stringify(values.server)} is not a key of the policy's "servers"${
        hint === null ? '' : ` (did you mean ${JSON.stringify(hint)}?)`
      }; ` +
        (keys.length === 0
          ? 'the policy has no "servers" entries: add one, e.g. "servers": { ' + JSON.stringify(values.server) + ': {} }'
          : `its keys: ${keys.map((k) => JSON.stringify(k)).join(', ')}`),
    );
  }
  // A ledger the proxy cannot start with is said whatever the log level.
  const ledgerSpec = values.ledger ?? nonEmpty((io.env ?? process.env)['MCP_GUARD_LEDGER']);
  const ledger = await openProxyLedger(ledgerSpec, io, (line) =>
    line.includes('cannot use the ledger') ? writeLine(io.stderr, line) : log(line),
  );
  if (ledger === null) return Exit.usage;
  const audit: AuditLog | null = values.audit === undefined ? null : createAuditLog(resolve(io.cwd, values.audit));
  let proxy: ElicitationProxy | null = null;
  let page: QueryPageServer | null = null;
  const guard = createGuard({
    policy,
    ...(values.server === undefined ? {} : { server: values.server }),
    ...(values.subject === undefined ? {} : { subject: values.subject }),
    ...(values['session-key'] === undefined ? {} : { sessionKey: values['session-key'] }),
    ledger,
    onEvent: (event: GuardEvent) => {
      audit?.write(event);
      proxy?.tellHost(event);
      const line = describeEvent(event);
      if (line !== null) say(line.level, line.text);
      if (page !== null && event.type === 'flow.transition' && event.to === 'USER_REVIEW') {
        log(`mcp-elicitation-guard proxy: URL flow ${event.navigation} started; query page ${page.url}/flows/${event.navigation}`);
      }
    },
  });
  // The rollback switch beside the ledger file (none for a ledger in memory): followed at start and every second.
  const switchFile = ledgerSpec === 'memory' ? null : new RollbackFile(uiDirectory(ledgerSpec, io));
  const unfollow = switchFile === null ? null : followRollback(switchFile, guard, log);
  let accessFile: string | null = null;
  if (uiPort !== null) {
    const rollback = switchFile === null ? guardRollback(guard) : fileRollback(switchFile, guard);
    const started = await startUi(uiPort, { ledger, guard, rollback, log, dir: uiDirectory(ledgerSpec, io) });
    page = started?.page ?? null;
    accessFile = started?.accessFile ?? null;
  }
  proxy = new ElicitationProxy({ guard, upstream, hostInput: io.stdin, hostOutput: io.stdout, log, lifecycle: say });

  const signals = io.signals ?? process;
  const forward = (signal: NodeJS.Signals) => () => proxy?.signal(signal);
  const onInt = forward('SIGINT');
  const onTerm = forward('SIGTERM');
  signals.on('SIGINT', onInt);
  signals.on('SIGTERM', onTerm);
  try {
    return await proxy.run();
  } catch (error) {
    writeLine(io.stderr, `mcp-elicitation-guard proxy: cannot start the server: ${(error as Error).message}`);
    return Exit.usage;
  } finally {
    signals.off('SIGINT', onInt);
    signals.off('SIGTERM', onTerm);
    unfollow?.();
    await guard.flush();
    await page?.close();
    if (accessFile !== null) rmSync(accessFile, { force: true });
    await ledger.close();
    await audit?.close();
  }
}

/** Takes `--ui`, `--ui PORT` or `--ui=PORT` out of the proxy's own arguments (parseArgs has no optional values). */
function takeUiOption(own: readonly string[]): { rest: string[]; uiPort: number | null } {
  const rest: string[] = [];
  let uiPort: number | null = null;
  for (let i = 0; i < own.length; i++) {
    const arg = own[i]!;
    if (arg === '--ui' || arg.startsWith('--ui=')) {
      if (uiPort !== null) throw new UsageError('--ui given twice');
      const inline = arg.startsWith('--ui=') ? arg.slice(5) : null;
      const next = own[i + 1];
      if (inline !== null) uiPort = parsePort(inline, '--ui');
      else if (next !== undefined && /^[0-9]+$/.test(next)) {
        uiPort = parsePort(next, '--ui');
        i += 1;
      } else uiPort = 0;
      continue;
    }
    rest.push(arg);
  }
  return { rest, uiPort };
}

/** Where the access link file and the rollback switch go: beside a SQLite ledger file, else in the state directory. */
function uiDirectory(option: string | undefined, io: ProxyIo): string {
  const stateDir = dirname(defaultLedgerPath(io.env ?? process.env, homedir()));
  if (option === undefined || option === 'memory') return stateDir;
  const location = parseLedgerSpec(option, io.cwd);
  return location.kind === 'sqlite' ? dirname(location.target) : stateDir;
}

/**
 * Starts the query page next to the proxy. The access link goes to a file only its user can read:
 * a host keeps the proxy's stderr in its log files, and a secret must not reach a log. The page is
 * a convenience: when it cannot start, the proxy says so and runs without it.
 */
async function startUi(
  port: number,
  options: { ledger: Ledger; guard: Guard; rollback: RollbackControl; log: (line: string) => void; dir: string },
): Promise<{ page: QueryPageServer; accessFile: string } | null> {
  let page: QueryPageServer;
  try {
    const { startQueryPage } = await import('../ui/server.js');
    page = await startQueryPage({ ledger: options.ledger, guard: options.guard, rollback: options.rollback, port, log: options.log });
  } catch (error) {
    options.log(`mcp-elicitation-guard proxy: the query page could not start (${(error as Error).message}); running without it`);
    return null;
  }
  const accessFile = join(options.dir, `query-page-${page.port}.url`);
  try {
    mkdirSync(options.dir, { recursive: true });
    writeFileSync(accessFile, page.accessUrl + '\n', { mode: 0o600 });
    chmodSync(accessFile, 0o600);
  } catch (error) {
    await page.close();
    options.log(
      `mcp-elicitation-guard proxy: cannot write the query page's access link to ${accessFile} (${(error as Error).message}); ` +
        `running without the page`,
    );
    return null;
  }
  options.log(`mcp-elicitation-guard proxy: query page at ${page.url}/ (open the access link in ${accessFile})`);
  return { page, accessFile };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/**
 * The proxy's ledger. A SQLite file that cannot be opened falls back to memory with a line on
 * stderr (the host keeps working). A PostgreSQL URL connects lazily: while the database cannot be
 * reached, the proxy runs and every URL elicitation fails closed (`E_LEDGER_UNAVAILABLE`) until it
 * answers again; a PostgreSQL ledger that cannot be used at all (no pg installed, a newer schema)
 * stops the proxy (null), since a silent memory fallback would break at-most-once across proxies.
 */
async function openProxyLedger(option: string | undefined, io: ProxyIo, log: (line: string) => void): Promise<Ledger | null> {
  if (option === 'memory') return new MemoryLedger();
  const location = parseLedgerSpec(option ?? defaultLedgerPath(io.env ?? process.env, homedir()), io.cwd);
  if (location.kind === 'postgres') {
    try {
      const ledger = await openLedger(location, { lazy: true });
      const health = (ledger as { health?: () => { up: boolean; reason: string | null } }).health?.();
      if (health !== undefined && !health.up)
        log(
          `mcp-elicitation-guard proxy: the ledger at ${location.display} cannot be reached yet (${
            health.reason ?? 'unknown'
          }); URL elicitations fail closed until it answers`,
        );
      return ledger;
    } catch (error) {
      log(`mcp-elicitation-guard proxy: cannot use the ledger at ${location.display}: ${(error as Error).message}`);
      return null;
    }
  }
  try {
    return await openLedger(location, { createDirectories: true });
  } catch (error) {
    // The guard must not stop a host from working because receipts cannot be made durable: it says so.
    log(
      `mcp-elicitation-guard proxy: cannot open the SQLite ledger ${location.target} (${(error as Error).message}); receipts ` +
        `are kept in memory only`,
    );
    return new MemoryLedger();
  }
}
