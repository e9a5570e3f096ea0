import { copyFileSync, existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { loadPolicy } from '../policy/policy.js';
import { GuardError } from '../protocol/errors.js';
import {
  classifyEntry,
  ConfigSyntaxError,
  defaultConfigPath,
  HOSTS,
  isHostName,
  parseConfig,
  setAt,
  unwrap,
  wrap,
  type HostName,
  type StdioEntry,
} from './hosts.js';
import { Exit, UsageError, parseCommandArgs, writeLine, type CliIo } from './io.js';

const INSTALL_HELP = `usage:
  mcp-elicitation-guard install --host claude-desktop|vscode|cursor [--config FILE] [--policy FILE] [--command CMD] [--dry-run]

Wraps every stdio server of the host's MCP config with the guard's proxy: each entry keeps its
command, args and env, and runs as
  <CMD> proxy --server <entry name> [--policy FILE] -- <command> <args...>
Remote (HTTP) entries are reported and left as they are. A backup of the file is written first;
running it again changes nothing. With --policy, the entry names missing from the policy's
"servers" are added to it as {} (the top-level settings apply), so the proxy accepts --server.

options:
  --host NAME      claude-desktop, vscode or cursor
  --config FILE    the host's config file (default: the user-level file the host documents;
                   a workspace's .vscode/mcp.json or a project's .cursor/mcp.json is given here)
  --policy FILE    the policy every wrapped server runs with (absolute path written)
  --command CMD    the proxy command written into entries (default: mcp-elicitation-guard, which
                   must be on the PATH the host starts servers with; give an absolute path otherwise)
  --dry-run        print the diff and change nothing

exit codes: 0 done (or nothing to do), 2 bad usage, unreadable or invalid config or policy`;

const UNINSTALL_HELP = `usage:
  mcp-elicitation-guard uninstall --host claude-desktop|vscode|cursor [--config FILE] [--dry-run]

Restores every entry the proxy wraps to the command and args it had before "install" (exactly as
recorded at install time; entries edited since are unwrapped from their own arguments). A backup of
the file is written first.

exit codes: 0 done (or nothing to do), 2 bad usage, unreadable or invalid config`;

const OPTIONS = {
  host: { type: 'string' },
  config: { type: 'string' },
  policy: { type: 'string' },
  command: { type: 'string' },
  'dry-run': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

interface InstallIo extends CliIo {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly home?: string;
  readonly platform?: NodeJS.Platform;
  /** The clock for backup names (tests). */
  readonly now?: () => Date;
}

/** What install recorded about each entry it wrapped, beside the config file, so uninstall restores it exactly. */
interface Originals {
  readonly version: 1;
  readonly host: HostName;
  readonly entries: Record<
    string,
    { readonly original: StdioEntry; readonly wrapped: { readonly command: string; readonly args: readonly string[] } }
  >;
}

export function originalsPath(config: string): string {
  return `${config}.mcp-elicitation-guard.json`;
}

function readOriginals(config: string, host: HostName): Originals {
  try {
    const parsed = JSON.parse(readFileSync(originalsPath(config), 'utf8')) as Originals;
    if (parsed.version === 1 && typeof parsed.entries === 'object' && parsed.entries !== null)
      return { version: 1, host, entries: { ...parsed.entries } };
  } catch {
    // none yet (or unreadable: entries are then unwrapped from their own arguments)
  }
  return { version: 1, host, entries: {} };
}

interface Target {
  readonly host: HostName;
  readonly file: string;
  readonly text: string;
  readonly config: Record<string, unknown>;
  readonly servers: Record<string, unknown>;
}

function target(values: { host?: string | undefined; config?: string | undefined }, io: InstallIo, verb: string): Target {
  if (values.host === undefined) throw new UsageError(`${verb} needs --host claude-desktop, vscode or cursor`);
  if (!isHostName(values.host)) throw new UsageError(`unknown --host ${JSON.stringify(values.host)}: claude-desktop, vscode or cursor`);
  const host = values.host;
  const file =
    values.config === undefined
      ? defaultConfigPath(host, { platform: io.platform ?? process.platform, home: io.home ?? homedir(), env: io.env ?? process.env })
      : resolve(io.cwd, values.config);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(
      code === 'ENOENT'
        ? `no ${HOSTS[host].label} config at ${file}: add a server in ${HOSTS[host].label} first, or pass --config FILE`
        : `cannot read ${file}: ${code ?? (error as Error).message}`,
    );
  }
  let config: Record<string, unknown>;
  try {
    config = parseConfig(text, file);
  } catch (error) {
    if (error instanceof ConfigSyntaxError) throw new UsageError(error.message);
    throw error;
  }
  const key = HOSTS[host].serversKey;
  const raw = config[key];
  const servers = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  return { host, file, text, config, servers };
}

function timestamp(now: Date): string {
  return now
    .toISOString()
    .replace(/[-:]/gu, '')
    .replace(/\.\d+Z$/u, 'Z');
}

/** Writes through a temporary file and a rename, keeping the file's mode; a backup of the old bytes first. */
function writeWithBackup(file: string, after: string, now: Date): string {
  const backup = `${file}.${timestamp(now)}.bak`;
  copyFileSync(file, backup);
  const mode = statSync(file).mode & 0o777;
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, after, { mode });
  renameSync(temp, file);
  return backup;
}

function diff(file: string, before: string, after: string, label: string): string {
  return createTwoFilesPatch(file, file, before, after, 'current', label, { context: 3 });
}

function row(label: string, rest: string): string {
  return `  ${label.padEnd(12)} ${rest}`;
}

function short(entry: StdioEntry): string {
  const text = [entry.command, ...(entry.args ?? [])].join(' ');
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

/** `install --host …`: wrap the host's stdio servers with the proxy. */
export async function installCommand(argv: readonly string[], io: InstallIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, OPTIONS, false);
  if (values.help === true) {
    writeLine(io.stdout, INSTALL_HELP);
    return Exit.ok;
  }
  if (positionals.length > 0) throw new UsageError('install takes no positional arguments');
  const t = target(values, io, 'install');
  const serversKey = HOSTS[t.host].serversKey;
  const policyFile = values.policy === undefined ? undefined : resolve(io.cwd, values.policy);
  let policyServers: readonly string[] = [];
  if (policyFile !== undefined) {
    try {
      policyServers = Object.keys(loadPolicy(policyFile).servers);
    } catch (error) {
      if (GuardError.is(error)) throw new UsageError(`${error.code}: ${error.message}`);
      throw error;
    }
  }
  const wrapper = { command: values.command ?? 'mcp-elicitation-guard', ...(policyFile === undefined ? {} : { policy: policyFile }) };
  const originals = readOriginals(t.file, t.host);
  const report: string[] = [`${HOSTS[t.host].label} config: ${t.file}`];
  let text = t.text;
  const wrappedNames: string[] = [];
  for (const [name, value] of Object.entries(t.servers)) {
    const kind = classifyEntry(value);
    if (kind.kind === 'remote') {
      report.push(row('not wrapped', `${name}: ${kind.reason}`));
      continue;
    }
    if (kind.kind === 'invalid') {
      report.push(row('skipped', `${name}: ${kind.reason}`));
      continue;
    }
    const existing = unwrap(kind.entry);
    const inner: StdioEntry = existing === null ? kind.entry : existing.inner;
    const next = wrap(inner, name, wrapper);
    wrappedNames.push(name);
    if (existing !== null && kind.entry.command === next.command && JSON.stringify(kind.entry.args ?? []) === JSON.stringify(next.args)) {
      report.push(row('already', name));
      continue;
    }
    text = setAt(text, [serversKey, name, 'command'], next.command);
    text = setAt(text, [serversKey, name, 'args'], next.args);
    // The first install's record of the original wins: a re-wrap (another policy) keeps it. An entry
    // someone else wrapped (the npx snippet form) is restored as it was; one of ours without a
    // record is restored to the server it runs.
    const ours = existing !== null && kind.entry.command === wrapper.command;
    const original = originals.entries[name]?.original ?? (existing === null || !ours ? kind.entry : inner);
    originals.entries[name] = { original, wrapped: next };
    report.push(row(existing === null ? 'wrapped' : 'rewrapped', `${name}  (${short(inner)})`));
  }
  if (wrappedNames.length === 0) report.push('  no stdio server entries to wrap');

  // The proxy refuses a --server key its policy does not have: give each wrapped name an entry.
  let policyText: string | null = null;
  const missing = policyFile === undefined ? [] : wrappedNames.filter((n) => !policyServers.includes(n));
  if (policyFile !== undefined && missing.length > 0) {
    policyText = readFileSync(policyFile, 'utf8');
    for (const name of missing) policyText = setAt(policyText, ['servers', name], {});
    report.push(
      `policy ${policyFile}: adds ${missing.map((n) => `servers.${JSON.stringify(n)} = {}`).join(', ')} (the top-level settings apply)`,
    );
  }

  const changed = text !== t.text;
  if (values['dry-run'] === true) {
    writeLine(io.stdout, report.join('\n'));
    if (changed) io.stdout.write(diff(t.file, t.text, text, 'after install'));
    if (policyText !== null && policyFile !== undefined)
      io.stdout.write(diff(policyFile, readFileSync(policyFile, 'utf8'), policyText, 'after install'));
    writeLine(io.stdout, changed || policyText !== null ? 'dry run: nothing was written' : 'nothing to change');
    return Exit.ok;
  }
  const now = (io.now ?? (() => new Date()))();
  if (policyText !== null && policyFile !== undefined) {
    const backup = writeWithBackup(policyFile, policyText, now);
    report.push(`wrote ${policyFile} (backup: ${backup})`);
  }
  if (changed) {
    const backup = writeWithBackup(t.file, text, now);
    writeFileSync(originalsPath(t.file), JSON.stringify(originals, null, 2) + '\n', { mode: 0o600 });
    report.push(`wrote ${t.file} (backup: ${backup}); restart ${HOSTS[t.host].label} to use it`);
  } else report.push('nothing to change');
  writeLine(io.stdout, report.join('\n'));
  return Exit.ok;
}

/** `uninstall --host …`: put every wrapped entry back as it was. */
export async function uninstallCommand(argv: readonly string[], io: InstallIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, OPTIONS, false);
  if (values.help === true) {
    writeLine(io.stdout, UNINSTALL_HELP);
    return Exit.ok;
  }
  if (positionals.length > 0) throw new UsageError('uninstall takes no positional arguments');
  if (values.policy !== undefined || values.command !== undefined)
    throw new UsageError('uninstall takes only --host, --config and --dry-run');
  const t = target(values, io, 'uninstall');
  const serversKey = HOSTS[t.host].serversKey;
  const originals = readOriginals(t.file, t.host);
  const report: string[] = [`${HOSTS[t.host].label} config: ${t.file}`];
  let text = t.text;
  for (const [name, value] of Object.entries(t.servers)) {
    const kind = classifyEntry(value);
    if (kind.kind !== 'stdio') continue;
    const wrapped = unwrap(kind.entry);
    if (wrapped === null) continue;
    const recorded = originals.entries[name];
    const unchanged =
      recorded !== undefined &&
      recorded.wrapped.command === kind.entry.command &&
      JSON.stringify(recorded.wrapped.args) === JSON.stringify(kind.entry.args ?? []);
    const restore: StdioEntry = unchanged ? recorded.original : wrapped.inner;
    text = setAt(text, [serversKey, name, 'command'], restore.command);
    text = setAt(text, [serversKey, name, 'args'], restore.args === undefined ? undefined : [...restore.args]);
    delete originals.entries[name];
    report.push(row('restored', `${name}  (${short(restore)})${unchanged ? '' : ' [edited since install: unwrapped from its arguments]'}`));
  }
  const changed = text !== t.text;
  if (!changed) report.push('  no wrapped entries');
  if (values['dry-run'] === true) {
    writeLine(io.stdout, report.join('\n'));
    if (changed) io.stdout.write(diff(t.file, t.text, text, 'after uninstall'));
    writeLine(io.stdout, changed ? 'dry run: nothing was written' : 'nothing to change');
    return Exit.ok;
  }
  if (changed) {
    const backup = writeWithBackup(t.file, text, (io.now ?? (() => new Date()))());
    report.push(`wrote ${t.file} (backup: ${backup}); restart ${HOSTS[t.host].label} to use it`);
  } else report.push('nothing to change');
  const state = originalsPath(t.file);
  if (Object.keys(originals.entries).length === 0) {
    if (existsSync(state)) rmSync(state);
  } else if (changed) writeFileSync(state, JSON.stringify(originals, null, 2) + '\n', { mode: 0o600 });
  writeLine(io.stdout, report.join('\n'));
  return Exit.ok;
}
