/**
 * A small MCP server that needs a third-party OAuth token for one tool, and gets it the safe way:
 * a URL-mode elicitation (`-32042`) bound to the verified MCP user, a server-owned connect page
 * that checks the browser's own session is that same user, the OAuth code flow run server-side,
 * tokens kept in an encrypted vault, and a completion notice sent only to the session that asked.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import * as oauth from 'oauth4webapi';
import { createCompletionRegistry, urlElicitationRequired } from '../../src/server/completion.js';
import { ConnectService, connectHandler, type ConnectProviderConfig } from '../../src/server/connect.js';
import type { ConnectAudit } from '../../src/server/connect-audit.js';
import { createSessionCookie } from '../../src/server/session-cookie.js';
import type { SecretVault } from '../../src/server/vault-types.js';

export interface ExampleConfig {
  /** Where this server listens; `0` picks a free port. */
  readonly port: number;
  readonly host: string;
  /** The public base URL; when omitted, `http://<host>:<port>` (development only). */
  readonly baseUrl?: string;
  readonly provider: Omit<ConnectProviderConfig, 'redirectUri'>;
  readonly vault: SecretVault;
  /** Verifies an MCP bearer token and returns its subject (`sub`); `null` for an invalid token. */
  readonly verifyMcpToken: (token: string) => Promise<string | null> | string | null;
  /** Checks a browser login (username, password) and returns the subject; `null` when wrong. */
  readonly verifyLogin: (username: string, password: string) => Promise<string | null> | string | null;
  readonly sessionSecret: Uint8Array;
  readonly audit?: ConnectAudit;
  readonly allowInsecureRequests?: boolean;
}

export interface RunningExample {
  readonly url: string;
  close(): Promise<void>;
}

/** Starts the example server. */
export async function startExample(config: ExampleConfig): Promise<RunningExample> {
  const http: HttpServer = createServer();
  await new Promise<void>((resolve) => http.listen(config.port, config.host, resolve));
  const baseUrl = config.baseUrl ?? `http://${config.host}:${(http.address() as AddressInfo).port}`;
  const insecure = config.allowInsecureRequests === true;

  const completions = createCompletionRegistry();
  const cookie = createSessionCookie({ secret: config.sessionSecret, secure: !insecure });
  const connect = new ConnectService({
    baseUrl,
    vault: config.vault,
    provider: { ...config.provider, redirectUri: `${baseUrl}/oauth/callback` },
    allowInsecureRequests: insecure,
    ...(config.audit === undefined ? {} : { audit: config.audit }),
    // The browser user was checked against the flow's subject before this runs; the registry checks
    // it again and sends the notice only to the MCP session that started the elicitation.
    onComplete: async ({ elicitationId, subject }) => {
      await completions.completeUrlElicitation(elicitationId, { subject });
    },
  });
  const pages = connectHandler(connect, {
    authenticate: (req) => cookie.authenticate(req),
    login: (returnTo) => `/login?returnTo=${encodeURIComponent(returnTo)}`,
    next: (req, res) => void handleOther(req, res).catch(() => plain(res, 500, 'internal error')),
  });
  const sessions = new Map<string, StreamableHTTPServerTransport>();

  function mcpServerFor(sessionId: () => string | undefined): McpServer {
    const server = new McpServer({ name: 'oauth-connect-example', version: '1.0.0' });
    server.registerTool(
      'connect_provider',
      { description: `Shows which ${connect.providerName} account is connected, connecting one first if needed.` },
      async (extra) => {
        const subject = subjectOf(extra.authInfo);
        if (subject === null) throw new Error('this tool needs an authenticated MCP user');
        const secret = await config.vault.get(subject, connect.providerName);
        if (secret === null) {
          const id = sessionId();
          if (id === undefined) throw new Error('this tool needs a Streamable HTTP session');
          const params = await connect.issueUrlElicitation({
            subject,
            session: id,
            purpose: `Connect your ${connect.providerName} account so this server can act for you.`,
          });
          completions.register({
            elicitationId: params.elicitationId,
            sessionId: id,
            subject,
            notify: server.server.createElicitationCompletionNotifier(params.elicitationId),
          });
          throw urlElicitationRequired([params], { allowHttpLoopback: insecure });
        }
        // The token is used here, server-side, and never returned to the client.
        const account = await providerAccount(secret.accessToken);
        return { content: [{ type: 'text', text: `Connected to ${connect.providerName} as ${account}.` }] };
      },
    );
    return server;
  }

  async function providerAccount(accessToken: string): Promise<string> {
    const issuer = new URL(config.provider.issuer);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { [oauth.allowInsecureRequests]: insecure }),
    );
    const client = { client_id: config.provider.clientId };
    const response = await oauth.userInfoRequest(as, client, accessToken, { [oauth.allowInsecureRequests]: insecure });
    const info = await oauth.processUserInfoResponse(as, client, oauth.skipSubjectCheck, response);
    return info.sub;
  }

  async function handleMcp(req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse): Promise<void> {
    const header = req.headers.authorization ?? '';
    const token = /^Bearer ([\x21-\x7e]+)$/i.exec(header)?.[1];
    const subject = token === undefined ? null : await config.verifyMcpToken(token);
    if (token === undefined || subject === null) {
      res.writeHead(401, { 'www-authenticate': 'Bearer', 'content-type': 'text/plain' }).end('a valid MCP access token is required');
      return;
    }
    req.auth = { token, clientId: 'mcp-client', scopes: [], extra: { sub: subject } };
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    const sessionHeader = req.headers['mcp-session-id'];
    const existing = typeof sessionHeader === 'string' ? sessions.get(sessionHeader) : undefined;
    if (existing !== undefined) {
      await existing.handleRequest(req, res, body);
      return;
    }
    if (req.method !== 'POST' || !isInitializeRequest(body)) {
      plain(res, 400, 'no such MCP session');
      return;
    }
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) {
        sessions.delete(transport.sessionId);
        completions.forgetSession(transport.sessionId);
      }
    };
    await mcpServerFor(() => transport.sessionId).connect(transport);
    await transport.handleRequest(req, res, body);
  }

  async function handleOther(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', baseUrl);
    if (url.pathname === '/mcp') return handleMcp(req, res);
    if (url.pathname === '/login' && req.method === 'GET') {
      html(
        res,
        200,
        `<!doctype html><meta charset="utf-8"><title>Sign in</title><form method="post"><input type="hidden" name="returnTo" ` +
          `value="${escapeAttr(url.searchParams.get('returnTo') ?? '/')}"><label>User <input name="username"></label> ` +
          `<label>Password <input name="password" type="password"></label> <button>Sign in</button></form>`,
      );
      return;
    }
    if (url.pathname === '/login' && req.method === 'POST') {
      const form = new URLSearchParams(await readText(req));
      const subject = await config.verifyLogin(form.get('username') ?? '', form.get('password') ?? '');
      if (subject === null) return plain(res, 401, 'wrong user name or password');
      // Only same-site paths: the login must not become an open redirect.
      const returnTo = form.get('returnTo') ?? '/';
      const target = returnTo.startsWith('/') && !returnTo.startsWith('//') ? returnTo : '/';
      res.writeHead(303, { location: target, 'set-cookie': cookie.issue(subject), 'cache-control': 'no-store' }).end();
      return;
    }
    plain(res, 404, 'not found');
  }

  http.on('request', pages);
  return {
    url: baseUrl,
    close: async () => {
      for (const transport of sessions.values()) await transport.close();
      await new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      });
    },
  };
}

/** The verified subject the token verifier put on the request; nothing the client says about itself. */
function subjectOf(auth: AuthInfo | undefined): string | null {
  const sub = auth?.extra?.['sub'];
  return typeof sub === 'string' && sub !== '' ? sub : null;
}

const MAX_BODY = 1 << 20;

async function readText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new Error('request body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const text = await readText(req);
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

function escapeAttr(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }).end(text);
}

function html(res: ServerResponse, status: number, body: string): void {
  res
    .writeHead(status, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': "default-src 'none'; form-action 'self'",
    })
    .end(body);
}
