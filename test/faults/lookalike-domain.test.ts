import { ErrorCode, type McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createGuard } from '../../src/core/guard.js';
import { collectInvariants } from './support/invariants.js';
import type { Host } from './support/sdk.js';
import { urlFaultHost } from './support/url-server.js';

// Fault: the URL's host looks like a known domain but is not it (IDN homographs, mixed scripts).

const invariants = collectInvariants('lookalike-domain');
const hosts: Host[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close();
});

const LOOKALIKES: Record<string, string> = {
  'all-Cyrillic apple.com': 'https://аррӏе.com/account/verify',
  'Latin and Cyrillic google.com': 'https://gооgle.com/signin',
  'the same in Punycode': 'https://xn--80ak6aa92e.com/account/verify',
};

async function setup() {
  const guard = invariants.guard(createGuard());
  const host = await urlFaultHost(guard);
  hosts.push(host);
  return { guard, host };
}

describe('fault: a look-alike Unicode domain', () => {
  it.each(Object.keys(LOOKALIKES))('refuses %s before the user sees it', async (name) => {
    const { guard, host } = await setup();
    expect(await host.nested(LOOKALIKES[name]!, 'look-1')).toBe('refused E_URL_BLOCKED');
    const error = host.serverOutcomes[0] as McpError;
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect((error.data as { findings: string[] }).findings).toContain('URL_LOOKALIKE_HOMOGLYPH');
    expect(host.ui.urlReviews).toEqual([]);
    expect(host.opened).toEqual([]);
    expect(guard.metrics()).toMatchObject({ elicitationsRefused: 1, elicitationsForwarded: 0 });
    invariants.expectGuard(guard);
  });

  it('refuses it in a -32042 list too: the host gets a plain error and nothing to present', async () => {
    const { guard, host } = await setup();
    const error = await host.required(LOOKALIKES['all-Cyrillic apple.com']!, 'look-2');
    expect((error as McpError).data).toMatchObject({ code: 'E_URL_BLOCKED' });
    expect(await host.present(error)).toBe('cancelled');
    expect(host.ui.urlReviews).toEqual([]);
    expect(guard.flow('look-2')).toBeNull();
    invariants.expectGuard(guard);
  });

  it('shows the real domain to the user with the registrable domain marked', async () => {
    const { guard, host } = await setup();
    expect(await host.nested('https://appleid.apple.com/account/verify', 'look-3')).toBe('accept');
    const [review] = host.ui.urlReviews;
    expect(review?.rendered.plain).toContain('[apple.com]');
    expect(host.opened).toEqual(['https://appleid.apple.com/account/verify']);
    invariants.expectGuard(guard);
  });
});
