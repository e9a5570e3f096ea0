/**
 * Runs the example: `node --import tsx examples/oauth-server/main.ts` (see README.md).
 * Configuration comes from the environment; the MCP tokens and browser logins are development
 * stand-ins for a real MCP authorization server and a real sign-in.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createConnectAuditLog } from '../../src/server/connect-audit.js';
import { EncryptedFileVault } from '../../src/server/vault.js';
import { startExample } from './app.js';

const env = process.env;
function required(name: string): string {
  const value = env[name];
  if (value === undefined || value === '') {
    process.stderr.write(`missing environment variable ${name} (see examples/oauth-server/README.md)\n`);
    process.exit(2);
  }
  return value;
}

// DEMO_USERS="alice:alice-password:alice-mcp-token,bob:…": user name, browser password, MCP bearer token.
const users = required('DEMO_USERS')
  .split(',')
  .map((entry) => {
    const [name = '', password = '', token = ''] = entry.split(':');
    if (name === '' || password === '' || token === '') throw new Error('DEMO_USERS entries are name:password:token');
    return { name, password, token };
  });
const dataDir = env['DATA_DIR'] ?? join(process.cwd(), '.oauth-example');
const insecure = env['ALLOW_INSECURE'] === '1';

const running = await startExample({
  port: Number(env['PORT'] ?? 3000),
  host: env['HOST'] ?? '127.0.0.1',
  ...(env['BASE_URL'] === undefined ? {} : { baseUrl: env['BASE_URL'] }),
  provider: {
    name: env['PROVIDER_NAME'] ?? 'provider',
    issuer: required('PROVIDER_ISSUER'),
    clientId: required('PROVIDER_CLIENT_ID'),
    ...(env['PROVIDER_CLIENT_SECRET'] === undefined ? {} : { clientSecret: env['PROVIDER_CLIENT_SECRET'] }),
    scope: env['PROVIDER_SCOPE'] ?? 'openid',
  },
  // The key comes from MCP_GUARD_VAULT_KEY (base64 of 32 random bytes).
  vault: EncryptedFileVault.fromEnv(join(dataDir, 'vault.json')),
  audit: createConnectAuditLog(join(dataDir, 'connect-audit.jsonl')),
  verifyMcpToken: (token) => users.find((u) => u.token === token)?.name ?? null,
  verifyLogin: (name, password) => users.find((u) => u.name === name && u.password === password)?.name ?? null,
  sessionSecret: env['SESSION_SECRET'] === undefined ? randomBytes(32) : Buffer.from(env['SESSION_SECRET'], 'base64'),
  allowInsecureRequests: insecure,
});
process.stdout.write(`MCP endpoint: ${running.url}/mcp\nOAuth callback (register it at the provider): ${running.url}/oauth/callback\n`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void running.close().then(() => process.exit(0)));
