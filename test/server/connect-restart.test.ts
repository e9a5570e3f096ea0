import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectService, connectHandler, type ConnectCompletion } from '../../src/server/connect.js';
import { PostgresConnectFlowStore, PostgresSecretVault } from '../../src/server/postgres-store.js';
import { SqliteConnectFlowStore } from '../../src/server/sqlite-store.js';
import { EncryptedFileVault } from '../../src/server/vault.js';
import { tempDir } from '../ledger/support.js';
import { createSessionCookie } from '../../src/server/session-cookie.js';
import { freshDatabase, postgresUrl } from '../ledger/postgres-support.js';
import { TestBrowser } from './helpers/browser.js';
import { signInAtProvider, startTestProvider, type TestProvider } from './helpers/provider.js';

// Several instances of one server behind one address, sharing one PostgreSQL database: the connect
// URL is issued by instance A, the server restarts, the connect page is served by B, it restarts
// again, and the provider's callback lands on C. One binding, to the subject the flow was issued
// for; the database holds the vault's ciphertext and never a token in the clear.

const CLIENT_ID = 'restart-client';
const CLIENT_SECRET = 'restart-client-secret-not-real-0123456789';
const PROVIDER = 'testhub';

function pgDump(): string | null {
  for (const dir of existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql').sort().reverse() : []) {
    const bin = `/usr/lib/postgresql/${dir}/bin/pg_dump`;
    if (existsSync(bin)) return bin;
  }
  return null;
}

describe.skipIf(postgresUrl === null)('the server companion across restarts, on PostgreSQL', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let provider: TestProvider;
  let app: Server;
  let origin: string;
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => void res.writeHead(503).end();
  const sessionSecret = randomBytes(32);
  const vaultKey = randomBytes(32);

  beforeAll(async () => {
    database = await freshDatabase();
    app = createServer((req, res) => handler(req, res));
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
    provider = await startTestProvider({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      redirectUris: [`${origin}/oauth/callback`],
      accountId: 'nobody',
      resourceScope: 'repo',
    });
  });
  afterAll(async () => {
    app?.closeAllConnections();
    await new Promise<void>((resolve) => (app ? app.close(() => resolve()) : resolve()));
    await provider?.close();
    await database?.drop();
  });

  /** One server instance: its own pools, its own service; the same database, key and session secret. */
  async function instance(completions: ConnectCompletion[]) {
    const store = await PostgresConnectFlowStore.connect(database.url);
    const vault = await PostgresSecretVault.connect(database.url, vaultKey);
    const cookie = createSessionCookie({ secret: sessionSecret, secure: false });
    const service = new ConnectService({
      baseUrl: origin,
      vault,
      store,
      provider: {
        name: PROVIDER,
        issuer: provider.issuer,
        clientId: CLIENT_ID,
        clientSecret: CLIENT_SECRET,
        redirectUri: `${origin}/oauth/callback`,
        scope: 'openid',
      },
      allowInsecureRequests: true,
      onComplete: (c) => void completions.push(c),
    });
    handler = connectHandler(service, { authenticate: (req) => cookie.authenticate(req) });
    return {
      service,
      vault,
      cookie,
      stop: async () => {
        await store.close();
        await vault.close();
      },
    };
  }

  it('issues on A, serves the connect page on B and the callback on C: one binding to the right subject, no plaintext in a database dump', async () => {
    const completions: ConnectCompletion[] = [];
    const a = await instance(completions);
    const params = await a.service.issueUrlElicitation({ subject: 'mcp|alice', purpose: 'Connect TestHub', session: 'session-a' });
    const browser = new TestBrowser();
    const [pair = ''] = a.cookie.issue('mcp|alice').split(';');
    browser.setCookie(origin, pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
    signInAtProvider(browser, provider, 'alice-at-testhub');
    await a.stop();

    const b = await instance(completions);
    const walk = await browser.follow(params.url, (next) => next.origin === origin && next.pathname === '/oauth/callback');
    expect(walk.stoppedAt, `the connect page on B sent the browser to the provider (${walk.response.status})`).not.toBeNull();
    await b.stop();

    const c = await instance(completions);
    const done = await browser.get(walk.stoppedAt!);
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('Connected');
    const stored = await c.vault.get('mcp|alice', PROVIDER);
    expect(stored?.providerSubject).toBe('alice-at-testhub');
    expect(await c.vault.get('mcp|bob', PROVIDER)).toBeNull();
    expect(completions).toEqual([{ elicitationId: params.elicitationId, subject: 'mcp|alice', session: 'session-a', provider: PROVIDER }]);
    expect(c.service.metrics()).toMatchObject({ tokensBound: 1, crossSubjectBindings: 0, bindingsByOtherBrowser: 0 });

    // The same callback on yet another instance: the state is spent in the shared store.
    await c.stop();
    const d = await instance(completions);
    expect((await browser.get(walk.stoppedAt!)).status).toBe(400);
    expect(completions).toHaveLength(1);

    const dump = pgDump();
    expect(dump, 'pg_dump from the PostgreSQL binaries').not.toBeNull();
    const { stdout } = await promisify(execFile)(dump!, ['--dbname', database.url, '--data-only', '--schema', 'mcp_elicitation_guard'], {
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(stdout).toMatch(/COPY mcp_elicitation_guard\.vault_secrets/);
    expect(stdout).toContain('mcp|alice');
    for (const secret of [stored!.accessToken, stored!.refreshToken].filter((t): t is string => typeof t === 'string')) {
      expect(stdout.includes(secret)).toBe(false);
      expect(stdout.includes(Buffer.from(secret).toString('hex'))).toBe(false);
      expect(stdout.includes(Buffer.from(secret).toString('base64'))).toBe(false);
    }
    await d.stop();
  }, 60_000);
});

describe('the server companion across a restart, on SQLite', () => {
  it("issues the connect URL, restarts, and finishes the callback on the new process's store: one binding", async () => {
    const tmp = tempDir('mcp-eg-connect-restart-');
    let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => void res.writeHead(503).end();
    const app = createServer((req, res) => handler(req, res));
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
    const provider = await startTestProvider({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      redirectUris: [`${origin}/oauth/callback`],
      accountId: 'alice-at-testhub',
      resourceScope: 'repo',
    });
    const secret = randomBytes(32);
    const key = randomBytes(32);
    const completions: ConnectCompletion[] = [];
    const start = async () => {
      const store = await SqliteConnectFlowStore.open(`${tmp.dir}/connect.sqlite`);
      const vault = new EncryptedFileVault(`${tmp.dir}/vault.json`, key);
      const cookie = createSessionCookie({ secret, secure: false });
      const service = new ConnectService({
        baseUrl: origin,
        vault,
        store,
        provider: {
          name: PROVIDER,
          issuer: provider.issuer,
          clientId: CLIENT_ID,
          clientSecret: CLIENT_SECRET,
          redirectUri: `${origin}/oauth/callback`,
          scope: 'openid',
        },
        allowInsecureRequests: true,
        onComplete: (c) => void completions.push(c),
      });
      handler = connectHandler(service, { authenticate: (req) => cookie.authenticate(req) });
      return { service, vault, cookie, store };
    };
    try {
      const first = await start();
      const params = await first.service.issueUrlElicitation({ subject: 'mcp|alice', purpose: 'Connect TestHub' });
      const browser = new TestBrowser();
      const [pair = ''] = first.cookie.issue('mcp|alice').split(';');
      browser.setCookie(origin, pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
      const walk = await browser.follow(params.url, (next) => next.origin === origin && next.pathname === '/oauth/callback');
      expect(walk.stoppedAt).not.toBeNull();
      first.store.close();

      const second = await start();
      const done = await browser.get(walk.stoppedAt!);
      expect(done.status).toBe(200);
      await done.arrayBuffer();
      expect((await second.vault.get('mcp|alice', PROVIDER))?.providerSubject).toBe('alice-at-testhub');
      expect(completions.map((c) => c.elicitationId)).toEqual([params.elicitationId]);
      expect(second.service.metrics()).toMatchObject({ tokensBound: 1, crossSubjectBindings: 0, bindingsByOtherBrowser: 0 });
      second.store.close();
    } finally {
      app.closeAllConnections();
      await new Promise<void>((resolve) => app.close(() => resolve()));
      await provider.close();
      tmp.remove();
    }
  }, 60_000);
});
