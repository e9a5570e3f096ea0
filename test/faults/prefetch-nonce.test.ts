import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CallToolRequestSchema, UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { UrlDecision } from '../../src/adapters/sdk/consent-ui.js';
import { createElicitationHandler, presentUrlElicitationRequired } from '../../src/adapters/sdk/handler.js';
import { createGuard } from '../../src/core/guard.js';
import { scriptedUi } from '../adapters/sdk/harness.js';
import { collectInvariants } from './support/invariants.js';
import { connectHost, type Host } from './support/sdk.js';

// Fault: a client that prefetches the URL (a link preview, a metadata fetch, a HEAD probe) burns
// the server's one-time nonce before the user agreed, so the user's own visit then fails. Spec
// 2025-11-25: the client must not pre-fetch the URL or any of its metadata. The URL points at a
// loopback server that counts every request and honours each nonce once.

const invariants = collectInvariants('prefetch-nonce');
let http: HttpServer;
let base: string;
let hits: string[];
const used = new Set<string>();
const hosts: Host[] = [];

beforeAll(async () => {
  http = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    const nonce = new URL(req.url ?? '/', 'http://loopback').searchParams.get('nonce') ?? '';
    const fresh = nonce !== '' && !used.has(nonce);
    used.add(nonce);
    res.writeHead(fresh ? 200 : 410, { 'content-type': 'text/plain' });
    res.end(fresh ? 'signed in' : 'this link was already used');
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
});

afterAll(async () => {
  http.closeAllConnections();
  await new Promise<void>((resolve) => http.close(() => resolve()));
});

beforeEach(() => {
  hits = [];
});

afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close();
});

/** The user's browser, simulated: one GET of the URL it is handed; remembers what the page said. */
function browser() {
  const statuses: number[] = [];
  const open = async (url: string) => {
    const response = await fetch(url);
    statuses.push(response.status);
    await response.text();
  };
  return { open, statuses };
}

async function setup(decision: UrlDecision, nonce: string) {
  // Loopback http is allowed by the development profile only.
  const guard = invariants.guard(createGuard({ policy: { profile: 'development' } }));
  const hitsWhileReviewing: number[] = [];
  const ui = scriptedUi({
    url: async () => {
      // Give a stray prefetch time to land before the user decides.
      await new Promise((r) => setTimeout(r, 30));
      hitsWhileReviewing.push(hits.length);
      return decision;
    },
  });
  const user = browser();
  const host = await connectHost(guard, {
    onElicit: createElicitationHandler(guard, ui, { opener: user.open }),
    configure: (server) =>
      server.setRequestHandler(CallToolRequestSchema, async (request) => {
        if (request.params.name === 'required')
          throw new UrlElicitationRequiredError([
            { mode: 'url', message: 'Sign in', url: `${base}/signin?nonce=${nonce}`, elicitationId: `np-${nonce}` },
          ]);
        const answer = await server.elicitInput({
          mode: 'url',
          message: 'Sign in',
          url: `${base}/signin?nonce=${nonce}`,
          elicitationId: `np-${nonce}`,
        });
        return { content: [{ type: 'text' as const, text: answer.action }] };
      }),
  });
  hosts.push(host);
  return { guard, ui, host, user, hitsWhileReviewing };
}

describe('fault: a prefetch would burn a one-time nonce', () => {
  it('loads nothing while the user reviews, then exactly once: the user gets the fresh page', async () => {
    const { guard, host, user, hitsWhileReviewing } = await setup('accept', 'n1');
    const result = await host.client.callTool({ name: 'nested', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'accept' }]);
    expect(hitsWhileReviewing).toEqual([0]);
    expect(hits).toEqual(['GET /signin?nonce=n1']);
    expect(user.statuses).toEqual([200]);
    invariants.expectGuard(guard);
  });

  it.each(['decline', 'cancel'] as const)('loads nothing at all when the user answers %s', async (decision) => {
    const { guard, host, hitsWhileReviewing } = await setup(decision, `n-${decision}`);
    const result = await host.client.callTool({ name: 'nested', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: decision }]);
    await new Promise((r) => setTimeout(r, 30));
    expect(hitsWhileReviewing).toEqual([0]);
    expect(hits).toEqual([]);
    invariants.expectGuard(guard);
  });

  it('loads nothing for a -32042 entry until the user accepts it, then once', async () => {
    const { guard, ui, host, user, hitsWhileReviewing } = await setup('accept', 'n2');
    const error = await host.client.callTool({ name: 'required', arguments: {} }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UrlElicitationRequiredError);
    await new Promise((r) => setTimeout(r, 30));
    expect(hits).toEqual([]);
    expect(await presentUrlElicitationRequired(guard, ui, error, { opener: user.open })).toBe('accepted');
    expect(hitsWhileReviewing).toEqual([0]);
    expect(hits).toEqual(['GET /signin?nonce=n2']);
    expect(user.statuses).toEqual([200]);
    invariants.expectGuard(guard);
  });

  it('opens a consented URL once: the ticket cannot open it a second time', async () => {
    const { guard, host, user } = await setup('accept', 'n3');
    await host.client.callTool({ name: 'required', arguments: {} }).catch(() => undefined);
    const ticket = await guard.recordConsent('np-n3', 'accept');
    expect(hits).toEqual([]);
    await guard.openUrl(ticket!, user.open);
    await expect(guard.openUrl(ticket!, user.open)).rejects.toMatchObject({ code: 'E_ILLEGAL_TRANSITION' });
    expect(hits).toEqual(['GET /signin?nonce=n3']);
    expect(user.statuses).toEqual([200]);
    invariants.expectGuard(guard);
  });
});
