import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CallToolRequestSchema, ElicitResultSchema, UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { UrlDecision } from '../../../src/adapters/sdk/consent-ui.js';
import { presentUrlElicitationRequired } from '../../../src/adapters/sdk/handler.js';
import { createGuard } from '../../../src/core/guard.js';
import { connectWithHandler, scriptedUi } from './harness.js';

// Spec 2025-11-25: the client "MUST NOT automatically pre-fetch the URL or any of its metadata".
// The elicitation URL points at a loopback server that counts every request it gets.

let http: HttpServer;
let hits: string[];
let base: string;
const closers: (() => Promise<void>)[] = [];

beforeEach(async () => {
  hits = [];
  http = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<title>Sign in</title>');
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
});

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  http.closeAllConnections();
  await new Promise<void>((resolve) => http.close(() => resolve()));
});

/** The browser, simulated: one fetch of the URL it is handed. */
const browser = async (url: string) => {
  const response = await fetch(url);
  await response.text();
};

async function setup(decision: UrlDecision) {
  const guard = createGuard({ policy: { profile: 'development' } });
  const hitsWhileReviewing: number[] = [];
  const ui = scriptedUi({
    url: async () => {
      // Give any stray prefetch time to land before the user "decides".
      await new Promise((r) => setTimeout(r, 30));
      hitsWhileReviewing.push(hits.length);
      return decision;
    },
  });
  const connected = await connectWithHandler(guard, ui, { opener: browser }, (server) => {
    server.setRequestHandler(CallToolRequestSchema, async () => {
      throw new UrlElicitationRequiredError([
        { mode: 'url', message: 'Connect your account', url: `${base}/connect?flow=tool`, elicitationId: 'tool-1' },
      ]);
    });
  });
  closers.push(connected.close);
  return { ...connected, guard, ui, hitsWhileReviewing };
}

describe('no prefetch of an elicitation URL', () => {
  it('loads nothing while the user reviews, and exactly once after consent', async () => {
    const { server, hitsWhileReviewing } = await setup('accept');
    const url = `${base}/consent?flow=1`;
    const result = await server.request(
      { method: 'elicitation/create', params: { mode: 'url', message: 'Connect your account', url, elicitationId: 'np-1' } },
      ElicitResultSchema,
    );
    expect(result).toEqual({ action: 'accept' });
    expect(hitsWhileReviewing).toEqual([0]);
    expect(hits).toEqual(['GET /consent?flow=1']);
  });

  it.each(['decline', 'cancel'] as const)('loads nothing at all when the user answers %s', async (decision) => {
    const { server, hitsWhileReviewing } = await setup(decision);
    const result = await server.request(
      { method: 'elicitation/create', params: { mode: 'url', message: 'Connect', url: `${base}/consent?flow=2`, elicitationId: 'np-2' } },
      ElicitResultSchema,
    );
    expect(result).toEqual({ action: decision });
    await new Promise((r) => setTimeout(r, 30));
    expect(hitsWhileReviewing).toEqual([0]);
    expect(hits).toEqual([]);
  });

  it('loads nothing for a -32042 entry until the user accepts it', async () => {
    const { client, guard, ui, hitsWhileReviewing } = await setup('accept');
    const error = await client.callTool({ name: 'connect', arguments: {} }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UrlElicitationRequiredError);
    expect(hits).toEqual([]);
    expect(await presentUrlElicitationRequired(guard, ui, error, { opener: browser })).toBe('accepted');
    expect(hitsWhileReviewing).toEqual([0]);
    expect(hits).toEqual(['GET /connect?flow=tool']);
  });
});
