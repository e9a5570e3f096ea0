import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { requestDigest } from '../../src/protocol/digest.js';
import { GuardCode } from '../../src/protocol/errors.js';
import { createCompletionRegistry, urlElicitationRequired } from '../../src/server/completion.js';
import { LeaseBook } from '../../src/server/leases.js';
import { openSession, settle, type SdkSession } from './sdk-session.js';

function manualClock(start = 5_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

describe('LeaseBook', () => {
  it('consumes a lease once, for its own subject and operation only', () => {
    const leases = new LeaseBook();
    const id = leases.grant('alice', 'digest-1', 60_000);
    expect(leases.consume(id, 'bob', 'digest-1')).toBe(false);
    expect(leases.consume(id, 'alice', 'digest-2')).toBe(false);
    // The failed attempts above must not have burnt it.
    expect(leases.consume(id, 'alice', 'digest-1')).toBe(true);
    expect(leases.consume(id, 'alice', 'digest-1')).toBe(false);
    expect(leases.consume('no-such-lease', 'alice', 'digest-1')).toBe(false);
  });

  it('expires leases on the injected clock', () => {
    const clock = manualClock();
    const leases = new LeaseBook({ clock: clock.now });
    const early = leases.grant('alice', 'd', 1_000);
    const late = leases.grant('alice', 'd', 1_000);
    clock.advance(999);
    expect(leases.consume(early, 'alice', 'd')).toBe(true);
    clock.advance(1);
    expect(leases.consume(late, 'alice', 'd')).toBe(false);
    expect(leases.size).toBe(0);
  });

  it('matches a retry by subject and operation when the client holds no lease id', () => {
    const leases = new LeaseBook();
    leases.grant('alice', 'd', 60_000);
    leases.grant('alice', 'd', 60_000);
    expect(leases.consumeFor('bob', 'd')).toBe(false);
    expect(leases.consumeFor('alice', 'other')).toBe(false);
    expect(leases.consumeFor('alice', 'd')).toBe(true);
    expect(leases.consumeFor('alice', 'd')).toBe(true);
    expect(leases.consumeFor('alice', 'd')).toBe(false);
  });

  it('stays within its cap, dropping expired leases first, then the oldest', () => {
    const clock = manualClock();
    const leases = new LeaseBook({ clock: clock.now, maxLeases: 2 });
    const shortLived = leases.grant('alice', 'd1', 10);
    const kept = leases.grant('alice', 'd2', 60_000);
    clock.advance(10);
    const third = leases.grant('alice', 'd3', 60_000);
    expect(leases.size).toBe(2);
    expect(leases.consume(shortLived, 'alice', 'd1')).toBe(false);
    const fourth = leases.grant('alice', 'd4', 60_000);
    expect(leases.consume(kept, 'alice', 'd2')).toBe(false);
    expect(leases.consume(third, 'alice', 'd3')).toBe(true);
    expect(leases.consume(fourth, 'alice', 'd4')).toBe(true);
  });

  it('revokes an unused lease', () => {
    const leases = new LeaseBook();
    const id = leases.grant('alice', 'd', 60_000);
    expect(leases.revoke(id)).toBe(true);
    expect(leases.consumeFor('alice', 'd')).toBe(false);
  });

  it('rejects bad grants', () => {
    const leases = new LeaseBook();
    expect(() => leases.grant('', 'd', 1)).toThrowError(expect.objectContaining({ code: GuardCode.input }));
    expect(() => leases.grant('alice', 'd', 0)).toThrowError(expect.objectContaining({ code: GuardCode.input }));
    expect(() => leases.grant('alice', 'd', Number.POSITIVE_INFINITY)).toThrowError(expect.objectContaining({ code: GuardCode.input }));
  });
});

describe('a -32042 requirement satisfied by one subject', () => {
  const sessions: SdkSession[] = [];
  afterEach(async () => {
    await Promise.all(sessions.splice(0).map((s) => s.close()));
  });

  /**
   * A server whose `deploy` tool needs a connected third-party account: without a lease for
   * (caller, this exact call) it answers -32042; the OAuth callback grants the lease once the
   * browser user is verified as the subject the elicitation was issued to.
   */
  function buildServer() {
    const leases = new LeaseBook();
    const registry = createCompletionRegistry();
    const operations = new Map<string, string>();
    let next = 0;

    function install(server: Server, sessionId: string, subject: string): void {
      server.setRequestHandler(CallToolRequestSchema, async (request) => {
        const digest = requestDigest('tools/call', request.params);
        if (leases.consumeFor(subject, digest)) return { content: [{ type: 'text', text: `deployed for ${subject}` }] };
        const elicitationId = `el-${++next}`;
        registry.register({ elicitationId, sessionId, subject, notify: server.createElicitationCompletionNotifier(elicitationId) });
        operations.set(elicitationId, digest);
        throw urlElicitationRequired([
          { elicitationId, url: `https://mcp.example.com/connect?elicitationId=${elicitationId}`, message: 'Connect your cloud account' },
        ]);
      });
    }

    /** The OAuth callback after the browser user was verified as `browserSubject`. */
    async function oauthCallback(elicitationId: string, browserSubject: string): Promise<boolean> {
      const issued = registry.lookup(elicitationId);
      const digest = operations.get(elicitationId);
      if (issued === null || digest === undefined || issued.subject !== browserSubject) return false;
      leases.grant(issued.subject, digest, 5 * 60_000);
      return registry.completeUrlElicitation(elicitationId, { subject: browserSubject });
    }

    return { install, oauthCallback };
  }

  async function requirementOf(session: SdkSession): Promise<string> {
    try {
      await session.client.callTool({ name: 'deploy', arguments: { app: 'web', region: 'eu' } });
    } catch (error) {
      expect(error).toBeInstanceOf(UrlElicitationRequiredError);
      return (error as UrlElicitationRequiredError).elicitations[0]!.elicitationId;
    }
    throw new Error('expected -32042');
  }

  it('cannot be used by another subject retrying the same call', async () => {
    const app = buildServer();
    const alice = await openSession((s) => app.install(s, 'session-alice', 'alice'));
    const bob = await openSession((s) => app.install(s, 'session-bob', 'bob'));
    sessions.push(alice, bob);

    const aliceElicitation = await requirementOf(alice);
    const bobElicitation = await requirementOf(bob);
    expect(await app.oauthCallback(aliceElicitation, 'alice')).toBe(true);
    await settle();
    expect(alice.completions).toEqual([aliceElicitation]);
    expect(bob.completions).toEqual([]);

    // Bob retries the identical call: Alice's lease is not his, so he is asked again.
    await requirementOf(bob);
    const done = await alice.client.callTool({ name: 'deploy', arguments: { region: 'eu', app: 'web' } });
    expect(done.content).toEqual([{ type: 'text', text: 'deployed for alice' }]);
    // Single use: the next call needs a fresh elicitation.
    await requirementOf(alice);

    // The forwarded-link attack: Alice completes OAuth on Bob's elicitation; nothing is granted to Bob.
    expect(await app.oauthCallback(bobElicitation, 'alice')).toBe(false);
    await requirementOf(bob);
  });
});
