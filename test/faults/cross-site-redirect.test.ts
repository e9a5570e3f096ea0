import { ErrorCode, type McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createGuard } from '../../src/core/guard.js';
import { collectInvariants } from './support/invariants.js';
import type { Host } from './support/sdk.js';
import { urlFaultHost } from './support/url-server.js';

// Fault: a legitimate-looking authorization URL whose redirect parameter sends the browser (and
// the code or token it carries) to another site. The policy's url.redirectHosts names where
// redirects may go.

const invariants = collectInvariants('cross-site-redirect');
const hosts: Host[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close();
});

const POLICY = { url: { redirectHosts: ['example.com'] } };
const AUTHORIZE = 'https://login.example.com/oauth/authorize?client_id=app&response_type=code';

async function setup(policy: unknown = POLICY) {
  const guard = invariants.guard(createGuard({ policy }));
  const host = await urlFaultHost(guard);
  hosts.push(host);
  return { guard, host };
}

describe('fault: a cross-site redirect target', () => {
  it.each([
    ['redirect_uri', 'https://collector.example.net/cb'],
    ['return_to', 'https://example.com.collector.example.net/'],
    ['next', '//collector.example.net/steal'],
  ])('refuses %s=%s outside the policy redirect hosts', async (param, target) => {
    const { guard, host } = await setup();
    const url = `${AUTHORIZE}&${param}=${encodeURIComponent(target)}`;
    expect(await host.nested(url, 'redir-1')).toBe('refused E_URL_BLOCKED');
    const error = host.serverOutcomes[0] as McpError;
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect((error.data as { findings: string[] }).findings).toContain('URL_REDIRECT_NOT_ALLOWED');
    expect(host.ui.urlReviews).toEqual([]);
    expect(host.opened).toEqual([]);
    invariants.expectGuard(guard);
  });

  it('refuses the same URL in a -32042 list', async () => {
    const { guard, host } = await setup();
    const error = await host.required(`${AUTHORIZE}&redirect_uri=${encodeURIComponent('https://collector.example.net/cb')}`, 'redir-2');
    expect((error as McpError).data).toMatchObject({ code: 'E_URL_BLOCKED' });
    expect(await host.present(error)).toBe('cancelled');
    expect(host.opened).toEqual([]);
    invariants.expectGuard(guard);
  });

  it('lets a redirect to an allowed host through, and the user opens it once', async () => {
    const { guard, host } = await setup();
    const url = `${AUTHORIZE}&redirect_uri=${encodeURIComponent('https://app.example.com/cb')}`;
    expect(await host.nested(url, 'redir-3')).toBe('accept');
    expect(host.ui.urlReviews.map((r) => r.url)).toEqual([url]);
    expect(host.opened).toEqual([url]);
    invariants.expectGuard(guard);
  });

  it('without redirectHosts the redirect is not judged by destination (the policy opts in)', async () => {
    const { guard, host } = await setup({});
    const url = `${AUTHORIZE}&redirect_uri=${encodeURIComponent('https://collector.example.net/cb')}`;
    expect(await host.nested(url, 'redir-4')).toBe('accept');
    expect(host.opened).toEqual([url]);
    invariants.expectGuard(guard);
  });
});
