import { McpError, UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, vi } from 'vitest';
import { presentUrlElicitationRequired } from '../../src/adapters/sdk/handler.js';
import { createGuard } from '../../src/core/guard.js';
import { ConnectCode } from '../../src/server/connect-audit.js';
import type { UrlElicitationParams } from '../../src/server/connect.js';
import { scriptedUi } from '../adapters/sdk/harness.js';
import { open, PROVIDER, useConnectWorld } from './support/connect-world.js';
import { connectHost, guardCode, rejection } from './support/sdk.js';

// Fault: the account-binding attack. Mallory starts a connection for his own account and forwards
// the link to Alice (here: through a server that relays it to her MCP session). If Alice completed
// it, her provider token would land in Mallory's account. The client guard cannot tell (the link is
// the server's real connect page); the server companion refuses it because Alice is not Mallory.

const suite = useConnectWorld('forwarded-link');
const { hosts, invariants } = suite;

function guardFor(subject: string) {
  // The connect pages run on http://127.0.0.1: the development profile lets loopback through.
  return invariants.guard(createGuard({ policy: { profile: 'development' }, subject }));
}

describe('fault: an attacker-forwarded connect link', () => {
  it("refuses Alice on Mallory's link: nothing bound to anyone, no completion, and Mallory's own flow binds only to him", async () => {
    const malloryGuard = guardFor('mcp|mallory');
    const mallory = await connectHost(malloryGuard, { configure: suite.world.mcpServer('mcp|mallory', 'session-mallory') });
    hosts.push(mallory);
    const required = await rejection(mallory.client.callTool({ name: 'connect', arguments: {} }));
    expect(required).toBeInstanceOf(UrlElicitationRequiredError);
    const link = (required as UrlElicitationRequiredError).elicitations[0] as UrlElicitationParams;

    // Alice's session: a server relays Mallory's link to her as its own requirement.
    const aliceGuard = guardFor('mcp|alice');
    const alice = await connectHost(aliceGuard, { configure: suite.world.mcpServer('mcp|alice', 'session-alice', () => link) });
    hosts.push(alice);
    const relayed = await rejection(alice.client.callTool({ name: 'connect', arguments: {} }));
    const aliceBrowser = suite.world.browserFor('mcp|alice');
    const pages: { status: number; body: string }[] = [];
    const grantsBefore = suite.world.provider.grants();
    const ui = scriptedUi({ url: () => 'accept' });
    const outcome = await presentUrlElicitationRequired(aliceGuard, ui, relayed, {
      opener: async (url) => {
        const walk = await aliceBrowser.follow(url);
        pages.push({ status: walk.response.status, body: await walk.response.text() });
      },
    });

    // What Alice sees: the real connect page, refusing her. Nothing reached the provider.
    expect(outcome).toBe('accepted');
    expect(pages).toHaveLength(1);
    expect(pages[0]!.status).toBe(403);
    expect(pages[0]!.body).toContain('Not your link');
    expect(suite.world.provider.grants()).toBe(grantsBefore);
    expect(suite.world.events.at(-1)).toMatchObject({ type: 'connect.refused', code: ConnectCode.subjectMismatch, stage: 'connect' });
    expect(await suite.world.vault.get('mcp|alice', PROVIDER)).toBeNull();
    expect(await suite.world.vault.get('mcp|mallory', PROVIDER)).toBeNull();
    expect(alice.notices).toEqual([]);
    expect(mallory.notices).toEqual([]);
    expect(suite.world.service.metrics()).toMatchObject({ tokensBound: 0, crossSubjectBindings: 0, bindingsByOtherBrowser: 0 });

    // Alice gives up on it; her host will not retry.
    expect(aliceGuard.cancelFlow(link.elicitationId).state).toBe('CANCELLED');
    expect(guardCode(await rejection(alice.client.callTool({ name: 'connect', arguments: {} })))).toBe('E_RETRY_NOT_ELIGIBLE');

    // Mallory's own browser completes his own link: the token is his, the notice goes to his session only.
    const malloryBrowser = suite.world.browserFor('mcp|mallory');
    const done = await malloryBrowser.follow(link.url);
    expect(done.response.status).toBe(200);
    await done.response.text();
    expect(await suite.world.vault.get('mcp|mallory', PROVIDER)).not.toBeNull();
    expect(await suite.world.vault.get('mcp|alice', PROVIDER)).toBeNull();
    await vi.waitFor(() => expect(mallory.notices).toEqual([link.elicitationId]));
    expect(alice.notices).toEqual([]);
    expect(suite.world.service.metrics()).toMatchObject({ tokensBound: 1, crossSubjectBindings: 0, bindingsByOtherBrowser: 0 });

    for (const guard of [aliceGuard, malloryGuard]) invariants.expectGuard(guard);
    invariants.expectService(suite.world.service);
  });

  it('a relayed link opened by nobody signed in goes nowhere either', async () => {
    const link = await suite.world.service.issueUrlElicitation({ subject: 'mcp|mallory', purpose: 'Connect TestHub' });
    const guard = guardFor('mcp|alice');
    const alice = await connectHost(guard, { configure: suite.world.mcpServer('mcp|alice', 'session-alice-2', () => link) });
    hosts.push(alice);
    const relayed = await rejection(alice.client.callTool({ name: 'connect', arguments: {} }));
    expect(relayed).toBeInstanceOf(McpError);
    const statuses: number[] = [];
    await presentUrlElicitationRequired(guard, scriptedUi({ url: () => 'accept' }), relayed, {
      opener: async (url) => {
        const page = await open(suite.world.browserFor(null), url);
        statuses.push(page.status);
      },
    });
    expect(statuses).toEqual([401]);
    expect(await suite.world.vault.get('mcp|alice', PROVIDER)).toBeNull();
    expect(suite.world.service.metrics().crossSubjectBindings).toBe(0);
    invariants.expectGuard(guard);
  });
});
