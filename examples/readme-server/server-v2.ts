/**
 * The README's server for SDK v2, complete: an MCP server (SDK v2 `McpServer` behind
 * `createMcpHandler`, Streamable HTTP, protocol 2026-07-28 and 2025-11-25) whose tool needs a
 * third-party OAuth token, obtained through a URL-mode elicitation bound to the verified MCP user.
 * Run it: `node --import tsx examples/readme-server/server-v2.ts` (see the README).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer, SUPPORTED_PROTOCOL_VERSIONS, type AuthInfo } from '@modelcontextprotocol/server';
import {
  ConnectRounds,
  ConnectService,
  connectHandler,
  createSessionCookie,
  EncryptedFileVault,
  type SecretVault,
} from 'mcp-elicitation-guard/server';

export interface ServerOptions {
  readonly port: number;
  /** The public base URL; `http://127.0.0.1:<port>` (development on loopback) when omitted. */
  readonly baseUrl?: string;
  readonly provider: { readonly issuer: string; readonly clientId: string; readonly clientSecret: string };
  readonly vault: SecretVault;
  /** Your MCP authorization: the verified subject (`sub`) of a bearer token, or null. */
  readonly verifyBearer: (token: string) => string | null | Promise<string | null>;
  /** Your sign-in: the subject of a user name and password, or null. */
  readonly verifyLogin: (username: string, password: string) => string | null | Promise<string | null>;
  /** At least 32 random bytes: the key of the browser session cookie. */
  readonly sessionSecret: Uint8Array;
  /** At least 32 random bytes, the same on every instance: the key that seals each requestState. */
  readonly stateKey: Uint8Array;
  /** How long a retry waits here for the browser step before answering "not done yet" (20 s). */
  readonly waitMs?: number;
}

export async function startServer(options: ServerOptions): Promise<{ url: string; close(): Promise<void> }> {
  const http = createServer();
  await new Promise<void>((resolve) => http.listen(options.port, '127.0.0.1', resolve));
  const baseUrl = options.baseUrl ?? `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  // Plain http is for development on loopback only; ConnectService refuses it anywhere else.
  const insecure = new URL(baseUrl).protocol === 'http:';

  const cookie = createSessionCookie({ secret: options.sessionSecret, secure: !insecure });
  const connect = new ConnectService({
    baseUrl,
    vault: options.vault,
    provider: { name: 'acme', ...options.provider, redirectUri: `${baseUrl}/oauth/callback`, scope: 'openid' },
    allowInsecureRequests: insecure,
  });
  // 2026-07-28 has no completion notice: the client's retry brings back the sealed requestState and
  // waits here (up to waitMs) for the callback; the tool goes on once the token is in the vault.
  const rounds = new ConnectRounds(connect, {
    key: options.stateKey,
    // The verified MCP subject, never a session id or a name the client sent.
    subject: (ctx) => {
      const sub = ctx.http?.authInfo?.extra?.['sub'];
      return typeof sub === 'string' ? sub : null;
    },
    allowHttpLoopback: insecure,
    ...(options.waitMs === undefined ? {} : { waitMs: options.waitMs }),
  });

  const mcp = createMcpHandler(() => {
    const server = new McpServer(
      { name: 'acme-files', version: '2.0.0' },
      { supportedProtocolVersions: ['2026-07-28', ...SUPPORTED_PROTOCOL_VERSIONS] },
    );
    server.registerTool('list_acme_files', { description: 'Lists your Acme files.' }, async (ctx) => {
      // input_required (the URL, or "not done yet"), a refusal, or connected. A 2025 request gets -32042.
      const step = await rounds.connect(ctx, { purpose: 'Connect your Acme account' });
      if (step.kind !== 'connected') return step.result;
      // The token (step.secret) is used here, server-side; it never goes back to the client.
      return { content: [{ type: 'text', text: `Acme is connected for ${step.subject}.` }] };
    });
    return server;
  });
  const serveMcp = toNodeHandler(mcp);

  async function handleMcp(req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse): Promise<void> {
    const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    const subject = token === undefined ? null : await options.verifyBearer(token);
    if (token === undefined || subject === null) return void res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
    // The SDK hands req.auth to the tool as ctx.http.authInfo.
    req.auth = { token, clientId: 'mcp-client', scopes: [], extra: { sub: subject } };
    await serveMcp(req, res);
  }

  // Your own sign-in sets the session cookie the connect page and the callback check.
  async function handleLogin(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = new URLSearchParams(req.method === 'POST' ? await readBody(req) : '');
    const subject = req.method === 'POST' ? await options.verifyLogin(form.get('username') ?? '', form.get('password') ?? '') : null;
    if (subject === null) {
      res.writeHead(req.method === 'POST' ? 401 : 200, { 'content-type': 'text/html' });
      return void res.end(
        '<form method="post"><input name="username"> <input name="password" type="password"> <button>Sign in</button></form>',
      );
    }
    const returnTo = form.get('returnTo') ?? '/';
    res.writeHead(303, { location: /^\/(?!\/)/.test(returnTo) ? returnTo : '/', 'set-cookie': cookie.issue(subject) }).end();
  }

  http.on(
    'request',
    connectHandler(connect, {
      authenticate: (req) => cookie.authenticate(req),
      login: (returnTo) => `/login?returnTo=${encodeURIComponent(returnTo)}`,
      next: (req, res) => {
        const path = new URL(req.url ?? '/', baseUrl).pathname;
        const handled =
          path === '/mcp'
            ? handleMcp(req, res)
            : path === '/login'
              ? handleLogin(req, res)
              : Promise.resolve(void res.writeHead(404).end());
        handled.catch(() => void (res.headersSent ? res.end() : res.writeHead(500).end()));
      },
    }),
  );
  return {
    url: baseUrl,
    close: async () => {
      await mcp.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) {
    text += String(chunk);
    if (text.length > 1 << 20) throw new Error('request body too large');
  }
  return text;
}

// Run directly: configuration from the environment; the bearer and login checks are stand-ins
// for your MCP authorization server and your sign-in.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const env = process.env;
  const users = (env['DEMO_USERS'] ?? '')
    .split(',')
    .filter(Boolean)
    .map((entry) => entry.split(':'));
  const running = await startServer({
    port: Number(env['PORT'] ?? 3000),
    ...(env['BASE_URL'] === undefined ? {} : { baseUrl: env['BASE_URL'] }),
    provider: {
      issuer: env['PROVIDER_ISSUER'] ?? '',
      clientId: env['PROVIDER_CLIENT_ID'] ?? '',
      clientSecret: env['PROVIDER_CLIENT_SECRET'] ?? '',
    },
    vault: EncryptedFileVault.fromEnv(env['VAULT_FILE'] ?? 'vault.json'),
    verifyBearer: (token) => users.find((u) => u[2] === token)?.[0] ?? null,
    verifyLogin: (name, password) => users.find((u) => u[0] === name && u[1] === password)?.[0] ?? null,
    sessionSecret: Buffer.from(env['SESSION_SECRET'] ?? '', 'base64'),
    stateKey: Buffer.from(env['STATE_KEY'] ?? '', 'base64'),
  });
  process.once('SIGINT', () => void running.close().then(() => process.exit(0)));
  process.stdout.write(`MCP endpoint ${running.url}/mcp, OAuth callback ${running.url}/oauth/callback\n`);
}
