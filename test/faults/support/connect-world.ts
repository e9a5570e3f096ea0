/**
 * The server companion end to end: a real oidc-provider and the connect pages on loopback, a
 * `ConnectService` with a vault and a completion registry, and MCP servers (one per session, each
 * for a verified subject) whose `connect` tool answers -32042 with a connect link until the
 * subject's token is in the vault. The host side is a real SDK client through a guard.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { collectInvariants, type Invariants } from './invariants.js';
import type { Host } from './sdk.js';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createCompletionRegistry, urlElicitationRequired, type CompletionRegistry } from '../../../src/server/completion.js';
import type { ConnectEvent } from '../../../src/server/connect-audit.js';
import type { ConnectFlowStore } from '../../../src/server/connect-store.js';
import { ConnectService, connectHandler, type UrlElicitationParams } from '../../../src/server/connect.js';
import { createSessionCookie, type SessionCookie } from '../../../src/server/session-cookie.js';
import { MemorySecretVault } from '../../../src/server/vault.js';
import type { StoredSecret } from '../../../src/server/vault-types.js';
import { TestBrowser } from '../../server/helpers/browser.js';
import { signInAtProvider, startTestProvider, type TestProvider } from '../../server/helpers/provider.js';

export const PROVIDER = 'testhub';
const CLIENT_ID = 'fault-suite-client';
const CLIENT_SECRET = 'fault-suite-client-secret-not-real-0123';

export interface ConnectWorld {
  readonly appOrigin: string;
  readonly provider: TestProvider;
  readonly vault: MemorySecretVault;
  readonly completions: CompletionRegistry;
  readonly events: ConnectEvent[];
  /** The service currently serving the connect pages (see `useService`). */
  service: ConnectService;
  /** Replaces the service (e.g. with a tampering flow store); returns it. */
  useService(options?: { store?: ConnectFlowStore; providerSubjectFor?: (subject: string) => string | null }): ConnectService;
  /** Every service made, for the invariant collector. */
  readonly services: ConnectService[];
  /**
   * A browser signed in to the server as `subject` (or not signed in), with its own cookie jar. Its
   * provider login is the account `accountOf(subject)` (see `knowAccount`), else the provider's default.
   */
  browserFor(subject: string | null, providerAccount?: string): TestBrowser;
  /** Records which provider account belongs to an MCP subject (the world's directory; the service is not told). */
  knowAccount(subject: string, providerAccount: string): void;
  /** Tokens the vault received for a subject whose known provider account is another (must stay 0). */
  crossAccountBindings(): number;
  /** Signs an existing browser in as someone else (a shared computer). */
  signIn(browser: TestBrowser, subject: string): void;
  /** Sets up an MCP server's `connect` tool for `subject`; `relay` makes it hand out someone else's link instead. */
  mcpServer(subject: string, session: string, relay?: () => UrlElicitationParams): (server: Server) => void;
  /** Walks a connect link in `browser` up to (not into) the OAuth callback; returns the callback URL. */
  toCallback(browser: TestBrowser, connectUrl: string): Promise<string>;
  close(): Promise<void>;
}

export async function startConnectWorld(): Promise<ConnectWorld> {
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end();
  const app: HttpServer = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  const appOrigin = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
  const provider = await startTestProvider({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    redirectUris: [`${appOrigin}/oauth/callback`],
    accountId: 'provider-user-7',
    resourceScope: 'repo',
  });
  const cookie: SessionCookie = createSessionCookie({ secret: randomBytes(32), secure: false });
  const directory = new Map<string, string>();
  let crossAccount = 0;
  // The vault as the world sees it: every stored token is checked against the directory, outside
  // the service, so the gate counts a binding to the wrong provider account whatever the service thinks.
  const vault = new (class extends MemorySecretVault {
    override async put(subject: string, provider: string, secret: StoredSecret): Promise<void> {
      const known = directory.get(subject);
      if (known !== undefined && secret.providerSubject !== known) crossAccount += 1;
      return super.put(subject, provider, secret);
    }
  })();
  const completions = createCompletionRegistry();
  const events: ConnectEvent[] = [];
  const services: ConnectService[] = [];

  const world: ConnectWorld = {
    appOrigin,
    provider,
    vault,
    completions,
    events,
    services,
    service: null as unknown as ConnectService,
    useService(options = {}) {
      const service = new ConnectService({
        baseUrl: appOrigin,
        vault,
        provider: {
          name: PROVIDER,
          issuer: provider.issuer,
          clientId: CLIENT_ID,
          clientSecret: CLIENT_SECRET,
          redirectUri: `${appOrigin}/oauth/callback`,
          scope: 'openid repo',
          audience: 'https://api.testhub.test',
        },
        audit: { write: (event) => void events.push(event) },
        ...(options.store === undefined ? {} : { store: options.store }),
        ...(options.providerSubjectFor === undefined ? {} : { providerSubjectFor: options.providerSubjectFor }),
        onComplete: async (flow) => {
          await completions.completeUrlElicitation(flow.elicitationId, { subject: flow.subject });
        },
        allowInsecureRequests: true,
      });
      services.push(service);
      world.service = service;
      handler = connectHandler(service, { authenticate: (req) => cookie.authenticate(req) });
      return service;
    },
    browserFor(subject, providerAccount) {
      const browser = new TestBrowser();
      if (subject !== null) world.signIn(browser, subject);
      const account = providerAccount ?? (subject === null ? undefined : directory.get(subject));
      if (account !== undefined) signInAtProvider(browser, provider, account);
      return browser;
    },
    knowAccount(subject, providerAccount) {
      directory.set(subject, providerAccount);
    },
    crossAccountBindings: () => crossAccount,
    signIn(browser, subject) {
      const [pair = ''] = cookie.issue(subject).split(';');
      const at = pair.indexOf('=');
      browser.setCookie(appOrigin, pair.slice(0, at), pair.slice(at + 1));
    },
    mcpServer(subject, session, relay) {
      return (server) =>
        server.setRequestHandler(CallToolRequestSchema, async () => {
          const stored = await vault.get(subject, PROVIDER);
          if (stored !== null) return { content: [{ type: 'text' as const, text: `connected to ${PROVIDER} for ${subject}` }] };
          const params =
            relay?.() ??
            (await world.service.issueUrlElicitation({ subject, purpose: 'Connect your TestHub account', session, target: PROVIDER }));
          if (relay === undefined)
            completions.register({
              elicitationId: params.elicitationId,
              sessionId: session,
              subject,
              notify: server.createElicitationCompletionNotifier(params.elicitationId),
            });
          throw urlElicitationRequired([params], { allowHttpLoopback: true });
        });
    },
    async toCallback(browser, connectUrl) {
      const walk = await browser.follow(connectUrl, (next) => next.origin === appOrigin && next.pathname === '/oauth/callback');
      if (walk.stoppedAt === null) throw new Error(`the walk did not reach the callback (status ${walk.response.status})`);
      return walk.stoppedAt;
    },
    async close() {
      await new Promise<void>((resolve) => {
        app.closeAllConnections();
        app.close(() => resolve());
      });
      await provider.close();
    },
  };
  world.useService();
  return world;
}

/** One GET in `browser`; the status and the page. */
export async function open(browser: TestBrowser, url: string): Promise<{ status: number; body: string }> {
  const response = await browser.get(url);
  return { status: response.status, body: await response.text() };
}

/** What a fault file about the connect flow shares: the running world, its hosts, its invariants. */
export interface ConnectWorldSuite {
  readonly world: ConnectWorld;
  readonly hosts: Host[];
  readonly invariants: Invariants;
}

/**
 * Starts the connect world before the file's tests, closes the hosts after each test, and records
 * the services' invariant counters and closes the world after the file.
 */
export function useConnectWorld(file: string): ConnectWorldSuite {
  const invariants = collectInvariants(file);
  const hosts: Host[] = [];
  let world: ConnectWorld | null = null;
  beforeAll(async () => {
    world = await startConnectWorld();
  });
  afterAll(async () => {
    if (world === null) return;
    for (const service of world.services) invariants.service(service);
    const observed = world;
    invariants.vaultObserver(() => observed.crossAccountBindings());
    await world.close();
  });
  afterEach(async () => {
    for (const host of hosts.splice(0)) await host.close();
  });
  return {
    get world(): ConnectWorld {
      if (world === null) throw new Error('the connect world is not started yet');
      return world;
    },
    hosts,
    invariants,
  };
}
