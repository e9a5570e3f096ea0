import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitationCompleteNotificationSchema, ErrorCode, type McpError } from '@modelcontextprotocol/sdk/types.js';
import { startServer } from '../../examples/readme-server/server.js';
import { guardTransport } from '../../src/adapters/sdk/transport.js';
import { createGuard } from '../../src/core/guard.js';
import { MemoryLedger } from '../../src/ledger/memory.js';
import { MemorySecretVault } from '../../src/server/vault.js';
import { TestBrowser } from './helpers/browser.js';
import { expectLoopbackOnlyProgram } from './helpers/example-program.js';
import { startTestProvider, type TestProvider } from './helpers/provider.js';

// The README's server section is examples/readme-server/server.ts, verbatim; this file checks the
// copy, runs the server end to end through the client guard, and runs it as a program.

const EXAMPLE = new URL('../../examples/readme-server/server.ts', import.meta.url);
const CLIENT_SECRET = 'readme-client-secret-not-real-0123456789';
const BEARERS: Record<string, string> = { 'readme-bearer-alice': 'alice' };

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

let provider: TestProvider;
let port: number;

beforeAll(async () => {
  port = await freePort();
  provider = await startTestProvider({
    clientId: 'readme-client',
    clientSecret: CLIENT_SECRET,
    redirectUris: [`http://127.0.0.1:${port}/oauth/callback`],
    accountId: 'alice-at-acme',
    resourceScope: 'files',
  });
});

afterAll(async () => {
  await provider?.close();
});

describe('the README server section', () => {
  it('is a verbatim copy of examples/readme-server/server.ts', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const source = readFileSync(EXAMPLE, 'utf8');
    const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
    expect(blocks).toContain(source);
  });

  it('runs end to end through the client guard: -32042, sign-in, provider, vault, completion notice, the retry accepted once', async () => {
    const vault = new MemorySecretVault();
    const server = await startServer({
      port,
      provider: { issuer: provider.issuer, clientId: 'readme-client', clientSecret: CLIENT_SECRET },
      vault,
      verifyBearer: (token) => BEARERS[token] ?? null,
      verifyLogin: (username, password) => (username === 'alice' && password === 'alice-password' ? 'alice' : null),
      sessionSecret: randomBytes(32),
    });
    try {
      const guard = createGuard({ policy: { profile: 'development' }, ledger: new MemoryLedger(), subject: 'alice' });
      const client = new Client({ name: 'readme-host', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
      const notices: string[] = [];
      client.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => void notices.push(n.params.elicitationId));
      await client.connect(
        guardTransport(
          new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
            requestInit: { headers: { authorization: 'Bearer readme-bearer-alice' } },
          }),
          guard,
        ),
      );

      const error = await client.callTool({ name: 'list_acme_files', arguments: {} }).then(
        () => null,
        (e: unknown) => e,
      );
      expect((error as McpError).code).toBe(ErrorCode.UrlElicitationRequired);
      const [entry] = ((error as McpError).data as { elicitations: { elicitationId: string; url: string }[] }).elicitations;

      // The browser: no session yet, so the connect page sends it to sign in; then the provider.
      const browser = new TestBrowser();
      const first = await browser.get(entry!.url);
      expect(first.status).toBe(302);
      const login = new URL(first.headers.get('location')!, server.url);
      expect(login.pathname).toBe('/login');
      const signedIn = await browser.get(`${server.url}/login`);
      expect(signedIn.status).toBe(200);
      await signedIn.arrayBuffer();
      const posted = await fetch(`${server.url}/login`, {
        method: 'POST',
        redirect: 'manual',
        body: new URLSearchParams({ username: 'alice', password: 'alice-password', returnTo: login.searchParams.get('returnTo')! }),
      });
      expect(posted.status).toBe(303);
      const [pair = ''] = (posted.headers.get('set-cookie') ?? '').split(';');
      browser.setCookie(server.url, pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));

      const ticket = await guard.recordConsent(entry!.elicitationId, 'accept');
      let page = '';
      await guard.openUrl(ticket!, async (url) => {
        const walk = await browser.follow(url);
        page = await walk.response.text();
      });
      expect(page).toContain('Connected');
      await expect.poll(() => notices).toEqual([entry!.elicitationId]);
      expect((await vault.get('alice', 'acme'))?.providerSubject).toBe('alice-at-acme');

      const result = await client.callTool({ name: 'list_acme_files', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'Acme is connected for alice.' }]);
      expect(guard.flow(entry!.elicitationId)?.state).toBe('RETRY_RESPONSE_ACCEPTED');
      expect(JSON.stringify(result)).not.toContain((await vault.get('alice', 'acme'))!.accessToken);
      await client.close();
    } finally {
      await server.close();
    }
  });

  it('runs as a program, and refuses plain http on a host that is not loopback', async () => {
    await expectLoopbackOnlyProgram(EXAMPLE, {
      PROVIDER_ISSUER: provider.issuer,
      PROVIDER_CLIENT_ID: 'readme-client',
      PROVIDER_CLIENT_SECRET: CLIENT_SECRET,
    });
  }, 60_000);
});
