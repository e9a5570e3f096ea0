import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/** How the test's OAuth provider is set up and how it misbehaves, when a test wants it to. */
export interface TestProviderOptions {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly redirectUris: readonly string[];
  /**
   * The third-party account a login signs in as, unless the browser carries a `test_account`
   * cookie for the provider's origin (see `signInAtProvider`): two people, two provider accounts.
   */
  readonly accountId: string;
  /** The resource scope granted for resource indicators. */
  readonly resourceScope: string;
}

export interface TestProvider {
  readonly issuer: string;
  /** When set, JWT access tokens are issued for this audience whatever resource was asked for. */
  misdirectAudience: string | null;
  /** How many codes the token endpoint has redeemed successfully. */
  readonly grants: () => number;
  /** Every request the provider received: method, URL and headers (to prove what never reached it). */
  readonly requests: () => readonly string[];
  close(): Promise<void>;
}

/**
 * A real oidc-provider on 127.0.0.1 and a free port. Its interactions (login and consent) finish
 * programmatically when the browser reaches them, so a cookie-carrying fetch can walk the flow.
 */
export async function startTestProvider(options: TestProviderOptions): Promise<TestProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const state = { misdirectAudience: null as string | null, grants: 0 };

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: options.clientId,
        client_secret: options.clientSecret,
        redirect_uris: [...options.redirectUris],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    pkce: { required: () => true },
    cookies: { keys: ['test-provider-cookie-key-0123456789'] },
    findAccount: async (_ctx: unknown, id: string) => ({ accountId: id, claims: async () => ({ sub: id }) }),
    issueRefreshToken: async () => true,
    renderError: async (ctx: { type: string; body: string }, out: { error: string }) => {
      ctx.type = 'text/plain';
      ctx.body = `error: ${out.error}`;
    },
    ttl: { Grant: 3600, AccessToken: 600, RefreshToken: 86400, IdToken: 600, Session: 3600, Interaction: 600, AuthorizationCode: 60 },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    features: {
      devInteractions: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => undefined,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx: unknown, resource: string) => ({
          scope: options.resourceScope,
          audience: state.misdirectAudience ?? resource,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
  });
  provider.on('grant.success', () => {
    state.grants += 1;
  });
  // The provider logs server errors through its own events; the suite keeps them out of the output.
  provider.on('server_error', () => undefined);

  const callback = provider.callback();
  const requests: string[] = [];
  server.on('request', (req, res) => {
    requests.push(`${req.method} ${req.url} ${JSON.stringify(req.headers)}`);
    if (req.method === 'GET' && req.url?.startsWith('/interaction/')) {
      void finishInteraction(provider, options, req, res).catch(() => {
        res.statusCode = 500;
        res.end('interaction failed');
      });
      return;
    }
    callback(req, res);
  });

  return {
    issuer,
    get misdirectAudience() {
      return state.misdirectAudience;
    },
    set misdirectAudience(value: string | null) {
      state.misdirectAudience = value;
    },
    grants: () => state.grants,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function finishInteraction(
  provider: Provider,
  options: TestProviderOptions,
  req: import('node:http').IncomingMessage,
  res: import('node:http').ServerResponse,
): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  if (details.prompt.name === 'login') {
    const chosen = /(?:^|;\s*)test_account=([A-Za-z0-9._@-]{1,64})(?:;|$)/.exec(req.headers.cookie ?? '')?.[1];
    await provider.interactionFinished(req, res, { login: { accountId: chosen ?? options.accountId } }, { mergeWithLastSubmission: false });
    return;
  }
  const grant = new provider.Grant({ accountId: details.session?.accountId ?? options.accountId, clientId: options.clientId });
  for (const scope of String(details.params['scope'] ?? '').split(' ')) {
    if (scope === 'openid' || scope === 'offline_access') grant.addOIDCScope(scope);
  }
  const resource = details.params['resource'];
  if (typeof resource === 'string') grant.addResourceScope(resource, options.resourceScope);
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

/** Makes `browser` log in at the provider as `accountId` (its own cookie jar, its own provider session). */
export function signInAtProvider(
  browser: { setCookie(origin: string, name: string, value: string): void },
  provider: TestProvider,
  accountId: string,
): void {
  browser.setCookie(provider.issuer, 'test_account', accountId);
}
