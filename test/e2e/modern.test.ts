/**
 * Spec 2026-07-28 end to end: a real SDK v2 `Client` and the real v2 fixture server
 * (`McpServer` behind the SDK's era-selecting entry), in memory and as a stdio child process, the
 * client's transport wrapped by the guard. What the server reports in `structuredContent.got` is
 * what really reached it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createElicitationHandler } from '../../src/adapters/sdk/handler.js';
import { functionOpener } from '../../src/adapters/sdk/opener.js';
import { guardTransport } from '../../src/adapters/sdk/transport.js';
import type { ConsentUi } from '../../src/adapters/sdk/consent-ui.js';
import type { GuardEvent } from '../../src/core/events.js';
import { createGuard, type GuardOptions } from '../../src/core/guard.js';
import { MemoryLedger } from '../../src/ledger/memory.js';
import { GuardMetaKey } from '../../src/protocol/wire.js';
import { MODERN_URLS } from '../../fixtures/servers/modern-server.js';
import { Client, clientOptions, serveInMemory, stdioTransport, type Era, type WireLine } from '../helpers/modern.js';

type Got = Record<string, { action: string; content?: Record<string, unknown>; _meta?: Record<string, unknown> }>;
type Report = { got: Got | null; runs: number; rounds: number };

const TOKEN = 'ghp_R2d2C3poR2d2C3poR2d2C3poR2d2C3po1234';
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
});

interface World {
  readonly client: Client;
  readonly events: GuardEvent[];
  readonly guard: ReturnType<typeof createGuard>;
  /** What the server received (in memory only; over stdio the server's report is the evidence). */
  readonly wire: WireLine[];
  readonly seen: Record<string, unknown>[];
  readonly opened: string[];
  call(tool: string): Promise<Report>;
}

type Transport = 'in-memory' | 'stdio';

/** A guarded v2 host. `ui` answers through createElicitationHandler; without it a bare handler answers `answer`. */
async function world(
  transport: Transport,
  era: Era,
  options: { guard?: GuardOptions; ui?: ConsentUi; answer?: Record<string, unknown>; elicitation?: Record<string, object> } = {},
): Promise<World> {
  const events: GuardEvent[] = [];
  const guard = createGuard({ server: 'fixture', ...options.guard, onEvent: (e) => events.push(e) });
  const seen: Record<string, unknown>[] = [];
  const opened: string[] = [];
  const client = new Client({ name: 'test-host', version: '1.0.0' }, clientOptions(era, options.elicitation));
  if (options.ui !== undefined) {
    const handler = createElicitationHandler(guard, options.ui, { opener: functionOpener((url) => void opened.push(url)), openGraceMs: 0 });
    client.setRequestHandler('elicitation/create', async (request, ctx) => {
      seen.push(request.params as Record<string, unknown>);
      return handler(request, ctx);
    });
  } else {
    client.setRequestHandler('elicitation/create', async (request) => {
      seen.push(request.params as Record<string, unknown>);
      return request.params.mode === 'url'
        ? { action: 'accept' }
        : { action: 'accept', content: (options.answer ?? { project: 'demo' }) as Record<string, string> };
    });
  }
  let wire: WireLine[] = [];
  if (transport === 'in-memory') {
    const served = serveInMemory();
    wire = served.wire;
    await client.connect(guardTransport(served.clientSide, guard));
    closers.push(() => served.close());
  } else {
    await client.connect(guardTransport(stdioTransport(), guard));
  }
  closers.push(() => client.close());
  return {
    client,
    events,
    guard,
    wire,
    seen,
    opened,
    call: async (tool) => (await client.callTool({ name: tool, arguments: {} })).structuredContent as unknown as Report,
  };
}

/** Each flow's last state, by navigation id, from the flow events. */
function finalStates(events: GuardEvent[]): string[] {
  const last = new Map<string, string>();
  for (const e of events) if (e.type === 'flow.transition') last.set(e.navigation, e.to);
  return [...last.values()];
}

const refusedWith = (events: GuardEvent[], code: string) => events.filter((e) => e.type === 'elicitation.refused' && e.code === code);

/** Accepts URLs and forms (with `content`), as a user would in the host's UI. */
function acceptingUi(content: Record<string, unknown> = { project: 'demo' }): ConsentUi & { urls: string[] } {
  const urls: string[] = [];
  return {
    urls,
    async reviewUrl(review) {
      urls.push(review.url);
      return 'accept';
    },
    async reviewForm() {
      return { action: 'accept', content: content as Record<string, string> };
    },
  };
}

describe.each(['in-memory', 'stdio'] as const)('a guarded SDK v2 host in the 2026-07-28 era (%s)', (transport) => {
  const timeout = transport === 'stdio' ? 60_000 : 10_000;

  it(
    'refuses a password form: the host never sees it, the server gets decline with the guard code',
    async () => {
      const w = await world(transport, 'modern');
      const report = await w.call('login_form');
      expect(w.seen).toEqual([]);
      expect(report.got?.login).toMatchObject({ action: 'decline', _meta: { [GuardMetaKey.refusal]: { code: 'E_SENSITIVE_FIELD' } } });
      expect(refusedWith(w.events, 'E_SENSITIVE_FIELD')).toMatchObject([{ inputKey: 'login', mode: 'form' }]);
      expect(w.guard.session().era).toBe('modern');
    },
    timeout,
  );

  it(
    'refuses an API-key form',
    async () => {
      const w = await world(transport, 'modern');
      const report = await w.call('api_key_form');
      expect(w.seen).toEqual([]);
      expect(report.got?.key?.action).toBe('decline');
      expect(refusedWith(w.events, 'E_SENSITIVE_FIELD')).toHaveLength(1);
    },
    timeout,
  );

  it(
    'delivers an ordinary form with the audit, and the checked answer reaches the server',
    async () => {
      const w = await world(transport, 'modern', { answer: { project: 'demo', replicas: 2 } });
      const report = await w.call('ordinary_form');
      expect(w.seen).toHaveLength(1);
      expect((w.seen[0]!._meta as Record<string, unknown>)[GuardMetaKey.formAudit]).toMatchObject({ verdict: 'allow' });
      expect(report.got).toEqual({ project: { action: 'accept', content: { project: 'demo', replicas: 2 } } });
      expect(w.events.some((e) => e.type === 'elicitation.forwarded' && e.inputKey === 'project')).toBe(true);
    },
    timeout,
  );

  it(
    'refuses a homograph URL and a URL carrying an access token before the host sees them',
    async () => {
      const w = await world(transport, 'modern');
      expect((await w.call('homograph_url')).got?.pay?.action).toBe('decline');
      expect((await w.call('token_url')).got?.connect?.action).toBe('decline');
      expect(w.seen).toEqual([]);
      expect(refusedWith(w.events, 'E_URL_BLOCKED').map((e) => (e as { inputKey?: string }).inputKey)).toEqual(['pay', 'connect']);
      // The token never reaches an event.
      expect(JSON.stringify(w.events)).not.toContain(TOKEN);
    },
    timeout,
  );

  it(
    'takes a legitimate OAuth URL through review, a durable consent receipt and the opener, once',
    async () => {
      const ledger = new MemoryLedger();
      const ui = acceptingUi();
      const w = await world(transport, 'modern', { guard: { ledger }, ui });
      const report = await w.call('oauth_url');
      expect(ui.urls).toEqual([MODERN_URLS.oauth]);
      expect(w.opened).toEqual([MODERN_URLS.oauth]);
      expect(report.got).toEqual({ github: { action: 'accept' } });
      // SDK v2 hands the handler the embedded params without their _meta: the guard's record is the link.
      expect(finalStates(w.events)).toEqual(['ORIGINAL_RESPONSE_ACCEPTED']);
      expect(w.guard.pendingFlows()).toEqual([]);
      const consents = w.events.filter((e) => e.type === 'receipt.consent');
      expect(consents).toMatchObject([{ decision: 'accept' }]);
      expect(w.events.filter((e) => e.type === 'receipt.business')).toMatchObject([{ lineage: 'input-required' }]);
      expect(await ledger.listConsentReceipts((consents[0] as { navigation: string }).navigation)).toHaveLength(1);
    },
    timeout,
  );

  it(
    'never lets a secret-shaped answer in an ordinary field reach the server',
    async () => {
      const w = await world(transport, 'modern', { answer: { note: `deploy with ${TOKEN}` } });
      const report = await w.call('note_form');
      expect(report.got).toEqual({ note: { action: 'cancel' } });
      expect(JSON.stringify(report)).not.toContain(TOKEN);
      expect(w.events.filter((e) => e.type === 'content.withheld')).toMatchObject([
        { code: 'E_SECRET_IN_CONTENT', inputKey: 'note', fields: ['note'] },
      ]);
    },
    timeout,
  );

  it(
    'narrows the capabilities on every request and refuses a URL step the server was never told about',
    async () => {
      const w = await world(transport, 'modern', { guard: { policy: { url: { enabled: false } } } });
      // The SDK v2 server reads the narrowed per-request capabilities and does not even ask.
      await expect(w.call('oauth_url')).rejects.toThrow(/do not declare the required capability/);
      expect(w.seen).toEqual([]);
      if (transport === 'in-memory') {
        const sent = w.wire.filter((l) => l.dir === 'C->S' && typeof l.message.method === 'string');
        expect(sent.map((l) => l.message.method)).toEqual(['server/discover', 'tools/call']);
        for (const line of sent) {
          const meta = (line.message.params as { _meta: Record<string, unknown> })._meta;
          expect(meta['io.modelcontextprotocol/clientCapabilities']).toEqual({ elicitation: { form: {} } });
        }
      }
      expect(w.events.filter((e) => e.type === 'capabilities.narrowed')).toHaveLength(1);
    },
    timeout,
  );

  it(
    'follows a multi-round chain: a URL step, a "not done yet" round, a form, then complete, accepted once',
    async () => {
      const ui = acceptingUi({ project: 'shop-api' });
      const w = await world(transport, 'modern', { ui });
      const report = await w.call('connect_then_confirm');
      expect(report).toMatchObject({ got: { project: { action: 'accept', content: { project: 'shop-api' } } }, runs: 1, rounds: 3 });
      expect(w.opened).toEqual([MODERN_URLS.oauth]);
      const moves = w.events
        .filter((e): e is Extract<GuardEvent, { type: 'flow.transition' }> => e.type === 'flow.transition')
        .map((e) => e.to);
      expect(moves).toEqual([
        'USER_REVIEW',
        'NAVIGATION_ACCEPTED',
        'OUT_OF_BAND_PENDING',
        'REQUIREMENT_VERIFIED',
        'NESTED_SERVER_CONTINUES',
        'ORIGINAL_RESPONSE_ACCEPTED',
      ]);
      expect(finalStates(w.events)).toEqual(['ORIGINAL_RESPONSE_ACCEPTED']);
      expect(w.guard.metrics()).toMatchObject({ originalOperationsAccepted: 1, maxAcceptancesPerLineage: 1 });
    },
    timeout,
  );
});

/**
 * A host that speaks raw JSON-RPC through the guard (a proxy host, or a buggy one): sends what it
 * likes and reads what the guard delivers.
 */
async function rawHost(transport: Transport, guardOptions: GuardOptions = {}) {
  const events: GuardEvent[] = [];
  const guard = createGuard({ ...guardOptions, onEvent: (e) => events.push(e) });
  const inner = transport === 'in-memory' ? serveInMemory() : null;
  const wrapped = guardTransport(inner === null ? stdioTransport() : inner.clientSide, guard);
  const inbox: Record<string, unknown>[] = [];
  const waiters: { id: unknown; resolve: (m: Record<string, unknown>) => void }[] = [];
  wrapped.onmessage = (message: unknown) => {
    const m = message as Record<string, unknown>;
    inbox.push(m);
    const i = waiters.findIndex((w) => w.id === m.id);
    if (i >= 0) waiters.splice(i, 1)[0]!.resolve(m);
  };
  await wrapped.start();
  closers.push(async () => {
    await wrapped.close();
    await inner?.close();
  });
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw-host', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {}, url: {} }, sampling: {} },
  };
  const answerTo = (id: number) => {
    const found = inbox.find((m) => m.id === id);
    return found !== undefined ? Promise.resolve(found) : new Promise<Record<string, unknown>>((resolve) => waiters.push({ id, resolve }));
  };
  const call = (id: number, name: string, extra: Record<string, unknown> = {}) =>
    wrapped.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {}, ...extra, _meta: meta } });
  return { guard, events, call, answerTo, inner };
}

describe.each(['in-memory', 'stdio'] as const)('a raw 2026-07-28 host through the guard (%s)', (transport) => {
  const timeout = transport === 'stdio' ? 60_000 : 10_000;

  it(
    'refuses a re-sent completed round before it reaches the server: the operation ran once',
    async () => {
      const h = await rawHost(transport);
      await h.call(1, 'ordinary_form');
      const round = (await h.answerTo(1)).result as Record<string, unknown>;
      expect(round.resultType).toBe('input_required');
      const retry = { inputResponses: { project: { action: 'accept', content: { project: 'demo' } } }, requestState: round.requestState };
      await h.call(2, 'ordinary_form', retry);
      expect(((await h.answerTo(2)).result as { structuredContent: Report }).structuredContent.runs).toBe(1);
      await h.call(3, 'ordinary_form', retry);
      expect(await h.answerTo(3)).toMatchObject({ error: { data: { code: 'E_ALREADY_ACCEPTED' } } });
    },
    timeout,
  );

  it(
    'accepts the final answer of an operation with a URL step once, with one business receipt',
    async () => {
      const h = await rawHost(transport);
      await h.call(1, 'oauth_url');
      const round = (await h.answerTo(1)).result as Record<string, unknown>;
      const retry = { inputResponses: { github: { action: 'accept' } }, requestState: round.requestState };
      await h.call(2, 'oauth_url', retry);
      expect(((await h.answerTo(2)).result as { structuredContent: Report }).structuredContent).toMatchObject({
        runs: 1,
        got: { github: { action: 'accept' } },
      });
      await h.call(3, 'oauth_url', retry);
      expect(await h.answerTo(3)).toMatchObject({ error: { data: { code: 'E_ALREADY_ACCEPTED' } } });
      expect(h.events.filter((e) => e.type === 'receipt.business')).toMatchObject([{ lineage: 'input-required', retryGeneration: 1 }]);
      // The host answered on the wire: that answer is its consent, recorded before the retry left.
      expect(h.events.filter((e) => e.type === 'receipt.consent')).toMatchObject([{ decision: 'accept' }]);
    },
    timeout,
  );

  it(
    'refuses a retry while the previous round is still in flight',
    async () => {
      const h = await rawHost(transport);
      await h.call(1, 'ordinary_form');
      const round = (await h.answerTo(1)).result as Record<string, unknown>;
      const retry = { inputResponses: { project: { action: 'accept', content: { project: 'demo' } } }, requestState: round.requestState };
      await h.call(2, 'ordinary_form', retry);
      await h.call(3, 'ordinary_form', retry);
      expect(await h.answerTo(3)).toMatchObject({ error: { data: { code: 'E_RETRY_WHILE_IN_FLIGHT' } } });
      expect(((await h.answerTo(2)).result as { structuredContent: Report }).structuredContent.runs).toBe(1);
    },
    timeout,
  );

  it(
    'lets the user cancel the operation by hand: the server gets cancel, and the chain ends',
    async () => {
      const h = await rawHost(transport);
      await h.call(1, 'connect_then_confirm');
      const round = (await h.answerTo(1)).result as {
        inputRequests: Record<string, { params: { _meta: Record<string, unknown> } }>;
        requestState: string;
      };
      const flowId = round.inputRequests.github!.params._meta[GuardMetaKey.flow] as string;
      expect(h.guard.pendingFlows().map((f) => f.state)).toEqual(['USER_REVIEW']);
      h.guard.cancelFlow(flowId);
      // The host answers accept anyway (a stale UI): the server is told cancel.
      await h.call(2, 'connect_then_confirm', { inputResponses: { github: { action: 'accept' } }, requestState: round.requestState });
      const ended = await h.answerTo(2);
      expect(ended).toMatchObject({ error: { data: { code: 'E_RETRY_NOT_ELIGIBLE' } } });
      expect(h.guard.flow(flowId)?.state).toBe('CANCELLED');
    },
    timeout,
  );

  it(
    'drops an answer for a key the guard never presented, and supplies decline for a refused one',
    async () => {
      const h = await rawHost(transport);
      await h.call(1, 'two_keys');
      const round = (await h.answerTo(1)).result as {
        inputRequests: Record<string, unknown>;
        requestState: string;
        _meta: Record<string, unknown>;
      };
      expect(Object.keys(round.inputRequests)).toEqual(['project']);
      expect(round._meta[GuardMetaKey.refusedInputs]).toMatchObject([{ key: 'login', code: 'E_SENSITIVE_FIELD' }]);
      await h.call(2, 'two_keys', {
        inputResponses: {
          login: { action: 'accept', content: { username: 'a', password: 'hunter2hunter2' } },
          project: { action: 'accept', content: { project: 'demo' } },
          injected: { action: 'accept' },
        },
        requestState: round.requestState,
      });
      const report = ((await h.answerTo(2)).result as { structuredContent: Report }).structuredContent;
      expect(Object.keys(report.got ?? {}).sort()).toEqual(['login', 'project']);
      expect(report.got?.login).toMatchObject({ action: 'decline' });
      expect(JSON.stringify(report)).not.toContain('hunter2');
    },
    timeout,
  );

  it(
    'passes a sampling input request and its answer as they are',
    async () => {
      const h = await rawHost(transport);
      await h.call(1, 'sampling_round');
      const round = (await h.answerTo(1)).result as {
        inputRequests: Record<string, { method: string; params: Record<string, unknown> }>;
        requestState: string;
      };
      expect(round.inputRequests.summary).toMatchObject({ method: 'sampling/createMessage', params: { maxTokens: 50 } });
      const answer = { role: 'assistant', content: { type: 'text', text: 'Summary.' }, model: 'm' };
      await h.call(2, 'sampling_round', { inputResponses: { summary: answer }, requestState: round.requestState });
      expect(((await h.answerTo(2)).result as { structuredContent: Report }).structuredContent.got).toEqual({ summary: answer });
    },
    timeout,
  );

  it(
    'bounds the rounds of an operation that asks for input forever (E_RETRY_EXHAUSTED)',
    async () => {
      const h = await rawHost(transport, { policy: { retry: { maxRounds: 3 } } });
      let state: unknown;
      await h.call(1, 'endless');
      for (let id = 2; id <= 4; id += 1) {
        state = ((await h.answerTo(id - 1)).result as { requestState: string }).requestState;
        await h.call(id, 'endless', { inputResponses: { again: { action: 'accept', content: { project: 'p' } } }, requestState: state });
      }
      state = ((await h.answerTo(4)).result as { requestState: string }).requestState;
      await h.call(5, 'endless', { inputResponses: { again: { action: 'accept', content: { project: 'p' } } }, requestState: state });
      expect(await h.answerTo(5)).toMatchObject({ error: { data: { code: 'E_RETRY_EXHAUSTED' } } });
    },
    timeout,
  );
});

describe('SDK v2 host in the 2025-11-25 era, against the v2 server legacy shim', () => {
  it.each(['in-memory', 'stdio'] as const)(
    'gets the same protections (%s)',
    async (transport) => {
      const w = await world(transport, 'legacy', { answer: { note: `deploy with ${TOKEN}` } });
      const call = (tool: string) => w.client.callTool({ name: tool, arguments: {} });
      expect(w.guard.session().era).toBe('legacy');
      // The shim turned the input request into a real elicitation/create; the guard refused it with
      // a JSON-RPC error, and the server's tool result says so.
      const login = await call('login_form');
      expect(login.isError).toBe(true);
      expect(JSON.stringify(login.content)).toContain('sensitive data: password');
      await call('api_key_form');
      await call('homograph_url');
      await call('token_url');
      expect(w.seen).toEqual([]);
      expect(refusedWith(w.events, 'E_SENSITIVE_FIELD')).toHaveLength(2);
      expect(refusedWith(w.events, 'E_URL_BLOCKED')).toHaveLength(2);
      const note = (await call('note_form')).structuredContent as unknown as Report;
      expect(note.got).toEqual({ note: { action: 'cancel' } });
      expect(w.events.filter((e) => e.type === 'content.withheld')).toHaveLength(1);
      expect(JSON.stringify(w.events)).not.toContain(TOKEN);
    },
    60_000,
  );

  it('narrows the handshake capabilities and takes the OAuth URL and the multi-round chain through the handler', async () => {
    const ui = acceptingUi({ project: 'shop-api' });
    const w = await world('in-memory', 'legacy', { ui });
    const report = await w.call('connect_then_confirm');
    expect(report.got).toEqual({ project: { action: 'accept', content: { project: 'shop-api' } } });
    expect(w.opened).toEqual([MODERN_URLS.oauth]);
    const narrowed = await world('in-memory', 'legacy', { guard: { policy: { url: { enabled: false } } } });
    expect(narrowed.wire.find((l) => l.message.method === 'initialize')?.message.params).toMatchObject({
      capabilities: { elicitation: { form: {} } },
    });
    expect(
      (narrowed.wire.find((l) => l.message.method === 'initialize')?.message.params as { capabilities: { elicitation: object } })
        .capabilities.elicitation,
    ).not.toHaveProperty('url');
  }, 30_000);
});
