import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitationCompleteNotificationSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { startExample, type RunningExample } from '../../examples/oauth-server/app.js';
import { guardTransport } from '../../src/adapters/sdk/transport.js';
import type { GuardEvent } from '../../src/core/events.js';
import { createGuard, type Guard } from '../../src/core/guard.js';
import { MemoryLedger } from '../../src/ledger/memory.js';
import { MemorySecretVault } from '../../src/server/vault.js';
import { TestBrowser } from './helpers/browser.js';
import { startTestProvider, type TestProvider } from './helpers/provider.js';

const USERS: Record<string, { password: string; token: string }> = {
  alice: { password: 'alice-demo-password', token: 'mcp-demo-token-alice' },
  bob: { password: 'bob-demo-password', token: 'mcp-demo-token-bob' },
};

let provider: TestProvider;
let example: RunningExample;
const vault = new MemorySecretVault();

async function connectClient(user: string): Promise<{ client: Client; completions: string[] }> {
  const client = new Client({ name: 'example-test-host', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
  const completions: string[] = [];
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => {
    completions.push(n.params.elicitationId);
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${example.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${USERS[user]!.token}` } },
    }),
  );
  return { client, completions };
}

/** A host with the client guard around its transport: the full path the issue describes. */
async function connectGuardedClient(user: string, guard: Guard): Promise<{ client: Client; completions: string[] }> {
  const client = new Client({ name: 'guarded-host', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
  const completions: string[] = [];
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => {
    completions.push(n.params.elicitationId);
  });
  const transport = new StreamableHTTPClientTransport(new URL(`${example.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${USERS[user]!.token}` } },
  });
  await client.connect(guardTransport(transport, guard));
  return { client, completions };
}

async function signIn(browser: TestBrowser, user: string): Promise<void> {
  const response = await fetch(`${example.url}/login`, {
    method: 'POST',
    redirect: 'manual',
    body: new URLSearchParams({ username: user, password: USERS[user]!.password, returnTo: '/' }),
  });
  expect(response.status).toBe(303);
  const [pair = ''] = (response.headers.get('set-cookie') ?? '').split(';');
  const at = pair.indexOf('=');
  browser.setCookie(example.url, pair.slice(0, at), pair.slice(at + 1));
}

async function urlRequired(client: Client): Promise<{ elicitationId: string; url: string }> {
  const error = await client.callTool({ name: 'connect_provider', arguments: {} }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpError);
  expect((error as McpError).code).toBe(ErrorCode.UrlElicitationRequired);
  const [entry] = ((error as McpError).data as { elicitations: { elicitationId: string; url: string }[] }).elicitations;
  return entry!;
}

beforeAll(async () => {
  // The provider needs the callback URL before the example knows its port: reserve one first.
  const probe = await startExample({
    port: 0,
    host: '127.0.0.1',
    provider: { issuer: 'http://127.0.0.1:1', clientId: 'x', scope: 'openid' },
    vault,
    verifyMcpToken: () => null,
    verifyLogin: () => null,
    sessionSecret: randomBytes(32),
    allowInsecureRequests: true,
  });
  const port = Number(new URL(probe.url).port);
  await probe.close();
  provider = await startTestProvider({
    clientId: 'example-client',
    clientSecret: 'example-client-secret-not-real-0123',
    redirectUris: [`http://127.0.0.1:${port}/oauth/callback`],
    accountId: 'provider-octocat',
    resourceScope: 'repo',
  });
  example = await startExample({
    port,
    host: '127.0.0.1',
    provider: {
      name: 'testhub',
      issuer: provider.issuer,
      clientId: 'example-client',
      clientSecret: 'example-client-secret-not-real-0123',
      scope: 'openid',
    },
    vault,
    verifyMcpToken: (token) => Object.entries(USERS).find(([, u]) => u.token === token)?.[0] ?? null,
    verifyLogin: (username, password) => (USERS[username]?.password === password ? username : null),
    sessionSecret: randomBytes(32),
    allowInsecureRequests: true,
  });
});

afterAll(async () => {
  await example?.close();
  await provider?.close();
});

describe('examples/oauth-server', () => {
  it('asks for a connection with -32042, binds it to the MCP user, notifies only that session, and uses the token server-side', async () => {
    const alice = await connectClient('alice');
    const bob = await connectClient('bob');
    const required = await urlRequired(alice.client);
    expect(new URL(required.url).pathname).toMatch(/^\/connect\//);

    // Bob is sent Alice's link and opens it while signed in as himself: refused, nothing bound.
    const bobBrowser = new TestBrowser();
    await signIn(bobBrowser, 'bob');
    const forwarded = await bobBrowser.get(required.url);
    expect(forwarded.status).toBe(403);
    await forwarded.arrayBuffer();
    expect(await vault.get('bob', 'testhub')).toBeNull();
    expect(await vault.get('alice', 'testhub')).toBeNull();

    // Alice without a session is sent to log in first, then walks the provider's flow.
    const browser = new TestBrowser();
    const first = await browser.get(required.url);
    expect(first.status).toBe(302);
    expect(first.headers.get('location')).toMatch(/^\/login\?returnTo=/);
    await signIn(browser, 'alice');
    const walk = await browser.follow(required.url);
    expect(walk.response.status).toBe(200);
    expect(await walk.response.text()).toContain('Connected');

    await expect.poll(() => alice.completions).toEqual([required.elicitationId]);
    expect(bob.completions).toEqual([]);
    const stored = await vault.get('alice', 'testhub');
    expect(stored).not.toBeNull();

    const result = await alice.client.callTool({ name: 'connect_provider', arguments: {} });
    const text = JSON.stringify(result);
    expect(text).toContain('Connected to testhub as provider-octocat');
    expect(text).not.toContain(stored!.accessToken);

    // Bob still has no connection of his own.
    await urlRequired(bob.client);
    await alice.client.close();
    await bob.client.close();
  });

  it('runs end to end through the client guard: consent, the connect page, the provider, the vault, the notice, the retry accepted once', async () => {
    const events: GuardEvent[] = [];
    // The example runs on http://127.0.0.1, which only the development profile lets through.
    const guard = createGuard({
      policy: { profile: 'development' },
      ledger: new MemoryLedger(),
      subject: 'bob',
      onEvent: (e) => events.push(e),
    });
    const host = await connectGuardedClient('bob', guard);
    const required = await urlRequired(host.client);
    expect(guard.flow(required.elicitationId)).toMatchObject({ state: 'USER_REVIEW', lineage: 'error-retry' });

    // The host asks the user, records the consent, and the guard opens the link in "the browser".
    const browser = new TestBrowser();
    await signIn(browser, 'bob');
    const ticket = await guard.recordConsent(required.elicitationId, 'accept');
    let page = '';
    await guard.openUrl(ticket!, async (url) => {
      const walk = await browser.follow(url);
      page = await walk.response.text();
    });
    expect(page).toContain('Connected');
    await expect.poll(() => guard.flow(required.elicitationId)?.state).toBe('ERROR_RETRY_ELIGIBLE');
    expect(host.completions).toEqual([required.elicitationId]);

    const result = await host.client.callTool({ name: 'connect_provider', arguments: {} });
    expect(JSON.stringify(result)).toContain('Connected to testhub as provider-octocat');
    expect(guard.flow(required.elicitationId)?.state).toBe('RETRY_RESPONSE_ACCEPTED');
    expect(events.filter((e) => e.type === 'receipt.business')).toHaveLength(1);
    const stored = await vault.get('bob', 'testhub');
    expect(JSON.stringify(events)).not.toContain(stored!.accessToken);
    await host.client.close();
  });

  it("never sends the client's MCP bearer to the third-party provider", () => {
    const seen = provider.requests();
    expect(seen.length).toBeGreaterThan(0);
    for (const { token } of Object.values(USERS)) expect(seen.filter((line) => line.includes(token))).toEqual([]);
  });

  it('refuses MCP requests without a verified bearer token', async () => {
    const response = await fetch(`${example.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(response.status).toBe(401);
    await response.arrayBuffer();
  });
});
