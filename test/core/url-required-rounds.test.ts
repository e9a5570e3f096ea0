/**
 * The 2025-11-25 chain of -32042 answers, bounded like the 2026-07-28 rounds: a server that
 * answers every retry of the same original with a fresh -32042 reaches the host only
 * `retry.maxUrlRequiredRounds` times (default 5, the MCP Inspector's cap); the retry after that is
 * refused with E_RETRY_EXHAUSTED, and a server that sends the same URL again is reported as a loop.
 */
import { describe, expect, it } from 'vitest';
import type { GuardEvent } from '../../src/core/events.js';
import { createGuard } from '../../src/core/guard.js';
import { handshake } from '../helpers/session.js';

const URL_A = 'https://github.com/login/oauth/authorize?client_id=Iv1.8a61f9b3a7aba766&state=round';
const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'deploy', arguments: { env: 'prod' } } });
const required = (id: number, elicitationId: string, url: string) => ({
  jsonrpc: '2.0',
  id,
  error: {
    code: -32042,
    message: 'URL elicitation required',
    data: { elicitations: [{ mode: 'url', elicitationId, url, message: 'Connect GitHub' }] },
  },
});

function loop(policy: Record<string, unknown> | undefined, rounds: number, sameUrl: boolean) {
  const events: GuardEvent[] = [];
  const guard = createGuard({ policy, onEvent: (e) => events.push(e) });
  handshake(guard, { form: {}, url: {} });
  const reached: number[] = [];
  let refused: Record<string, unknown> | null = null;
  for (let id = 1; id <= rounds; id += 1) {
    const sent = guard.outbound(call(id));
    if (sent.action === 'reply') {
      refused = sent.message as unknown as Record<string, unknown>;
      break;
    }
    reached.push(id);
    const url = sameUrl ? URL_A : `${URL_A}-${id}`;
    expect(guard.inbound(required(id, `e-${id}`, url)).action).toBe('forward');
  }
  return { events, reached, refused };
}

describe('the -32042 chain of one original is bounded', () => {
  it('lets at most 5 rounds reach the server by default, then refuses with E_RETRY_EXHAUSTED', () => {
    const { reached, refused, events } = loop(undefined, 20, false);
    expect(reached).toEqual([1, 2, 3, 4, 5]);
    expect(refused).toMatchObject({ id: 6, error: { data: { code: 'E_RETRY_EXHAUSTED' } } });
    expect(events.filter((e) => e.type === 'retry.refused')).toMatchObject([{ code: 'E_RETRY_EXHAUSTED' }]);
    expect(events.some((e) => e.type === 'url-required.loop')).toBe(false);
  });

  it('follows the policy bound', () => {
    expect(loop({ retry: { maxUrlRequiredRounds: 2 } }, 20, false).reached).toEqual([1, 2]);
  });

  it('reports a server that sends the same URL again as a loop, once per repeated round', () => {
    const { events, reached } = loop(undefined, 20, true);
    expect(reached).toHaveLength(5);
    const loops = events.filter((e): e is Extract<GuardEvent, { type: 'url-required.loop' }> => e.type === 'url-required.loop');
    expect(loops.map((e) => e.round)).toEqual([2, 3, 4, 5]);
    expect(loops[0]).toMatchObject({ repeated: 1, hosts: ['github.com'] });
    // The loop event names the host, never the URL's query.
    expect(JSON.stringify(loops)).not.toContain('state=round');
  });
});
