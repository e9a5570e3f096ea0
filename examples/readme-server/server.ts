/**
 * The README's server, complete: an MCP server (SDK v1 `McpServer`, Streamable HTTP) whose tool
 * needs a third-party OAuth token, obtained through a URL-mode elicitation bound to the verified
 * MCP user. Run it: `node --import tsx examples/readme-server/server.ts` (see the README).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import {
  ConnectService,
  connectHandler,
  createCompletionRegistry,
  createSessionCookie,
  EncryptedFileVault,
  urlElicitationRequired,
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
}

export async function startServer(options: ServerOptions): Promise<{ url: string; close(): Promise<void> }> {
  const http = createServer();
  await new Promise<void>((resolve) => http.listen(options.port, '127.0.0.1', resolve));
  const baseUrl = options.baseUrl ?? `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  // Plain http is for development on loopback only; ConnectService refuses it anywhere else.
  const insecure = new URL(baseUrl).protocol === 'http:';

  const completions = createCompletionRegistry();
  const cookie = createSessionCookie({ secret: options.sessionSecret, secure: !insecure });
  const connect = new ConnectService({
    baseUrl,
    vault: options.vault,
    provider: { name: 'acme', ...options.provider, redirectUri: `${baseUrl}/oauth/callback`, scope: 'openid' },
    allowInsecureRequests: insecure,
    onComplete: async ({ elicitationId, subject }) => {
      await completions.completeUrlElicitation(elicitationId, { subject });
    },
  });

  function mcpServer(sessionId: () => string | undefined): McpServer {
    const server = new McpServer({ name: 'acme-files', version: '1.0.0' });
    server.registerTool('list_acme_files', { description: 'Lists your Acme files.' }, async (extra) => {
      const subject = extra.authInfo?.extra?.['sub'];
      const session = sessionId();
      if (typeof subject !== 'string' || session === undefined) throw new Error('an authenticated MCP session is required');
      const token = await options.vault.get(subject, connect.providerName);
      if (token === null) {
        // The verified MCP subject, never a session id or a name the client sent.
        const params = await connect.issueUrlElicitation({ subject, session, purpose: 'Connect your Acme account', target: 'acme' });
        completions.register({
          elicitationId: params.elicitationId,
          sessionId: session,
          subject,
          notify: server.server.createElicitationCompletionNotifier(params.elicitationId),
        });
        throw urlElicitationRequired([params], { allowHttpLoopback: insecure });
      }
      // The token is used here, server-side; it never goes back to the client.
      return { content: [{ type: 'text', text: `Acme is connected for ${subject}.` }] };
    });
    return server;
  }

  const sessions = new Map<string, StreamableHTTPServerTransport>();
  async function handleMcp(
    req: IncomingMessage & { auth?: { token: string; clientId: string; scopes: string[]; extra: { sub: string } } },
    res: ServerResponse,
  ): Promise<void> {
    const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    const subject = token === undefined ? null : await options.verifyBearer(token);
    if (token === undefined || subject === null) return void res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
    req.auth = { token, clientId: 'mcp-client', scopes: [], extra: { sub: subject } };
    const body = req.method === 'POST' ? JSON.parse((await readBody(req)) || 'null') : undefined;
    const existing = sessions.get(String(req.headers['mcp-session-id']));
    if (existing !== undefined) return existing.handleRequest(req, res, body);
    if (!isInitializeRequest(body)) return void res.writeHead(400).end('no such MCP session');
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => void sessions.set(id, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId === undefined) return;
      sessions.delete(transport.sessionId);
      completions.forgetSession(transport.sessionId);
    };
    await mcpServer(() => transport.sessionId).connect(transport);
    await transport.handleRequest(req, res, body);
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
      for (const transport of sessions.values()) await transport.close();
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
  });
  process.once('SIGINT', () => void running.close().then(() => process.exit(0)));
  process.stdout.write(`MCP endpoint ${running.url}/mcp, OAuth callback ${running.url}/oauth/callback\n`);
}
