/**
 * "Expired flows recoverable by hand": URL flows (standalone elicitations and `-32042` entries)
 * are opened, no completion notice ever comes, and the clock passes their time to live. Each must
 * be listed by `pendingFlows()` as EXPIRED and come back by hand (`retryFlow`, then `confirmFlow`),
 * with the ledger agreeing; a `-32042` one must then let the host's retry through.
 */
import { consentAndOpen, expectAction, openedFlow, simulatedGuard } from './sim.js';
import { percent, type GateLine } from './types.js';

const STANDALONE = 150;
const REQUIRED = 150;
const VERIFIED = new Set(['REQUIREMENT_VERIFIED', 'ERROR_RETRY_ELIGIBLE']);

const callTool = (id: number, n: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'pay', arguments: { n } } });

export async function expiryLine(seed = 11): Promise<GateLine> {
  const sim = simulatedGuard(seed);
  const { guard, ledger } = sim;
  const ids: string[] = [];
  for (let i = 0; i < STANDALONE; i++) {
    ids.push(`alone-${i}`);
    await openedFlow(sim, 200_000 + i, `alone-${i}`, `https://accounts.example.com/connect/${i}`);
    sim.now += 1000;
  }
  for (let i = 0; i < REQUIRED; i++) {
    const id = `required-${i}`;
    ids.push(id);
    expectAction(guard.outbound(callTool(300_000 + i, i)), 'forward', `tools/call ${i}`);
    const error = {
      jsonrpc: '2.0',
      id: 300_000 + i,
      error: {
        code: -32042,
        message: 'URL elicitation required',
        data: {
          elicitations: [{ mode: 'url', elicitationId: id, url: `https://pay.example.com/checkout/${i}`, message: `Confirm payment ${i}` }],
        },
      },
    };
    expectAction(guard.inbound(error), 'forward', `-32042 for ${i}`);
    await consentAndOpen(sim, id);
    sim.now += 1000;
  }

  // No notice ever comes; the time to live passes for every flow.
  sim.now += guard.policy.completion.ttlSeconds * 1000 + 1;
  const expired = guard.pendingFlows().filter((f) => f.state === 'EXPIRED' && ids.includes(f.elicitationId));
  await guard.flush();

  let recovered = 0;
  const problems: string[] = [];
  for (const flow of expired) {
    const id = flow.elicitationId;
    try {
      guard.retryFlow(id);
      const after = guard.confirmFlow(id);
      await guard.flush();
      const stored = await ledger.getNavigation(flow.navigationId);
      let ok = VERIFIED.has(after.state) && stored?.flow.state === after.state;
      if (ok && id.startsWith('required-')) {
        // The original request, taken up again by hand, may now be retried.
        const n = Number(id.slice('required-'.length));
        ok = guard.outbound(callTool(400_000 + n, n)).action === 'forward';
      }
      if (ok) recovered++;
      else problems.push(`${id}: ${after.state}, ledger ${stored?.flow.state ?? 'missing'}`);
    } catch (error) {
      problems.push(`${id}: ${(error as Error).message}`);
    }
  }
  return {
    name: 'expired flows recovered by hand',
    measured: `${recovered}/${expired.length} = ${percent(recovered, expired.length)}`,
    threshold: '= 100 %',
    pass: expired.length === ids.length && recovered === expired.length,
    notes: [
      `${ids.length} opened flows (${STANDALONE} standalone, ${REQUIRED} -32042), ${expired.length} listed EXPIRED after the ` +
        `TTL; retryFlow + confirmFlow, ledger state checked, -32042 retries let through`,
      ...problems.slice(0, 10),
    ],
  };
}
