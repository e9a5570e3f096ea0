import { ErrorCode, McpError, UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { GuardEvent } from '../../src/core/events.js';
import { createGuard } from '../../src/core/guard.js';
import { collectInvariants } from './support/invariants.js';
import type { Host } from './support/sdk.js';
import { urlFaultHost } from './support/url-server.js';

// Fault: the elicitation URL carries a credential (a pre-authenticated link). Spec 2025-11-25:
// URLs must not contain credentials; a URL is logged, shared and kept in histories.

const invariants = collectInvariants('token-in-url');
const hosts: Host[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close();
});

// Obviously fake, format-valid values.
const TOKENS = {
  githubPat: 'ghp_1A2b3C4d5E6f7G8h9I0jK1l2M3n4O5p6Q7r8',
  jwt:
    'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJmYWtlLXVzZXIiLCJpYXQiOjE3MDAwMDAwMDB9.c2lnbmF0dXJlLW5vdC1yZWFsLWF0LWFs' +
    'bC0wMTIzNDU2Nzg5',
};

const URLS: Record<string, string> = {
  'access_token in the query': `https://accounts.example.com/continue?access_token=${TOKENS.githubPat}`,
  'a JWT under a harmless name': `https://accounts.example.com/continue?session=${TOKENS.jwt}`,
  userinfo: 'https://admin:s3cr3t-Pa55w0rd@accounts.example.com/continue',
};

async function setup() {
  const events: GuardEvent[] = [];
  const guard = invariants.guard(createGuard({ onEvent: (e) => events.push(e) }));
  const host = await urlFaultHost(guard);
  hosts.push(host);
  return { guard, host, events };
}

describe('fault: a URL that carries a token', () => {
  it.each(Object.keys(URLS))('refuses a nested URL elicitation with %s; nothing is shown or opened', async (name) => {
    const { guard, host, events } = await setup();
    const url = URLS[name]!;
    expect(await host.nested(url, 'tok-1')).toBe('refused E_URL_BLOCKED');
    const error = host.serverOutcomes[0] as McpError;
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect((error.data as { findings: string[] }).findings.some((code) => code === 'URL_CREDENTIAL' || code === 'URL_USERINFO')).toBe(true);
    expect(host.ui.urlReviews).toEqual([]);
    expect(host.opened).toEqual([]);
    expect(guard.pendingFlows()).toEqual([]);
    // The refusal reaches the host as an event, with no part of the token in it.
    expect(events.some((e) => e.type === 'elicitation.refused' && e.code === 'E_URL_BLOCKED')).toBe(true);
    for (const secret of [...Object.values(TOKENS), 's3cr3t-Pa55w0rd']) expect(JSON.stringify(events)).not.toContain(secret);

    // A completion notice for the refused id moves nothing.
    await host.server.notification({ method: 'notifications/elicitation/complete', params: { elicitationId: 'tok-1' } });
    await new Promise((r) => setTimeout(r, 5));
    expect(host.notices).toEqual([]);
    expect(guard.metrics()).toMatchObject({
      elicitationsRefused: 1,
      completionsDropped: 1,
      completionNoticesAdvancingUnknown: 0,
      sensitiveFieldsLetThrough: 0,
    });
    expect(guard.metrics().maxAcceptancesPerLineage).toBeLessThanOrEqual(1);
  });

  it('removes a tokened entry from a -32042 list: the host gets a plain error, not the link', async () => {
    const { guard, host, events } = await setup();
    const error = await host.required(URLS['access_token in the query']!, 'tok-2');
    expect(error).toBeInstanceOf(McpError);
    expect(error).not.toBeInstanceOf(UrlElicitationRequiredError);
    expect((error as McpError).code).toBe(ErrorCode.InternalError);
    expect((error as McpError).data).toMatchObject({ code: 'E_URL_BLOCKED' });
    expect(JSON.stringify((error as McpError).data)).not.toContain(TOKENS.githubPat);
    expect(await host.present(error)).toBe('cancelled');
    expect(host.ui.urlReviews).toEqual([]);
    expect(host.opened).toEqual([]);
    expect(events.find((e) => e.type === 'url-required.filtered')).toMatchObject({ kept: 0, removed: 1 });
    expect(guard.metrics()).toMatchObject({ urlRequiredFiltered: 1, sensitiveFieldsLetThrough: 0, completionNoticesAdvancingUnknown: 0 });
    invariants.expectGuard(guard);
  });

  it('shows and opens the same page without the token', async () => {
    const { guard, host } = await setup();
    expect(await host.nested('https://accounts.example.com/continue?flow=7', 'tok-3')).toBe('accept');
    expect(host.opened).toEqual(['https://accounts.example.com/continue?flow=7']);
    // The tool answered at once: its answer is the original operation's, accepted once.
    expect(guard.flow('tok-3')?.state).toBe('ORIGINAL_RESPONSE_ACCEPTED');
    expect(guard.metrics()).toMatchObject({ originalOperationsAccepted: 1, maxAcceptancesPerLineage: 1 });
    invariants.expectGuard(guard);
  });
});
