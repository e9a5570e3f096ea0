/**
 * Seeds a ledger the way a host does: a real SDK client and server, the guard in the client's
 * transport, the guard's own elicitation handler with a scripted user. Leaves four flows:
 * - expired: a -32042 payment page opened, and the time to live ran out (EXPIRED);
 * - completed: a nested "connect" whose server sent the notice and answered (ORIGINAL_RESPONSE_ACCEPTED,
 *   with a business receipt);
 * - pending: a -32042 sign-in page opened, no notice yet (OUT_OF_BAND_PENDING);
 * - hostile: a message carrying markup, declined by the user (DECLINED).
 */
import { CallToolRequestSchema, UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { createElicitationHandler, presentUrlElicitationRequired } from '../../../src/adapters/sdk/handler.js';
import { createGuard, type Guard } from '../../../src/core/guard.js';
import type { Ledger } from '../../../src/ledger/types.js';
import { scriptedUi } from '../../adapters/sdk/harness.js';
import { testDeps } from '../../flow/support.js';
import { connectHost } from '../../faults/support/sdk.js';

export const HOSTILE_MESSAGE = 'Review <script>alert("owned")</script> & <img src=x onerror=alert(1)> now';
export const PENDING_URL =
  'https://accounts.google.com/o/oauth2/v2/auth?client_id=8819.apps.googleusercontent.com&state=af0ifjsldkj&scope=openid';
export const EXPIRED_URL = 'https://checkout.stripe.com/c/pay/cs_live_a1B2c3D4e5F6g7H8';
export const CONNECT_URL = 'https://github.com/login/oauth/authorize?client_id=Iv1.8a61f9b3&state=9d1f7c2b';
export const HOSTILE_URL = 'https://docs.example.org/review';

export interface Seeded {
  readonly guard: Guard;
  /** Navigation ids by role. */
  readonly ids: { readonly expired: string; readonly completed: string; readonly pending: string; readonly hostile: string };
  readonly now: () => number;
  advance(ms: number): void;
  close(): Promise<void>;
}

/** The seed's own clock starts at `start`; `seed` makes its ids and nonces repeatable (for screenshots that do not change between runs). */
export async function seedLedger(ledger: Ledger, start = Date.now() - 20 * 60_000, seed?: number): Promise<Seeded> {
  let now = start;
  const random = seed === undefined ? undefined : testDeps(seed).random;
  const guard = createGuard({
    ledger,
    clock: () => now,
    ...(random === undefined ? {} : { random }),
    server: 'acme',
    subject: 'user:alice@example.com',
    policy: { completion: { ttlSeconds: 600 } },
  });
  const ui = scriptedUi({ url: (review) => (review.elicitationId === 'review-1' ? 'decline' : 'accept') });
  const opener = () => {};
  const host = await connectHost(guard, {
    serverInfo: { name: 'acme-payments', version: '2.4.0' },
    onElicit: createElicitationHandler(guard, ui, { opener }),
    configure: (server) =>
      server.setRequestHandler(CallToolRequestSchema, async (request) => {
        switch (request.params.name) {
          case 'pay':
            throw new UrlElicitationRequiredError([
              { mode: 'url', message: 'Confirm the payment of 25.00 EUR to Acme', url: EXPIRED_URL, elicitationId: 'pay-1' },
            ]);
          case 'sign-in':
            throw new UrlElicitationRequiredError([
              { mode: 'url', message: 'Sign in with Google to share your calendar', url: PENDING_URL, elicitationId: 'signin-1' },
            ]);
          case 'connect': {
            const answer = await server.elicitInput({
              mode: 'url',
              message: 'Connect your GitHub account',
              url: CONNECT_URL,
              elicitationId: 'connect-1',
            });
            // The user spends a minute and a half on the provider's page before the server's notice.
            now += 95_000;
            if (answer.action === 'accept') await server.createElicitationCompletionNotifier('connect-1')();
            return { content: [{ type: 'text' as const, text: answer.action === 'accept' ? 'connected' : answer.action }] };
          }
          default: {
            const answer = await server.elicitInput({ mode: 'url', message: HOSTILE_MESSAGE, url: HOSTILE_URL, elicitationId: 'review-1' });
            return { content: [{ type: 'text' as const, text: answer.action }] };
          }
        }
      }),
  });
  const required = async (name: string) => {
    const error = await host.client.callTool({ name, arguments: {} }).then(
      () => null,
      (e: unknown) => e,
    );
    if (!(error instanceof UrlElicitationRequiredError)) throw new Error(`${name}: expected -32042, got ${String(error)}`);
    const outcome = await presentUrlElicitationRequired(guard, ui, error, { opener });
    if (outcome !== 'accepted') throw new Error(`${name}: ${outcome}`);
  };

  await required('pay');
  now += 11 * 60_000;
  guard.pendingFlows(); // records EXPIRED for pay-1
  now += 60_000;
  await host.client.callTool({ name: 'connect', arguments: { account: 'octocat' } });
  now += 5 * 60_000;
  await host.client.callTool({ name: 'review', arguments: {} });
  now += 60_000;
  await required('sign-in');
  now += 2 * 60_000;
  await guard.flush();

  const id = (elicitationId: string) => {
    const view = guard.flow(elicitationId);
    if (view === null) throw new Error(`no flow ${elicitationId}`);
    return view.navigationId;
  };
  return {
    guard,
    ids: { expired: id('pay-1'), completed: id('connect-1'), pending: id('signin-1'), hostile: id('review-1') },
    now: () => now,
    advance: (ms) => void (now += ms),
    close: () => host.close(),
  };
}
