/**
 * MCP host config files (Claude Desktop, VS Code, Cursor): where they live, which entries are stdio
 * servers, and how an entry is wrapped with the proxy and unwrapped again. Pure functions over the
 * file's text: edits go through `jsonc-parser`, so comments and formatting elsewhere are kept.
 */
import { basename, join } from 'node:path';
import { applyEdits, modify, parse, printParseErrorCode, type FormattingOptions, type ParseError } from 'jsonc-parser';

export type HostName = 'claude-desktop' | 'vscode' | 'cursor';

export interface HostInfo {
  readonly name: HostName;
  readonly label: string;
  /** The top-level key that maps server names to entries. */
  readonly serversKey: 'mcpServers' | 'servers';
}

export const HOSTS: Readonly<Record<HostName, HostInfo>> = {
  'claude-desktop': { name: 'claude-desktop', label: 'Claude Desktop', serversKey: 'mcpServers' },
  vscode: { name: 'vscode', label: 'VS Code', serversKey: 'servers' },
  cursor: { name: 'cursor', label: 'Cursor', serversKey: 'mcpServers' },
};

export function isHostName(value: string): value is HostName {
  return Object.hasOwn(HOSTS, value);
}

export interface PathEnv {
  readonly platform: NodeJS.Platform;
  readonly home: string;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/**
 * The user-level config file each host documents:
 * - Claude Desktop: `~/Library/Application Support/Claude/claude_desktop_config.json` (macOS),
 *   `%APPDATA%\Claude\claude_desktop_config.json` (Windows); there is no official Linux build, and
 *   `$XDG_CONFIG_HOME/Claude/claude_desktop_config.json` is where the community builds read it.
 * - VS Code: the user profile's `mcp.json` (`~/Library/Application Support/Code/User/mcp.json`,
 *   `%APPDATA%\Code\User\mcp.json`, `~/.config/Code/User/mcp.json`); a workspace's
 *   `.vscode/mcp.json` is given with `--config`.
 * - Cursor: `~/.cursor/mcp.json` on every system; a project's `.cursor/mcp.json` with `--config`.
 */
export function defaultConfigPath(host: HostName, where: PathEnv): string {
  const { platform, home, env } = where;
  const appData = env.APPDATA !== undefined && env.APPDATA !== '' ? env.APPDATA : join(home, 'AppData', 'Roaming');
  const xdg = env.XDG_CONFIG_HOME !== undefined && env.XDG_CONFIG_HOME !== '' ? env.XDG_CONFIG_HOME : join(home, '.config');
  switch (host) {
    case 'claude-desktop':
      if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json');
      if (platform === 'win32') return join(appData, 'Claude', 'claude_desktop_config.json');
      return join(xdg, 'Claude', 'claude_desktop_config.json');
    case 'vscode':
      if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'Code', 'User', 'mcp.json');
      if (platform === 'win32') return join(appData, 'Code', 'User', 'mcp.json');
      return join(xdg, 'Code', 'User', 'mcp.json');
    case 'cursor':
      return join(home, '.cursor', 'mcp.json');
  }
}

/** A config file that could not be read as JSON (with comments): where and why. */
export class ConfigSyntaxError extends Error {
  override readonly name = 'ConfigSyntaxError';
}

/** Line and column (1-based) of a character offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      start = i + 1;
    }
  }
  return { line, column: offset - start + 1 };
}

/** Parses a host config (JSON with comments and trailing commas, as VS Code allows). */
export function parseConfig(text: string, file: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  const errors: ParseError[] = [];
  const value = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0) {
    const { line, column } = lineColumn(text, errors[0]!.offset);
    throw new ConfigSyntaxError(
      `${file}:${line}:${column}: ${printParseErrorCode(errors[0]!.error)}; fix the file (or restore its backup) and run again`,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ConfigSyntaxError(`${file}: the top level is not a JSON object`);
  return value as Record<string, unknown>;
}

/** The proxy command a wrapped entry runs. */
export interface Wrapper {
  /** The command of wrapped entries: `mcp-elicitation-guard` on PATH unless told otherwise. */
  readonly command: string;
  /** Absolute path of the policy file, when one is used. */
  readonly policy?: string;
}

export interface StdioEntry {
  readonly command: string;
  readonly args?: readonly string[];
}

/** What a wrapped entry runs: the proxy's own arguments and the original server command. */
export interface Unwrapped {
  readonly serverKey: string | null;
  readonly policy: string | null;
  readonly inner: { readonly command: string; readonly args: readonly string[] };
}

const GUARD_BIN = /^mcp-elicitation-guard(\.cmd|\.exe|\.ps1)?$/iu;

/** Reads a wrapped entry back (also the `npx -y mcp-elicitation-guard proxy …` form); `null` when it is not one. */
export function unwrap(entry: StdioEntry): Unwrapped | null {
  const args = entry.args ?? [];
  let start: number;
  if (GUARD_BIN.test(basename(entry.command))) start = 0;
  else if (/^npx(\.cmd)?$/iu.test(basename(entry.command))) {
    const at = args.findIndex((a) => a === 'mcp-elicitation-guard' || a.startsWith('mcp-elicitation-guard@'));
    if (at === -1) return null;
    start = at + 1;
  } else return null;
  if (args[start] !== 'proxy') return null;
  const split = args.indexOf('--', start + 1);
  if (split === -1 || split + 1 >= args.length) return null;
  const own = args.slice(start + 1, split);
  const option = (name: string): string | null => {
    const at = own.indexOf(name);
    if (at !== -1 && at + 1 < own.length) return own[at + 1]!;
    const inline = own.find((a) => a.startsWith(`${name}=`));
    return inline === undefined ? null : inline.slice(name.length + 1);
  };
  return { serverKey: option('--server'), policy: option('--policy'), inner: { command: args[split + 1]!, args: args.slice(split + 2) } };
}

/** The command and args of the wrapped entry for server `name`. */
export function wrap(entry: StdioEntry, name: string, wrapper: Wrapper): { command: string; args: string[] } {
  const own = ['proxy', '--server', name, ...(wrapper.policy === undefined ? [] : ['--policy', wrapper.policy])];
  return { command: wrapper.command, args: [...own, '--', entry.command, ...(entry.args ?? [])] };
}

export type EntryKind =
  | { readonly kind: 'stdio'; readonly entry: StdioEntry }
  | { readonly kind: 'remote'; readonly reason: string }
  | { readonly kind: 'invalid'; readonly reason: string };

/** Sorts one server entry: a stdio server the proxy can wrap, a remote one, or something it cannot read. */
export function classifyEntry(value: unknown): EntryKind {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { kind: 'invalid', reason: 'the entry is not an object' };
  const entry = value as Record<string, unknown>;
  const type = typeof entry.type === 'string' ? entry.type : undefined;
  if (type === 'http' || type === 'sse' || type === 'streamable-http' || (entry.command === undefined && typeof entry.url === 'string')) {
    return {
      kind: 'remote',
      reason:
        `a remote ${
          type ?? 'HTTP'
        } server: the host connects to it directly (with its own headers or OAuth), so there is no process for the stdio proxy ` +
        `to sit in front of`,
    };
  }
  if (type !== undefined && type !== 'stdio') return { kind: 'invalid', reason: `unknown server type ${JSON.stringify(type)}` };
  if (typeof entry.command !== 'string' || entry.command === '') return { kind: 'invalid', reason: 'no "command" to run' };
  if (entry.args !== undefined && !(Array.isArray(entry.args) && entry.args.every((a) => typeof a === 'string')))
    return { kind: 'invalid', reason: '"args" is not a list of strings' };
  return { kind: 'stdio', entry: { command: entry.command, ...(entry.args === undefined ? {} : { args: entry.args as string[] }) } };
}

/** Formatting for edits: follows the file's own indentation. */
export function formattingOf(text: string): FormattingOptions {
  const indent = /\n([ \t]+)"/u.exec(text)?.[1] ?? '  ';
  return indent.includes('\t')
    ? { insertSpaces: false, tabSize: 1, eol: text.includes('\r\n') ? '\r\n' : '\n' }
    : { insertSpaces: true, tabSize: indent.length, eol: text.includes('\r\n') ? '\r\n' : '\n' };
}

/** Sets (or, with `undefined`, removes) the value at `path`, keeping everything else in the text. */
export function setAt(text: string, path: (string | number)[], value: unknown): string {
  return applyEdits(text, modify(text, path, value, { formattingOptions: formattingOf(text) }));
}
