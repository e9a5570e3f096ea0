import { accessSync, constants, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { homedir } from 'node:os';
import { POSTGRES_LATEST_VERSION, PostgresLedger } from '../ledger/postgres.js';
import { SqliteLedger } from '../ledger/sqlite.js';
import { defaultPolicy, loadPolicy, type PolicyDocument } from '../policy/policy.js';
import { nearest } from '../policy/suggest.js';
import { GuardError } from '../protocol/errors.js';
import { classifyEntry, defaultConfigPath, HOSTS, isHostName, parseConfig, unwrap, type HostName } from './hosts.js';
import { Exit, UsageError, parseCommandArgs, writeLine, type CliIo } from './io.js';
import { defaultLedgerPath } from './ledger.js';

const HELP = `usage:
  mcp-elicitation-guard doctor [--policy FILE] [--ledger FILE|URL] [--host NAME [--config FILE]]

Checks what the proxy needs, one line per check: the Node version, that better-sqlite3 loads (the
durable ledger), that the ledger path is writable (a postgres:// ledger: that the database answers,
its schema step, and that commits are durable), that the policy validates, and that every
--server key in the host configs (the given one, or each host whose default config exists) is a
key of the policy that entry runs with.

exit codes: 0 every check passed (warnings allowed), 1 a check failed, 2 bad usage`;

const OPTIONS = {
  policy: { type: 'string' },
  ledger: { type: 'string' },
  host: { type: 'string' },
  config: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

interface DoctorIo extends CliIo {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly home?: string;
  readonly platform?: NodeJS.Platform;
}

type Status = 'ok' | 'warn' | 'FAIL';

const MIN_NODE_MAJOR = 20;

/** Finds `command` the way a host's spawn would: a path as given, a bare name on PATH. */
function onPath(command: string, env: Readonly<Record<string, string | undefined>>, platform: NodeJS.Platform): string | null {
  if (command.includes('/') || command.includes('\\')) return existsSync(command) ? command : null;
  const extensions = platform === 'win32' ? (env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';') : [''];
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    for (const ext of extensions) {
      const candidate = join(dir, command + ext);
      try {
        accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        // not here
      }
    }
  }
  return null;
}

/** `doctor`: is everything the proxy needs in place? */
export async function doctorCommand(argv: readonly string[], io: DoctorIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, OPTIONS, false);
  if (values.help === true) {
    writeLine(io.stdout, HELP);
    return Exit.ok;
  }
  if (positionals.length > 0) throw new UsageError('doctor takes no positional arguments');
  if (values.config !== undefined && values.host === undefined) throw new UsageError('--config needs --host (which format the file is in)');
  if (values.host !== undefined && !isHostName(values.host))
    throw new UsageError(`unknown --host ${JSON.stringify(values.host)}: claude-desktop, vscode or cursor`);
  const env = io.env ?? process.env;
  const home = io.home ?? homedir();
  const platform = io.platform ?? process.platform;
  let failed = 0;
  const line = (status: Status, text: string) => {
    if (status === 'FAIL') failed++;
    writeLine(io.stdout, `${status.padEnd(4)}  ${text}`);
  };

  // 1. Node
  const major = Number(process.versions.node.split('.')[0]);
  line(major >= MIN_NODE_MAJOR ? 'ok' : 'FAIL', `node v${process.versions.node} (the package needs >= ${MIN_NODE_MAJOR})`);

  // 2. better-sqlite3
  let sqlite = false;
  try {
    const require = createRequire(import.meta.url);
    const Database = require('better-sqlite3') as new (file: string) => { close(): void };
    new Database(':memory:').close();
    const version = (JSON.parse(readFileSync(require.resolve('better-sqlite3/package.json'), 'utf8')) as { version: string }).version;
    sqlite = true;
    line('ok', `better-sqlite3 ${version} loads: receipts go to a durable SQLite ledger`);
  } catch (error) {
    line(
      'FAIL',
      `better-sqlite3 does not load (${(error as Error).message.split('\n')[0]}): the proxy would keep receipts in memory ` +
        `only; reinstall the package (npm install -g mcp-elicitation-guard, or npm rebuild better-sqlite3 in its folder)`,
    );
  }

  // 3. the ledger
  const ledgerFile = values.ledger === undefined ? defaultLedgerPath(env, home) : resolve(io.cwd, values.ledger);
  if (values.ledger === 'memory') line('warn', 'ledger: "memory": receipts are not durable');
  else if (values.ledger !== undefined && /^postgres(ql)?:\/\//iu.test(values.ledger)) await checkPostgres(values.ledger, line);
  else {
    try {
      mkdirSync(dirname(ledgerFile), { recursive: true });
      accessSync(dirname(ledgerFile), constants.W_OK);
      if (existsSync(ledgerFile)) accessSync(ledgerFile, constants.R_OK | constants.W_OK);
      if (sqlite) await (await SqliteLedger.open(ledgerFile)).close();
      line('ok', `ledger ${ledgerFile} is writable${sqlite ? ' and opens' : ''}`);
    } catch (error) {
      line(
        'FAIL',
        `ledger ${ledgerFile}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}: pass --ledger FILE (to ` +
          `the proxy too) with a path this user can write`,
      );
    }
  }

  // 4. the policy
  const policies = new Map<string, PolicyDocument | null>();
  const policyOf = (file: string | null): PolicyDocument | null => {
    if (file === null) return defaultPolicy;
    if (policies.has(file)) return policies.get(file)!;
    let document: PolicyDocument | null = null;
    try {
      document = loadPolicy(file);
      line(
        'ok',
        `policy ${file} validates (${Object.keys(document.servers).length} server ` +
          `entr${Object.keys(document.servers).length === 1 ? 'y' : 'ies'})`,
      );
    } catch (error) {
      if (!GuardError.is(error)) throw error;
      line('FAIL', `policy ${error.code}: ${error.message.replace(/:\n/gu, ': ').replace(/\n/gu, '; ')}`);
    }
    policies.set(file, document);
    return document;
  };
  const ownPolicy = values.policy === undefined ? null : resolve(io.cwd, values.policy);
  if (ownPolicy === null) line('ok', 'policy: the built-in production policy (no --policy given)');
  else policyOf(ownPolicy);

  // 5. host configs
  const hosts: { host: HostName; file: string; given: boolean }[] =
    values.host !== undefined
      ? [
          {
            host: values.host as HostName,
            file:
              values.config === undefined
                ? defaultConfigPath(values.host as HostName, { platform, home, env })
                : resolve(io.cwd, values.config),
            given: true,
          },
        ]
      : (Object.keys(HOSTS) as HostName[])
          .map((host) => ({ host, file: defaultConfigPath(host, { platform, home, env }), given: false }))
          .filter((h) => existsSync(h.file));
  if (hosts.length === 0) line('ok', 'host configs: none found at the default locations (pass --host NAME [--config FILE] to check one)');
  const commands = new Set<string>();
  for (const { host, file, given } of hosts) {
    let servers: Record<string, unknown>;
    try {
      const config = parseConfig(readFileSync(file, 'utf8'), file);
      const raw = config[HOSTS[host].serversKey];
      servers = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
    } catch (error) {
      line(
        given ? 'FAIL' : 'warn',
        `${HOSTS[host].label} config ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
      continue;
    }
    let wrapped = 0;
    for (const [name, value] of Object.entries(servers)) {
      const kind = classifyEntry(value);
      if (kind.kind !== 'stdio') continue;
      const entry = unwrap(kind.entry);
      if (entry === null) continue;
      wrapped++;
      commands.add(kind.entry.command);
      const policyFile = entry.policy === null ? ownPolicy : isAbsolute(entry.policy) ? entry.policy : resolve(dirname(file), entry.policy);
      const where = `${HOSTS[host].label} "${name}"`;
      if (entry.serverKey === null) {
        line('warn', `${where}: runs the proxy without --server (the host's name for it is not in the log)`);
        continue;
      }
      const document = policyOf(policyFile);
      if (document === null) continue;
      if (policyFile === null)
        line('ok', `${where}: --server ${JSON.stringify(entry.serverKey)} (built-in policy: the same settings for every server)`);
      else if (Object.hasOwn(document.servers, entry.serverKey))
        line('ok', `${where}: --server ${JSON.stringify(entry.serverKey)} is in ${policyFile}`);
      else {
        const hint = nearest(entry.serverKey, Object.keys(document.servers));
        line(
          'FAIL',
          `${where}: --server ${JSON.stringify(entry.serverKey)} is not a key of ${policyFile}'s ` +
            `"servers"${
              hint === null ? '' : ` (did you mean ${JSON.stringify(hint)}?)`
            }: the proxy will refuse to start; add it or run install --policy again`,
        );
      }
    }
    if (wrapped === 0)
      line(
        'warn',
        `${HOSTS[host].label} config ${file}: no entry runs through the guard (run: mcp-elicitation-guard install ` +
          `--host ${host}${given && file !== defaultConfigPath(host, { platform, home, env }) ? ` --config ${file}` : ''})`,
      );
  }
  for (const command of commands) {
    const found = onPath(command, env, platform);
    if (found === null)
      line(
        'warn',
        `"${command}" is not on this shell's PATH: the host may not find it either (install the package globally, or install ` +
          `--command /absolute/path)`,
      );
    else line('ok', `"${command}" resolves to ${found}`);
  }

  writeLine(io.stdout, failed === 0 ? 'doctor: every check passed' : `doctor: ${failed} check${failed === 1 ? '' : 's'} failed`);
  return failed === 0 ? Exit.ok : Exit.blocked;
}

/**
 * A PostgreSQL ledger: the database answers (and `pg` loads), the ledger's tables are at the schema
 * step this version writes (an older one is brought up to date, as the proxy would; a newer one
 * fails), and `synchronous_commit` is on (otherwise a committed receipt can be lost in a crash).
 */
async function checkPostgres(url: string, line: (status: Status, text: string) => void): Promise<void> {
  let ledger: PostgresLedger;
  try {
    ledger = await PostgresLedger.connect(url, { maxConnections: 2, connectTimeoutMs: 5000 });
  } catch (error) {
    const code = GuardError.is(error) ? `${error.code}: ` : '';
    line('FAIL', `ledger: ${code}${(error as Error).message} (see "Running for a team")`);
    return;
  }
  try {
    const s = await ledger.settings();
    line(
      'ok',
      `ledger ${s.target} answers: PostgreSQL ${s.serverVersion}, schema ${s.schema} at step ${s.schemaVersion} ` +
        `of ${POSTGRES_LATEST_VERSION}`,
    );
    if (s.synchronousCommit === 'on' || s.synchronousCommit === 'remote_apply' || s.synchronousCommit === 'remote_write')
      line('ok', `ledger: synchronous_commit = ${s.synchronousCommit}: a committed receipt survives a crash of the database server`);
    else
      line(
        'warn',
        `ledger: synchronous_commit = ${s.synchronousCommit}: a receipt the guard counted as committed can be lost if the database ` +
          "server crashes; set it to on for the ledger's role or database",
      );
  } catch (error) {
    line('FAIL', `ledger: ${(error as Error).message}`);
  } finally {
    await ledger.close();
  }
}
