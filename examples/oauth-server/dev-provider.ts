/**
 * A local OpenID provider for trying the example without a real one: oidc-provider (a dev
 * dependency) with its built-in development login and consent pages (any user name and password).
 * `node --import tsx examples/oauth-server/dev-provider.ts` → http://127.0.0.1:4000
 */
import Provider from 'oidc-provider';

const port = Number(process.env['DEV_PROVIDER_PORT'] ?? 4000);
const callback = process.env['CALLBACK_URL'] ?? 'http://127.0.0.1:3000/oauth/callback';
const provider = new Provider(`http://127.0.0.1:${port}`, {
  clients: [
    {
      client_id: 'example-client',
      client_secret: process.env['PROVIDER_CLIENT_SECRET'] ?? 'example-client-secret-for-local-dev',
      redirect_uris: [callback],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    },
  ],
  pkce: { required: () => true },
  findAccount: async (_ctx: unknown, id: string) => ({ accountId: id, claims: async () => ({ sub: id }) }),
});
const { createServer } = await import('node:http');
createServer(provider.callback()).listen(port, '127.0.0.1', () => {
  process.stdout.write(`dev provider: http://127.0.0.1:${port} (client example-client, redirect ${callback})\n`);
});
