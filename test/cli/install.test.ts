import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'jsonc-parser';
import { describe, expect, it } from 'vitest';
import { defaultConfigPath, unwrap } from '../../src/cli/hosts.js';
import { originalsPath } from '../../src/cli/install.js';
import { main } from '../../src/cli/main.js';
import { loadPolicy } from '../../src/policy/policy.js';
import { memoryIo } from './memory-io.js';

const fixtures = fileURLToPath(new URL('../../fixtures/hosts/', import.meta.url));

const CASES = [
  {
    host: 'claude-desktop',
    file: 'claude_desktop_config.json',
    key: 'mcpServers',
    stdio: ['everything', 'filesystem', 'local-tool'],
    remote: ['remote-docs'],
  },
  { host: 'vscode', file: 'vscode-mcp.json', key: 'servers', stdio: ['everything', 'github'], remote: ['remote'] },
  { host: 'cursor', file: 'cursor-mcp.json', key: 'mcpServers', stdio: ['everything', 'python-tool'], remote: ['remote-sse'] },
] as const;

function scratch(file: string): { dir: string; path: string } {
  const dir = mkdtempSync(join(tmpdir(), 'meg-install-'));
  const path = join(dir, file);
  copyFileSync(join(fixtures, file), path);
  return { dir, path };
}

async function run(args: string[], cwd = process.cwd()) {
  const m = memoryIo({ cwd });
  const code = await main(args, m.io);
  return { code, out: m.stdout(), err: m.stderr() };
}

const read = (path: string) => parse(readFileSync(path, 'utf8')) as Record<string, Record<string, Record<string, unknown>>>;

describe.each(CASES)('install / uninstall --host $host on a fixture config', ({ host, file, key, stdio, remote }) => {
  it('wraps each stdio entry keeping its command, args and env, leaves remote ones with the reason, backs up, and is idempotent', async () => {
    const { dir, path } = scratch(file);
    const before = readFileSync(path, 'utf8');
    const original = read(path);
    const first = await run(['install', '--host', host, '--config', path]);
    expect(first.code, first.err).toBe(0);
    const after = read(path);
    for (const name of stdio) {
      const entry = after[key]![name]!;
      expect(entry.command).toBe('mcp-elicitation-guard');
      const back = unwrap({ command: entry.command as string, args: entry.args as string[] });
      expect(back).toEqual({
        serverKey: name,
        policy: null,
        inner: { command: original[key]![name]!.command, args: original[key]![name]!.args ?? [] },
      });
      expect(entry.env).toEqual(original[key]![name]!.env);
      expect(first.out).toMatch(new RegExp(`wrapped +${name} `, 'u'));
    }
    for (const name of remote) {
      expect(after[key]![name]).toEqual(original[key]![name]);
      expect(first.out).toMatch(new RegExp(`not wrapped +${name}: a remote`, 'u'));
    }
    const backups = readdirSync(dir).filter((f) => f.endsWith('.bak'));
    expect(backups).toHaveLength(1);
    expect(readFileSync(join(dir, backups[0]!), 'utf8')).toBe(before);

    const wrappedText = readFileSync(path, 'utf8');
    const second = await run(['install', '--host', host, '--config', path]);
    expect(second.code).toBe(0);
    expect(second.out).toContain('nothing to change');
    expect(readFileSync(path, 'utf8')).toBe(wrappedText);
    expect(readdirSync(dir).filter((f) => f.endsWith('.bak'))).toHaveLength(1);

    const undo = await run(['uninstall', '--host', host, '--config', path]);
    expect(undo.code, undo.err).toBe(0);
    expect(read(path)).toEqual(original);
    expect(existsSync(originalsPath(path))).toBe(false);
  });

  it('--dry-run prints the diff and writes nothing', async () => {
    const { dir, path } = scratch(file);
    const before = readFileSync(path, 'utf8');
    const r = await run(['install', '--host', host, '--config', path, '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('+      "command": "mcp-elicitation-guard"');
    expect(r.out).toContain(`-      "command": "${read(path)[key]![stdio[0]]!.command as string}"`);
    expect(r.out).toContain('dry run: nothing was written');
    expect(readFileSync(path, 'utf8')).toBe(before);
    expect(readdirSync(dir)).toEqual([file]);
  });
});

describe('install details', () => {
  it('keeps the comments of a VS Code mcp.json', async () => {
    const { path } = scratch('vscode-mcp.json');
    await run(['install', '--host', 'vscode', '--config', path]);
    expect(readFileSync(path, 'utf8')).toContain('// VS Code allows comments in mcp.json; install keeps them.');
  });

  it('with --policy writes the absolute policy path and adds the missing server keys to the policy', async () => {
    const { dir, path } = scratch('claude_desktop_config.json');
    writeFileSync(join(dir, 'policy.json'), JSON.stringify({ servers: { everything: { form: { onSensitive: 'audit' } } } }, null, 2));
    const r = await run(['install', '--host', 'claude-desktop', '--config', path, '--policy', 'policy.json'], dir);
    expect(r.code, r.err).toBe(0);
    const args = read(path).mcpServers!.filesystem!.args as string[];
    expect(args.slice(0, 5)).toEqual(['proxy', '--server', 'filesystem', '--policy', join(dir, 'policy.json')]);
    expect(Object.keys(loadPolicy(join(dir, 'policy.json')).servers).sort()).toEqual(['everything', 'filesystem', 'local-tool']);
    expect(loadPolicy(join(dir, 'policy.json')).forServer('everything').form.onSensitive).toBe('audit');
    // Again with the same policy: nothing to do.
    expect((await run(['install', '--host', 'claude-desktop', '--config', path, '--policy', 'policy.json'], dir)).out).toContain(
      'nothing to change',
    );
  });

  it('re-wraps an entry of the old npx snippet form with the installed command, and uninstall restores the server', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'meg-install-'));
    const path = join(dir, 'mcp.json');
    const old = {
      mcpServers: {
        everything: {
          command: 'npx',
          args: [
            '-y',
            'mcp-elicitation-guard',
            'proxy',
            '--server',
            'everything',
            '--',
            'npx',
            '-y',
            '@modelcontextprotocol/server-everything',
          ],
        },
      },
    };
    writeFileSync(path, JSON.stringify(old, null, 2));
    expect((await run(['install', '--host', 'cursor', '--config', path])).out).toMatch(/rewrapped +everything/u);
    expect(read(path).mcpServers!.everything).toEqual({
      command: 'mcp-elicitation-guard',
      args: ['proxy', '--server', 'everything', '--', 'npx', '-y', '@modelcontextprotocol/server-everything'],
    });
    await run(['uninstall', '--host', 'cursor', '--config', path]);
    expect(read(path).mcpServers!.everything).toEqual(old.mcpServers.everything);
  });

  it('uninstall unwraps an entry edited after install from its own arguments', async () => {
    const { path } = scratch('cursor-mcp.json');
    await run(['install', '--host', 'cursor', '--config', path]);
    const config = read(path);
    (config.mcpServers!['python-tool']!.args as string[]).push('--local-timezone=UTC');
    writeFileSync(path, JSON.stringify(config, null, 2));
    const r = await run(['uninstall', '--host', 'cursor', '--config', path]);
    expect(r.out).toContain('edited since install');
    expect(read(path).mcpServers!['python-tool']).toEqual({
      type: 'stdio',
      command: 'uvx',
      args: ['mcp-server-time', '--local-timezone=UTC'],
    });
  });

  it('reports a broken config with line and column, and a missing one with what to do', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'meg-install-'));
    writeFileSync(join(dir, 'bad.json'), '{\n  "mcpServers": {\n    "a": { "command": "x" \n  }\n');
    const bad = await run(['install', '--host', 'cursor', '--config', join(dir, 'bad.json')]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/bad\.json:\d+:\d+: /u);
    const missing = await run(['install', '--host', 'cursor', '--config', join(dir, 'none.json')]);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('no Cursor config at');
    expect((await run(['install', '--host', 'zed'])).err).toContain('unknown --host "zed"');
  });

  it('knows where each host keeps its user-level config', () => {
    const mac = { platform: 'darwin' as const, home: '/Users/me', env: {} };
    const win = { platform: 'win32' as const, home: 'C:\\Users\\me', env: { APPDATA: 'C:\\Users\\me\\AppData\\Roaming' } };
    const linux = { platform: 'linux' as const, home: '/home/me', env: {} };
    expect(defaultConfigPath('claude-desktop', mac)).toBe('/Users/me/Library/Application Support/Claude/claude_desktop_config.json');
    expect(defaultConfigPath('claude-desktop', win)).toContain(join('Claude', 'claude_desktop_config.json'));
    expect(defaultConfigPath('claude-desktop', win).startsWith('C:\\Users\\me\\AppData\\Roaming')).toBe(true);
    expect(defaultConfigPath('vscode', mac)).toBe('/Users/me/Library/Application Support/Code/User/mcp.json');
    expect(defaultConfigPath('vscode', linux)).toBe('/home/me/.config/Code/User/mcp.json');
    expect(defaultConfigPath('cursor', linux)).toBe('/home/me/.cursor/mcp.json');
  });
});
