import { homedir } from 'node:os';
import { dirname } from 'node:path';
import { ledgerExists, openLedger, parseLedgerSpec, type LedgerLocation } from '../ledger/open.js';
import type { Ledger } from '../ledger/types.js';
import { GuardError } from '../protocol/errors.js';
import { Exit, UsageError, parseCommandArgs, writeLine, type CliIo } from './io.js';
import type { QueryPageServer } from '../ui/server.js';
import { defaultLedgerPath } from './ledger-path.js';

const HELP = `usage:
  mcp-elicitation-guard ledger serve [--ledger FILE|URL|memory] [--port N] [--open] [--listen-anywhere]

The query page: a local web view of the ledger (flows, one flow's records, reconciliation) with the
manual controls of "ledger recover|confirm|cancel". It prints an access link once; opening it
exchanges the key for a session cookie. Stop it with Ctrl-C.

options:
  --ledger FILE|URL   the ledger file (default: $MCP_GUARD_LEDGER, else
                      $XDG_STATE_HOME/mcp-elicitation-guard/ledger.sqlite), a postgres:// URL, or
                      "memory" (an empty in-memory ledger)
  --port N            the port on 127.0.0.1 (default: a free one)
  --open              open the access link in the system browser
  --listen-anywhere   listen on every address, not only loopback (anyone who can reach the machine
                      and has the key can change flows: avoid)

exit codes: 0 stopped by a signal, 2 bad usage or an unusable ledger file or port`;

const OPTIONS = {
  ledger: { type: 'string' },
  port: { type: 'string' },
  open: { type: 'boolean' },
  'listen-anywhere': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export interface ServeIo extends CliIo {
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Where SIGINT/SIGTERM come from; the real process when absent. */
  readonly signals?: NodeJS.EventEmitter;
  /** Opens the access link (for `--open`); the system browser when absent. */
  readonly openUrl?: (url: string) => Promise<void>;
  /** The page's clock (ms since the epoch); `Date.now` when absent. */
  readonly clock?: () => number;
}

/** Parses `--port N` (0 … 65535). */
export function parsePort(value: string, flag: string): number {
  const port = Number(value);
  if (!/^[0-9]+$/.test(value) || !Number.isInteger(port) || port > 65535)
    throw new UsageError(`${flag} must be a port number from 0 to 65535`);
  return port;
}

/** `ledger serve`: the query page over a ledger, until a signal stops it. */
export async function ledgerServeCommand(argv: readonly string[], io: ServeIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, OPTIONS, false);
  if (values.help === true) {
    writeLine(io.stdout, HELP);
    return Exit.ok;
  }
  if (positionals.length > 0) throw new UsageError('ledger serve takes no positional arguments');
  const port = values.port === undefined ? 0 : parsePort(values.port, '--port');
  const env = io.env ?? process.env;
  const spec =
    values.ledger ??
    (env.MCP_GUARD_LEDGER !== undefined && env.MCP_GUARD_LEDGER !== '' ? env.MCP_GUARD_LEDGER : defaultLedgerPath(env, homedir()));
  let location: LedgerLocation;
  try {
    location = parseLedgerSpec(spec, io.cwd);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (location.kind === 'sqlite' && !ledgerExists(location)) {
    writeLine(
      io.stderr,
      `mcp-elicitation-guard ledger serve: no ledger at ${location.display} (the proxy creates it on first use; pass --ledger ` +
        `FILE or --ledger memory)`,
    );
    return Exit.usage;
  }
  let ledger: Ledger;
  try {
    ledger = await openLedger(location);
  } catch (error) {
    writeLine(io.stderr, `mcp-elicitation-guard ledger serve: ${GuardError.is(error) ? `${error.code}: ` : ''}${(error as Error).message}`);
    return Exit.usage;
  }
  // The rollback switch the proxies follow: beside a SQLite ledger file, in the state directory for a
  // PostgreSQL ledger (the proxies of this machine), none for a ledger in memory.
  const switchDir =
    location.kind === 'sqlite'
      ? dirname(location.target)
      : location.kind === 'postgres'
        ? dirname(defaultLedgerPath(env, homedir()))
        : null;
  const listenAnywhere = values['listen-anywhere'] === true;
  // Loaded here so the other commands never load the web server.
  const { startQueryPage } = await import('../ui/server.js');
  const { RollbackFile, fileRollback } = await import('../ui/rollback.js');
  // The rollback switch beside the ledger: every proxy using this ledger directory follows it.
  const rollback = switchDir === null ? null : fileRollback(new RollbackFile(switchDir, io.clock), null);
  let page: QueryPageServer;
  try {
    page = await startQueryPage({
      ledger,
      port,
      listenAnywhere,
      rollback,
      log: (line) => writeLine(io.stderr, line),
      ...(io.clock === undefined ? {} : { clock: io.clock }),
    });
  } catch (error) {
    await ledger.close();
    writeLine(io.stderr, `mcp-elicitation-guard ledger serve: cannot listen: ${(error as Error).message}`);
    return Exit.usage;
  }
  if (listenAnywhere)
    writeLine(
      io.stderr,
      `mcp-elicitation-guard ledger serve: WARNING: listening on every address (port ${page.port}); anyone who can reach this ` +
        `machine and has the key can change flows`,
    );
  // Printed once: the key is in this line only, and opening it swaps it for a cookie.
  writeLine(io.stdout, `query page: ${page.accessUrl}`);
  writeLine(
    io.stderr,
    `mcp-elicitation-guard ledger serve: serving ${
      location.kind === 'memory' ? 'an in-memory ledger' : `the ledger ${location.display}`
    } at ${page.url}/ (Ctrl-C stops it)`,
  );
  if (values.open === true) {
    const open = io.openUrl ?? (async (url: string) => void (await (await import('open')).default(url)));
    await open(page.accessUrl).catch((error: unknown) =>
      writeLine(io.stderr, `mcp-elicitation-guard ledger serve: cannot open a browser (${(error as Error).message}); open the link above`),
    );
  }
  const signals = io.signals ?? process;
  await new Promise<void>((done) => {
    const stop = () => {
      signals.off('SIGINT', stop);
      signals.off('SIGTERM', stop);
      done();
    };
    signals.on('SIGINT', stop);
    signals.on('SIGTERM', stop);
  });
  await page.close();
  await ledger.close();
  return Exit.ok;
}
