import { afterEach, describe, expect, it } from 'vitest';
import { guardTransport } from '../../src/adapters/sdk/transport.js';
import type { GuardEvent } from '../../src/core/events.js';
import { createGuard } from '../../src/core/guard.js';
import { MemoryLedger } from '../../src/ledger/memory.js';
import { serveInMemory } from '../helpers/modern.js';
import { collectInvariants } from './support/invariants.js';

// Fault: in spec 2026-07-28 a host (or something between it and the guard) replays the rounds of
// an input-required operation: the completed round again, a round while the one before is still in
// flight, a state it was never given, answers for keys it never saw. The server must run each
// operation at most once and never receive an unpresented answer; the guard accepts at most one
// final answer per operation.

const invariants = collectInvariants('input-required-replay');
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'replaying-host', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {}, url: {} } },
};

type Message = Record<string, unknown>;
type Report = { got: Record<string, unknown> | null; runs: number };

async function setup() {
  const events: GuardEvent[] = [];
  const guard = invariants.guard(createGuard({ server: 'replay', ledger: new MemoryLedger(), onEvent: (e) => events.push(e) }));
  const served = serveInMemory();
  const wrapped = guardTransport(served.clientSide, guard);
  const inbox: Message[] = [];
  wrapped.onmessage = (m: unknown) => void inbox.push(m as Message);
  await wrapped.start();
  closers.push(async () => {
    await wrapped.close();
    await served.close();
  });
  const call = (id: number, name: string, extra: Record<string, unknown> = {}) =>
    wrapped.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {}, ...extra, _meta: META } });
  const answer = async (id: number): Promise<Message> => {
    for (let i = 0; i < 200; i += 1) {
      const found = inbox.find((m) => m.id === id);
      if (found !== undefined) return found;
      await new Promise((r) => setTimeout(r, 5));
    }
    throw new Error(`no answer to ${id}`);
  };
  const received = () =>
    served.wire
      .filter((l) => l.dir === 'C->S' && l.message.method === 'tools/call')
      .map((l) => l.message.params as Record<string, unknown>);
  return { guard, events, call, answer, received };
}

describe('fault: the rounds of an input-required operation replayed', () => {
  it('a replayed, a doubled and a forged round never make the server run the operation twice', async () => {
    const { guard, call, answer, received } = await setup();
    await call(1, 'oauth_url');
    const round = (await answer(1)).result as { requestState: string };
    const retry = { inputResponses: { github: { action: 'accept' } }, requestState: round.requestState };
    await call(2, 'oauth_url', retry);
    await call(3, 'oauth_url', retry); // doubled while the first is in flight
    expect(await answer(3)).toMatchObject({ error: { data: { code: 'E_RETRY_WHILE_IN_FLIGHT' } } });
    expect(((await answer(2)).result as { structuredContent: Report }).structuredContent.runs).toBe(1);
    await call(4, 'oauth_url', retry); // the completed round again
    expect(await answer(4)).toMatchObject({ error: { data: { code: 'E_ALREADY_ACCEPTED' } } });
    // A state the guard never saw: the server gets the call, but none of the forged answers.
    await call(5, 'oauth_url', { inputResponses: { github: { action: 'accept' } }, requestState: 'flow=oauth_url;round=9' });
    await answer(5);
    expect(received().map((p) => Object.keys((p.inputResponses as object | undefined) ?? {}))).toEqual([[], ['github'], []]);
    expect(guard.metrics()).toMatchObject({ originalOperationsAccepted: 1, maxAcceptancesPerLineage: 1 });
    invariants.expectGuard(guard);
  });

  it('answers for keys the guard never presented, and secrets, never reach the server', async () => {
    const { guard, events, call, answer, received } = await setup();
    await call(1, 'two_keys');
    const round = (await answer(1)).result as { requestState: string };
    await call(2, 'two_keys', {
      requestState: round.requestState,
      inputResponses: {
        login: { action: 'accept', content: { username: 'octocat', password: 'correct horse battery staple' } },
        project: { action: 'accept', content: { project: 'ghp_R2d2C3poR2d2C3poR2d2C3poR2d2C3po1234' } },
        extra: { action: 'accept', content: { anything: 1 } },
      },
    });
    await answer(2);
    const sent = received()[1]!.inputResponses as Record<string, { action: string }>;
    expect(Object.keys(sent).sort()).toEqual(['login', 'project']);
    expect(sent.login?.action).toBe('decline');
    expect(sent.project).toEqual({ action: 'cancel' });
    expect(JSON.stringify(received())).not.toContain('battery');
    expect(
      events
        .filter((e) => e.type === 'content.withheld')
        .map((e) => (e as { code: string }).code)
        .sort(),
    ).toEqual(['E_INPUT_NOT_PRESENTED', 'E_SECRET_IN_CONTENT']);
    invariants.expectGuard(guard);
  });
});
