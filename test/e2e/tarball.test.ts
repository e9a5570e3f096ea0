/**
 * The package as a user gets it: `npm pack`, a global install of the tarball into a temporary
 * prefix (npm's cache first; the registry only for what the cache lacks), then the installed
 * `mcp-elicitation-guard` wires a host config, passes `doctor`, and proxies a real server with a
 * durable SQLite ledger.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'meg-tarball-'));
const prefix = join(work, 'prefix');
const binDir = process.platform === 'win32' ? prefix : join(prefix, 'bin');
const bin = join(binDir, process.platform === 'win32' ? 'mcp-elicitation-guard.cmd' : 'mcp-elicitation-guard');
// The installed command on PATH, as a shell would find it; HOME and XDG dirs of the scratch folder.
const env = {
  ...process.env,
  PATH: `${binDir}${delimiter}${process.env.PATH ?? ''}`,
  HOME: work,
  XDG_STATE_HOME: join(work, 'state'),
  XDG_CONFIG_HOME: join(work, 'config'),
  npm_config_update_notifier: 'false',
};
const config = join(work, 'claude_desktop_config.json');
const policy = join(work, 'config', 'mcp', 'elicitation-policy.json');

function cli(args: string[]) {
  return spawnSync('mcp-elicitation-guard', args, { env, cwd: work, encoding: 'utf8' });
}

beforeAll(() => {
  // The package as `npm ci` built it (prepare); packing without scripts leaves dist/ alone while
  // other test files read it.
  if (!existsSync(join(root, 'dist', 'cli', 'main.js')))
    throw new Error('dist/ is missing: run "npm run build" (npm ci does it through prepare)');
  const packed = execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', work, '--silent'], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, npm_config_update_notifier: 'false' },
  })
    .trim()
    .split('\n')
    .at(-1)!;
  execFileSync(
    'npm',
    ['install', '--global', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel', 'error', join(work, packed)],
    { cwd: work, encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  copyFileSync(join(root, 'fixtures', 'hosts', 'claude_desktop_config.json'), config);
}, 600_000);

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe('installed from the packed tarball', () => {
  it('is on PATH with the durable ledger driver inside the package', () => {
    expect(existsSync(bin)).toBe(true);
    const pkg = join(prefix, process.platform === 'win32' ? '' : 'lib', 'node_modules', 'mcp-elicitation-guard');
    expect(readdirSync(join(pkg, 'node_modules'))).toContain('better-sqlite3');
    expect(cli(['--version']).stdout.trim()).toBe(
      (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version,
    );
  });

  it('loads the server companion without either MCP SDK (optional peers), and says what to install when one is needed', () => {
    const pkg = join(prefix, process.platform === 'win32' ? '' : 'lib', 'node_modules', 'mcp-elicitation-guard');
    const installed = join(pkg, 'node_modules', '@modelcontextprotocol');
    expect(existsSync(join(installed, 'sdk')) || existsSync(join(installed, 'server'))).toBe(false);
    const entry = pathToFileURL(join(pkg, 'dist', 'server', 'index.js')).href;
    const script = `
      const m = await import(${JSON.stringify(entry)});
      const out = { rounds: typeof m.ConnectRounds, service: typeof m.ConnectService };
      try { m.urlElicitationRequired([{ mode: 'url', elicitationId: 'e1', url: 'https://mcp.example.com/connect/x', message: 'm' }]); }
      catch (e) { out.v1 = e.code + ' ' + e.message; }
      const service = new m.ConnectService({ baseUrl: 'https://mcp.example.com', vault: new m.MemorySecretVault(),
        provider: { issuer: 'https://id.example.com', clientId: 'c', redirectUri: 'https://mcp.example.com/cb', scope: 'openid' } });
      const rounds = new m.ConnectRounds(service, { key: 'k'.repeat(32), subject: () => 'alice' });
      try { await rounds.connect({ mcpReq: { requestState: () => undefined } }, { purpose: 'p' }); }
      catch (e) { out.v2 = e.code + ' ' + e.message; }
      console.log(JSON.stringify(out));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { env, cwd: work, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout) as Record<string, string>;
    expect(out).toMatchObject({ rounds: 'function', service: 'function' });
    expect(out['v1']).toMatch(/^E_INPUT urlElicitationRequired builds the SDK v1 -32042 error: install @modelcontextprotocol\/sdk/);
    expect(out['v2']).toMatch(
      /^E_INPUT ConnectRounds needs the MCP TypeScript SDK v2 server package: npm install @modelcontextprotocol\/server/,
    );
  });

  it('install --host claude-desktop --config <fixture> --dry-run shows the wrapped entries and writes nothing', () => {
    const before = readFileSync(config, 'utf8');
    const r = cli(['install', '--host', 'claude-desktop', '--config', config, '--dry-run']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/wrapped +everything +\(npx -y @modelcontextprotocol\/server-everything\)/u);
    expect(r.stdout).toMatch(/not wrapped +remote-docs: a remote/u);
    expect(r.stdout).toContain('+      "command": "mcp-elicitation-guard"');
    expect(readFileSync(config, 'utf8')).toBe(before);
  });

  it('policy init, install and doctor pass', () => {
    expect(cli(['policy', 'init', policy]).status).toBe(0);
    const installed = cli(['install', '--host', 'claude-desktop', '--config', config, '--policy', policy]);
    expect(installed.status, installed.stderr).toBe(0);
    const doctor = cli(['doctor', '--host', 'claude-desktop', '--config', config]);
    expect(doctor.status, doctor.stdout + doctor.stderr).toBe(0);
    expect(doctor.stdout).toMatch(/^ok {4}better-sqlite3 \d+\.\d+\.\d+ loads/mu);
    expect(doctor.stdout).toMatch(/^ok {4}"mcp-elicitation-guard" resolves to /mu);
    expect(doctor.stdout).toContain('doctor: every check passed');
  });

  it('proxies the fixture server: decisions on stderr, receipts in the SQLite ledger', async () => {
    const ledger = join(work, 'ledger.sqlite');
    const audit = join(work, 'audit.jsonl');
    const child = spawn(
      'mcp-elicitation-guard',
      [
        'proxy',
        '--server',
        'everything',
        '--policy',
        policy,
        '--ledger',
        ledger,
        '--audit',
        audit,
        '--',
        process.execPath,
        '--import',
        'tsx',
        'fixtures/servers/elicitation-server.ts',
      ],
      { cwd: root, env, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const messages: Record<string, unknown>[] = [];
    let buffer = '';
    child.stdout.on('data', (d: Buffer) => {
      buffer += d.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (const line of lines) {
        const message = JSON.parse(line) as Record<string, unknown>;
        messages.push(message);
        // The host accepts the URL the guard let through (it draws its own consent UI).
        if (message.method === 'elicitation/create')
          child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { action: 'accept' } }) + '\n');
      }
    });
    const send = (m: unknown) => child.stdin.write(JSON.stringify(m) + '\n');
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: { elicitation: { form: {}, url: {} } },
        clientInfo: { name: 'tarball-host', version: '1' },
      },
    });
    await vi.waitFor(() => expect(messages.some((m) => m.id === 1)).toBe(true), { timeout: 30_000 });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'ask-password', arguments: {} } });
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'open-oauth', arguments: {} } });
    await vi.waitFor(() => expect(messages.filter((m) => m.id === 2 || m.id === 3)).toHaveLength(2), { timeout: 30_000 });
    child.stdin.end();
    expect(await exited).toBe(0);

    expect(stderr).toMatch(
      /^mcp-elicitation-guard: BLOCK form from everything: field "password" \(credential: name:password, title:password\)/mu,
    );
    expect(stderr).not.toContain('receipts are kept in memory only');
    const list = cli(['ledger', 'list', '--ledger', ledger, '--json']);
    expect(list.status, list.stderr).toBe(0);
    const rows = JSON.parse(list.stdout) as { id: string }[];
    expect(rows).toHaveLength(1);
    const shown = cli(['ledger', 'show', rows[0]!.id, '--ledger', ledger, '--json']);
    expect(JSON.parse(shown.stdout)).toMatchObject({
      record: { elicitationId: 'oauth-1', server: { key: 'everything', name: 'elicitation-fixture' } },
    });
    expect(readFileSync(audit, 'utf8')).toContain('"type":"elicitation.refused"');
    const summary = cli(['audit', 'summary', audit]);
    expect(summary.stdout).toMatch(/everything +block form +E_SENSITIVE_FIELD +1/u);
  }, 60_000);
});
