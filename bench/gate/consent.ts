/**
 * "URL navigations with an explicit consent receipt": a scripted session of a real SDK client and
 * server over the in-memory transport, through `guardTransport` and `createElicitationHandler`,
 * with many URL elicitations (nested in `tools/call`, and `-32042` lists presented with
 * `presentUrlElicitationRequired`), some of them malicious, answered accept / decline / cancel.
 * Every call of the opener is checked against the ledger's own acknowledgements: an `accept`
 * consent receipt for that navigation must have been stored before the call.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ElicitRequestSchema, UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { createElicitationHandler, presentUrlElicitationRequired } from '../../src/adapters/sdk/handler.js';
import type { ConsentUi, UrlDecision } from '../../src/adapters/sdk/consent-ui.js';
import { guardTransport } from '../../src/adapters/sdk/transport.js';
import { createGuard, type Guard } from '../../src/core/guard.js';
import { MemoryLedger } from '../../src/ledger/memory.js';
import { seededRandom } from './random.js';
import { recordingLedger, Sequence } from './recording-ledger.js';
import { percent, type GateLine } from './types.js';

const NESTED = 240;
const REQUIREMENTS = 80;
const CONCURRENCY = 8;

interface OpenerCall {
  readonly url: string;
  readonly at: number;
  /** The flows the guard had waiting for this URL to be opened, at the moment of the call. */
  readonly flows: readonly { readonly navigationId: string; readonly consentReceiptId: string | null }[];
}

/** A number in [0, 1) fixed by the seed and a name: the script does not depend on scheduling order. */
function roll(seed: number, name: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) hash = Math.imul(hash ^ name.charCodeAt(i), 0x01000193);
  return seededRandom((seed ^ hash) >>> 0)();
}

/** A URL for elicitation `n`: mostly ordinary sign-in and payment pages, one in ten a phishing URL. */
function urlFor(kind: 'connect' | 'pay', n: number, seed: number): string {
  const roll_ = roll(seed, `${kind}-${n}`);
  if (roll_ < 0.05) return `https://аррӏе.com/signin/${kind}-${n}`;
  if (roll_ < 0.1) return `https://accounts.google.com@session-confirm.net/${kind}-${n}`;
  return kind === 'connect' ? `https://accounts.example.com/connect/${n}` : `https://pay.example.com/checkout/${n}`;
}

function scriptedServer(seed: number) {
  const server = new Server({ name: 'gate-consent-server', version: '1.0.0' }, { capabilities: { tools: {} } });
  const requirementCalls = new Map<number, number>();
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const n = Number(request.params.arguments?.['n']);
    if (request.params.name === 'connect') {
      const elicitationId = `nested-${n}`;
      const result = await server.elicitInput({
        mode: 'url',
        message: `Connect account #${n}`,
        url: urlFor('connect', n, seed),
        elicitationId,
      });
      // Half the accepted flows are reported done by the server, as a real one might.
      if (result.action === 'accept' && n % 2 === 0) await server.createElicitationCompletionNotifier(elicitationId)();
      return { content: [{ type: 'text' as const, text: result.action }] };
    }
    const calls = (requirementCalls.get(n) ?? 0) + 1;
    requirementCalls.set(n, calls);
    if (calls === 1) {
      const entries = 1 + (n % 3);
      throw new UrlElicitationRequiredError(
        Array.from({ length: entries }, (_, j) => ({
          mode: 'url' as const,
          message: `Confirm payment #${n}.${j}`,
          url: urlFor('pay', n * 10 + j, seed),
          elicitationId: `required-${n}-${j}`,
        })),
      );
    }
    return { content: [{ type: 'text' as const, text: `paid #${n}` }] };
  });
  return server;
}

/** The user, scripted: accepts most URLs, declines or dismisses some, decided per elicitation id. */
function scriptedUi(seed: number, decisions: Map<string, UrlDecision>): ConsentUi {
  return {
    async reviewUrl(review) {
      const r = roll(seed, review.elicitationId);
      const decision: UrlDecision = r < 0.7 ? 'accept' : r < 0.85 ? 'decline' : 'cancel';
      decisions.set(review.elicitationId, decision);
      return decision;
    },
    async reviewForm() {
      return { action: 'cancel' };
    },
  };
}

async function pool(tasks: readonly (() => Promise<void>)[], width: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < tasks.length) await tasks[next++]!();
    }),
  );
}

async function settled(guard: Guard, elicitationId: string): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    const state = guard.flow(elicitationId)?.state;
    if (state !== 'OUT_OF_BAND_PENDING') return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

export async function consentLine(seed = 20251125): Promise<GateLine> {
  const sequence = new Sequence();
  const { ledger, writes } = recordingLedger(new MemoryLedger(), sequence);
  const guard = createGuard({ ledger, subject: 'gate-user' });
  const decisions = new Map<string, UrlDecision>();
  const ui = scriptedUi(seed, decisions);
  const calls: OpenerCall[] = [];
  const opener = (url: string): void => {
    const flows = guard.pendingFlows().filter((f) => f.url === url && f.state === 'NAVIGATION_ACCEPTED');
    calls.push({
      url,
      at: sequence.tick(),
      flows: flows.map((f) => ({ navigationId: f.navigationId, consentReceiptId: f.consentReceiptId })),
    });
  };
  const errors: unknown[] = [];
  const options = { opener, ledger, onError: (e: unknown) => errors.push(e) };

  const server = scriptedServer(seed);
  const client = new Client({ name: 'gate-host', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
  client.setRequestHandler(ElicitRequestSchema, createElicitationHandler(guard, ui, options));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(guardTransport(clientSide, guard));

  let presented = 0;
  const nested: (() => Promise<void>)[] = [];
  const required: (() => Promise<void>)[] = [];
  for (let n = 0; n < NESTED; n++)
    nested.push(async () => void (await client.callTool({ name: 'connect', arguments: { n } }).catch(() => undefined)));
  for (let n = 0; n < REQUIREMENTS; n++) {
    required.push(async () => {
      const error = await client.callTool({ name: 'pay', arguments: { n } }).then(
        () => null,
        (e: unknown) => e,
      );
      if (!(error instanceof UrlElicitationRequiredError)) return;
      presented += error.elicitations.length;
      const outcome = await presentUrlElicitationRequired(guard, ui, error, options);
      if (outcome !== 'accepted') return;
      // The user says they finished in the browser ("I have finished"), then the host retries once.
      for (const entry of error.elicitations) {
        await settled(guard, entry.elicitationId);
        guard.confirmFlow(entry.elicitationId);
      }
      await client.callTool({ name: 'pay', arguments: { n } }).catch(() => undefined);
    });
  }
  // The two lineages interleaved, so nested and -32042 flows are in progress at the same time.
  const tasks: (() => Promise<void>)[] = [];
  for (let i = 0; i < Math.max(nested.length, required.length); i++)
    tasks.push(...nested.slice(3 * i, 3 * i + 3), ...required.slice(i, i + 1));
  await pool(tasks, CONCURRENCY);
  await guard.flush();
  await client.close();

  const consents = writes.filter((w) => w.kind === 'consent');
  let withReceipt = 0;
  const problems: string[] = [];
  for (const call of calls) {
    const [flow, ...others] = call.flows;
    const receipt =
      flow === undefined
        ? undefined
        : consents.find(
            (w) =>
              w.row.navigationId === flow.navigationId &&
              w.row.decision === 'accept' &&
              w.row.id === flow.consentReceiptId &&
              w.storedAt < call.at,
          );
    if (flow !== undefined && others.length === 0 && receipt !== undefined) withReceipt++;
    else problems.push(`opened without a prior accept receipt: ${call.url}`);
  }
  const accepted = [...decisions.values()].filter((d) => d === 'accept').length;
  const declined = [...decisions.values()].filter((d) => d === 'decline').length;
  const cancelled = [...decisions.values()].filter((d) => d === 'cancel').length;
  const urlsOpened = new Set(calls.map((c) => c.url)).size;
  // Every URL the user accepted was opened, exactly once, and nothing else was.
  const consistent = calls.length === accepted && urlsOpened === calls.length;
  if (!consistent) problems.push(`${accepted} accepted by the user, ${calls.length} opener calls for ${urlsOpened} URLs`);
  return {
    name: 'URL navigations with a consent receipt',
    measured: `${withReceipt}/${calls.length} = ${percent(withReceipt, calls.length)}`,
    threshold: '= 100 %',
    pass: calls.length > 0 && withReceipt === calls.length && consistent,
    notes: [
      `${NESTED} nested elicitations + ${REQUIREMENTS} -32042 answers (${presented} entries) over SDK client/server; the user ` +
        `saw ${decisions.size}: ${accepted} accepted, ${declined} declined, ${cancelled} cancelled; the rest were refused by ` +
        `the guard (phishing URLs) or not shown after the user refused an earlier entry of the same list`,
      `${consents.length} consent receipts stored, ${calls.length} opener calls, ${errors.length} handler errors`,
      ...problems.slice(0, 10),
    ],
  };
}
