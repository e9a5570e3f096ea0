import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';

interface ProgramRun {
  readonly code: number | null;
  readonly out: string;
  readonly err: string;
}

/** Runs a README example server as a program until it says where it listens, then stops it with SIGINT. */
function runProgram(example: URL, env: Record<string, string>): Promise<ProgramRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', example.pathname], {
      env: {
        PATH: process.env['PATH'] ?? '',
        MCP_GUARD_VAULT_KEY: randomBytes(32).toString('base64'),
        SESSION_SECRET: randomBytes(32).toString('base64'),
        PORT: '0',
        VAULT_FILE: '/nonexistent-dir/vault.json',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => {
      out += String(chunk);
      if (out.includes('MCP endpoint')) child.kill('SIGINT');
    });
    child.stderr.on('data', (chunk) => void (err += String(chunk)));
    child.on('exit', (code) => resolve({ code, out, err }));
  });
}

/**
 * The example starts on loopback over plain http (development mode) and refuses plain http on a
 * host that is not loopback. `env` carries what the example needs besides the vault key, the
 * session secret, the port and the vault file.
 */
export async function expectLoopbackOnlyProgram(example: URL, env: Record<string, string>): Promise<void> {
  const refused = await runProgram(example, { ...env, BASE_URL: 'http://mcp.example.com' });
  expect(refused.code).not.toBe(0);
  expect(refused.err).toMatch(/baseUrl uses plain http on "mcp\.example\.com", which is not a loopback host/);
  const started = await runProgram(example, env);
  expect(started.out).toMatch(/^MCP endpoint http:\/\/127\.0\.0\.1:\d+\/mcp, OAuth callback http:\/\/127\.0\.0\.1:\d+\/oauth\/callback\n$/);
  expect(started.code).toBe(0);
}
