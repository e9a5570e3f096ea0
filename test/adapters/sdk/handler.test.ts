import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ElicitResultSchema,
  UrlElicitationRequiredError,
  type ElicitRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createElicitationHandler, pendingFlowControls, presentUrlElicitationRequired } from '../../../src/adapters/sdk/handler.js';
import { createGuard } from '../../../src/core/guard.js';
import { MemoryLedger } from '../../../src/ledger/index.js';
import { GuardMetaKey } from '../../../src/protocol/wire.js';
import { handshake, urlRequest } from '../../helpers/session.js';
import { connectWithHandler, scriptedUi, SERVER_INFO } from './harness.js';

const SIGN_IN =
  'https://github.com/login/oauth/authorize?client_id=Iv1.8a61f9b3a7aba766&state=9d1f7c2b&' +
  'code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256';
const PAY = 'https://checkout.stripe.com/c/pay/cs_test_a1b2c3';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

function urlParams(elicitationId: string, url = SIGN_IN, message = 'Sign in to GitHub so I can list your repositories') {
  return { mode: 'url' as const, message, url, elicitationId };
}

async function setup(
  ui: Parameters<typeof connectWithHandler>[1],
  options: Parameters<typeof connectWithHandler>[2] = {},
  configureServer?: (server: Server) => void,
) {
  const ledger = new MemoryLedger();
  const guard = createGuard({ ledger, server: 'github' });
  // The ledger option makes the handler read each accept receipt back before opening.
  const connected = await connectWithHandler(guard, ui, { ledger, ...options }, configureServer);
  closers.push(connected.close);
  return { ...connected, guard, ledger };
}

describe('URL mode through a real SDK client and server', () => {
  it('on accept: the receipt is durable before the opener runs, the exact URL opens once, the server gets accept without content', async () => {
    let guardRef: ReturnType<typeof createGuard> | null = null;
    let ledgerRef: MemoryLedger | null = null;
    const ui = scriptedUi({
      url: async (review) => {
        // Nothing is recorded as decided while the user is still looking.
        const flow = guardRef!.flow('el-1')!;
        expect(flow.state).toBe('USER_REVIEW');
        expect(await ledgerRef!.listConsentReceipts(flow.navigationId)).toEqual([]);
        expect(review.url).toBe(SIGN_IN);
        return 'accept' as const;
      },
    });
    const seenReceipts: unknown[] = [];
    const opener = vi.fn(async (url: string) => {
      const flow = guardRef!.flow('el-1')!;
      seenReceipts.push(...(await ledgerRef!.listConsentReceipts(flow.navigationId)));
      expect(url).toBe(SIGN_IN);
    });
    const { server, guard, ledger } = await setup(ui, { opener });
    guardRef = guard;
    ledgerRef = ledger;

    const result = await server.request({ method: 'elicitation/create', params: urlParams('el-1') }, ElicitResultSchema);

    expect(result).toEqual({ action: 'accept' });
    expect(opener).toHaveBeenCalledTimes(1);
    expect(opener).toHaveBeenCalledWith(SIGN_IN);
    expect(seenReceipts).toHaveLength(1);
    expect(seenReceipts[0]).toMatchObject({ decision: 'accept' });
    const flow = guard.flow('el-1')!;
    expect(flow.state).toBe('OUT_OF_BAND_PENDING');
    expect(flow.consentReceiptId).toBe((seenReceipts[0] as { id: string }).id);
  });

  it('shows the UI which server asks, the full URL rendered with the domain highlighted, and where it came from', async () => {
    const ui = scriptedUi({ url: () => 'decline' });
    const { server } = await setup(ui, { opener: vi.fn() });
    await server.request({ method: 'elicitation/create', params: urlParams('el-2') }, ElicitResultSchema);
    const review = ui.urlReviews[0]!;
    expect(review.server).toEqual({ key: 'github', name: SERVER_INFO.name, version: SERVER_INFO.version });
    expect(review.message).toBe('Sign in to GitHub so I can list your repositories');
    expect(review.source).toBe('elicitation/create');
    expect(review.elicitationId).toBe('el-2');
    expect(review.analysis.display.registrableDomain).toBe('github.com');
    expect(review.rendered.plain.split('\n')[0]).toBe(SIGN_IN.replace('github.com', '[github.com]'));
    expect(review.rendered.ansi).toContain('\u001b[1;4mgithub.com');
    expect(review.rendered.html).toContain('github.com');
    expect(review.rendered.html).not.toContain('&code_challenge=');
  });

  it.each(['decline', 'cancel'] as const)('on %s: nothing is opened and the server gets %s', async (decision) => {
    const opener = vi.fn();
    const { server, guard, ledger } = await setup(scriptedUi({ url: () => decision }), { opener });
    const result = await server.request({ method: 'elicitation/create', params: urlParams('el-3') }, ElicitResultSchema);
    expect(result).toEqual({ action: decision });
    expect(opener).not.toHaveBeenCalled();
    const flow = guard.flow('el-3')!;
    expect(flow.state).toBe(decision === 'decline' ? 'DECLINED' : 'CANCELLED');
    const receipts = await ledger.listConsentReceipts(flow.navigationId);
    expect(receipts.map((r) => r.decision)).toEqual([decision]);
  });

  it('answers cancel when the opener fails, and reports the error to the host', async () => {
    const onError = vi.fn();
    const opener = vi.fn(async () => {
      throw new Error('no browser on this machine');
    });
    const { server } = await setup(scriptedUi({ url: () => 'accept' }), { opener, onError });
    const result = await server.request({ method: 'elicitation/create', params: urlParams('el-4') }, ElicitResultSchema);
    expect(result).toEqual({ action: 'cancel' });
    expect(opener).toHaveBeenCalledTimes(1);
    expect(onError).toHaveBeenCalledWith(expect.objectContaining({ message: 'no browser on this machine' }));
  });

  it('answers cancel when the consent cannot be recorded, and opens nothing', async () => {
    const opener = vi.fn();
    const onError = vi.fn();
    const { server, guard } = await setup(scriptedUi({ url: () => 'accept' }), { opener, onError });
    vi.spyOn(guard, 'recordConsent').mockRejectedValue(new Error('ledger is gone'));
    const result = await server.request({ method: 'elicitation/create', params: urlParams('el-5') }, ElicitResultSchema);
    expect(result).toEqual({ action: 'cancel' });
    expect(opener).not.toHaveBeenCalled();
    expect(onError).toHaveBeenCalledTimes(1);
  });

  it('opens nothing when the ledger lost the accept receipt (read back through the ledger option)', async () => {
    const ledger = new MemoryLedger();
    ledger.putConsentReceipt = async () => {
      throw new Error('disk full');
    };
    const guard = createGuard({ ledger, server: 'github' });
    const opener = vi.fn();
    const onError = vi.fn();
    const connected = await connectWithHandler(guard, scriptedUi({ url: () => 'accept' }), { opener, onError, ledger });
    closers.push(connected.close);
    const result = await connected.server.request({ method: 'elicitation/create', params: urlParams('el-lost') }, ElicitResultSchema);
    expect(result).toEqual({ action: 'cancel' });
    expect(opener).not.toHaveBeenCalled();
    expect(onError).toHaveBeenCalledWith(expect.objectContaining({ code: 'E_LEDGER_UNAVAILABLE' }));
  });

  it('answers cancel when the UI throws, and takes the flow out of review', async () => {
    const opener = vi.fn();
    const ui = scriptedUi({
      url: () => {
        throw new Error('window closed');
      },
    });
    const { server, guard } = await setup(ui, { opener, onError: () => {} });
    const result = await server.request({ method: 'elicitation/create', params: urlParams('el-6') }, ElicitResultSchema);
    expect(result).toEqual({ action: 'cancel' });
    expect(opener).not.toHaveBeenCalled();
    expect(guard.flow('el-6')!.state).toBe('CANCELLED');
  });

  it('opens nothing when the server withdraws the request while the user reviews, whatever the user answers', async () => {
    const opener = vi.fn();
    const ui = scriptedUi({ url: (review) => new Promise((resolve) => review.signal.addEventListener('abort', () => resolve('accept'))) });
    const { server, guard, ledger } = await setup(ui, { opener });
    // SDK 1.32 ignores a cancellation of request id 0 (`if (!requestId) return`): use up id 0 first.
    await server.ping();
    const withdraw = new AbortController();
    const request = server.request({ method: 'elicitation/create', params: urlParams('el-w') }, ElicitResultSchema, {
      signal: withdraw.signal,
    });
    await vi.waitFor(() => expect(ui.urlReviews).toHaveLength(1));
    withdraw.abort();
    await expect(request).rejects.toThrow();
    await vi.waitFor(() => expect(guard.flow('el-w')!.state).toBe('CANCELLED'));
    expect(opener).not.toHaveBeenCalled();
    expect((await ledger.listConsentReceipts(guard.flow('el-w')!.navigationId)).map((r) => r.decision)).toEqual(['cancel']);
  });

  it('does not hold the answer for an opener that never settles', async () => {
    let release!: () => void;
    const opener = vi.fn(() => new Promise<void>((resolve) => (release = resolve)));
    const { server, guard } = await setup(scriptedUi({ url: () => 'accept' }), { opener, openGraceMs: 5 });
    const result = await server.request({ method: 'elicitation/create', params: urlParams('el-7') }, ElicitResultSchema);
    expect(result).toEqual({ action: 'accept' });
    expect(opener).toHaveBeenCalledWith(SIGN_IN);
    release();
    await vi.waitFor(() => expect(guard.flow('el-7')!.state).toBe('OUT_OF_BAND_PENDING'));
  });

  it('answers the server before asking whether the browser step is done, then confirms the flow', async () => {
    let letUserFinish!: () => void;
    const userFinished = new Promise<void>((resolve) => (letUserFinish = resolve));
    const ui = scriptedUi({
      url: () => 'accept',
      afterOpen: async (flow) => {
        expect(flow.state).toBe('OUT_OF_BAND_PENDING');
        await userFinished;
        return 'finished' as const;
      },
    });
    const { server, guard } = await setup(ui, { opener: vi.fn() });
    const result = await server.request({ method: 'elicitation/create', params: urlParams('el-8') }, ElicitResultSchema);
    // The server has its answer while the user is still in the browser.
    expect(result).toEqual({ action: 'accept' });
    await vi.waitFor(() => expect(ui.followUps).toHaveLength(1));
    expect(guard.flow('el-8')!.state).toBe('OUT_OF_BAND_PENDING');
    letUserFinish();
    await vi.waitFor(() => expect(guard.flow('el-8')!.state).toBe('REQUIREMENT_VERIFIED'));
  });

  it('cancels the flow when the user gives up after opening', async () => {
    const ui = scriptedUi({ url: () => 'accept', afterOpen: () => 'cancel' });
    const { server, guard } = await setup(ui, { opener: vi.fn() });
    await server.request({ method: 'elicitation/create', params: urlParams('el-9') }, ElicitResultSchema);
    await vi.waitFor(() => expect(guard.flow('el-9')!.state).toBe('CANCELLED'));
  });

  it('withdraws the "have you finished" question when the completion notice arrives', async () => {
    let withdrawn = false;
    const ui = scriptedUi({
      url: () => 'accept',
      afterOpen: (_flow, signal) =>
        new Promise((resolve) =>
          signal.addEventListener('abort', () => {
            withdrawn = true;
            resolve('waiting');
          }),
        ),
    });
    const { server, guard } = await setup(ui, { opener: vi.fn(), followUpPollMs: 5 });
    await server.request({ method: 'elicitation/create', params: urlParams('el-10') }, ElicitResultSchema);
    await vi.waitFor(() => expect(ui.followUps).toHaveLength(1));
    await new Promise((r) => setTimeout(r, 20));
    expect(withdrawn).toBe(false);
    await server.notification({ method: 'notifications/elicitation/complete', params: { elicitationId: 'el-10' } });
    await vi.waitFor(() => expect(withdrawn).toBe(true));
    expect(guard.flow('el-10')!.state).toBe('REQUIREMENT_VERIFIED');
  });
});

describe('fail closed outside the guard', () => {
  const request = (params: Record<string, unknown>) => ({ method: 'elicitation/create', params }) as ElicitRequest;

  it('answers cancel to a URL request without the guard analysis in _meta, without asking the user', async () => {
    const ui = scriptedUi({ url: () => 'accept' });
    const opener = vi.fn();
    const handler = createElicitationHandler(createGuard(), ui, { opener });
    expect(await handler(request(urlParams('direct-1')))).toEqual({ action: 'cancel' });
    expect(ui.urlReviews).toHaveLength(0);
    expect(opener).not.toHaveBeenCalled();
  });

  it('answers cancel when the guard analysis was stripped from a request the guard did see', async () => {
    const guard = createGuard();
    handshake(guard, { url: {} });
    const decision = guard.inbound(urlRequest(7, SIGN_IN, 'seen-1'));
    expect(decision.action).toBe('forward');
    const forwarded = (decision as { message: { params: Record<string, unknown> } }).message;
    expect(forwarded.params._meta).toHaveProperty([GuardMetaKey.urlAnalysis]);
    const { _meta: _stripped, ...bare } = forwarded.params;
    const ui = scriptedUi({ url: () => 'accept' });
    const opener = vi.fn();
    const handler = createElicitationHandler(guard, ui, { opener });
    expect(await handler(request(bare))).toEqual({ action: 'cancel' });
    expect(ui.urlReviews).toHaveLength(0);
    expect(opener).not.toHaveBeenCalled();
    // With the analysis in place, the same request is shown.
    expect(await handler(request(forwarded.params))).toEqual({ action: 'accept' });
    expect(opener).toHaveBeenCalledWith(SIGN_IN);
  });

  it('answers cancel to a URL request with a forged analysis the guard never made', async () => {
    const ui = scriptedUi({ url: () => 'accept' });
    const opener = vi.fn();
    const forged = { ...urlParams('direct-2'), _meta: { [GuardMetaKey.urlAnalysis]: { verdict: 'allow', findings: [], display: {} } } };
    const handler = createElicitationHandler(createGuard(), ui, { opener });
    expect(await handler(request(forged))).toEqual({ action: 'cancel' });
    expect(ui.urlReviews).toHaveLength(0);
    expect(opener).not.toHaveBeenCalled();
  });

  it('audits a form itself when _meta has no audit, and never shows one the guard would block', async () => {
    const ui = scriptedUi({ form: (review) => ({ action: 'accept', content: review.defaults }) });
    const handler = createElicitationHandler(createGuard(), ui, { opener: vi.fn() });
    const password = { type: 'object', properties: { password: { type: 'string', title: 'Password' } }, required: ['password'] };
    expect(await handler(request({ mode: 'form', message: 'Log in', requestedSchema: password }))).toEqual({ action: 'cancel' });
    expect(ui.formReviews).toHaveLength(0);
    const city = { type: 'object', properties: { city: { type: 'string', default: 'Lyon' } } };
    expect(await handler(request({ message: 'Where?', requestedSchema: city }))).toEqual({ action: 'accept', content: { city: 'Lyon' } });
    expect(ui.formReviews[0]!.audit.verdict).toBe('allow');
  });
});

const PROJECT_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Project name', minLength: 1, maxLength: 40, default: 'demo' },
    size: { type: 'integer', title: 'Team size', minimum: 1, maximum: 10, default: 3 },
    visibility: {
      type: 'string',
      title: 'Visibility',
      oneOf: [
        { const: 'private', title: 'Only me' },
        { const: 'public', title: 'Everyone' },
      ],
      default: 'private',
    },
    email: { type: 'string', format: 'email', title: 'Contact email' },
  },
  required: ['name'],
} as const;

describe('form mode through a real SDK client and server', () => {
  it('pre-fills the defaults, lets the user change one, and sends the reviewed answer', async () => {
    const ui = scriptedUi({ form: (review) => ({ action: 'accept', content: { ...review.defaults, size: 5 } }) });
    const { server } = await setup(ui);
    const result = await server.request(
      { method: 'elicitation/create', params: { mode: 'form', message: 'New project', requestedSchema: PROJECT_SCHEMA } },
      ElicitResultSchema,
    );
    expect(result).toEqual({ action: 'accept', content: { name: 'demo', size: 5, visibility: 'private' } });
    const review = ui.formReviews[0]!;
    expect(review.defaults).toEqual({ name: 'demo', size: 3, visibility: 'private' });
    expect(review.server).toEqual({ key: 'github', name: SERVER_INFO.name, version: SERVER_INFO.version });
    expect(review.message).toBe('New project');
    expect(review.fields.map((f) => [f.name, f.required, f.class])).toEqual([
      ['name', true, 'ordinary'],
      ['size', false, 'ordinary'],
      ['visibility', false, 'ordinary'],
      ['email', false, 'personal'],
    ]);
    expect(review.fields[2]!.options).toEqual([
      { value: 'private', title: 'Only me' },
      { value: 'public', title: 'Everyone' },
    ]);
    // The guard's own audit arrives through _meta: the personal-data warning is there to show.
    expect(review.audit.findings.map((f) => f.code)).toContain('W_PERSONAL_FIELD');
  });

  it.each(['decline', 'cancel'] as const)('passes a %s on to the server', async (action) => {
    const ui = scriptedUi({ form: () => ({ action }) });
    const { server } = await setup(ui);
    const result = await server.request(
      { method: 'elicitation/create', params: { mode: 'form', message: 'New project', requestedSchema: PROJECT_SCHEMA } },
      ElicitResultSchema,
    );
    expect(result).toEqual({ action });
  });

  it('lets the guard withhold an answer that does not fit the schema', async () => {
    const ui = scriptedUi({ form: () => ({ action: 'accept', content: { name: 'demo', size: 50 } }) });
    const { server } = await setup(ui);
    const result = await server.request(
      { method: 'elicitation/create', params: { mode: 'form', message: 'New project', requestedSchema: PROJECT_SCHEMA } },
      ElicitResultSchema,
    );
    expect(result).toEqual({ action: 'cancel' });
  });
});

describe('presentUrlElicitationRequired with a tool that throws UrlElicitationRequiredError', () => {
  const REQUIRED = [
    { mode: 'url' as const, message: 'Sign in to GitHub', url: SIGN_IN, elicitationId: 'req-1' },
    { mode: 'url' as const, message: 'Confirm the payment', url: PAY, elicitationId: 'req-2' },
  ];

  function payTool(server: Server) {
    let calls = 0;
    server.setRequestHandler(CallToolRequestSchema, async () => {
      calls += 1;
      if (calls === 1) throw new UrlElicitationRequiredError(REQUIRED);
      return { content: [{ type: 'text', text: 'paid' }] };
    });
  }

  async function callAndCatch(client: { callTool: (p: { name: string; arguments: Record<string, unknown> }) => Promise<unknown> }) {
    const error = await client.callTool({ name: 'pay', arguments: { amount: 10 } }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UrlElicitationRequiredError);
    return error as UrlElicitationRequiredError;
  }

  it('presents every entry in order, records each consent before opening it, and lets the host retry', async () => {
    const ui = scriptedUi({ url: () => 'accept' });
    const opened: string[] = [];
    let ledgerRef: MemoryLedger | null = null;
    let guardRef: ReturnType<typeof createGuard> | null = null;
    const opener = vi.fn(async (url: string) => {
      const id = url === SIGN_IN ? 'req-1' : 'req-2';
      const receipts = await ledgerRef!.listConsentReceipts(guardRef!.flow(id)!.navigationId);
      expect(receipts.map((r) => r.decision)).toEqual(['accept']);
      opened.push(url);
    });
    const { client, server, guard, ledger } = await setup(ui, { opener }, payTool);
    ledgerRef = ledger;
    guardRef = guard;

    const error = await callAndCatch(client);
    expect(error.elicitations).toHaveLength(2);
    const outcome = await presentUrlElicitationRequired(guard, ui, error, { opener });

    expect(outcome).toBe('accepted');
    expect(opened).toEqual([SIGN_IN, PAY]);
    expect(ui.urlReviews.map((r) => [r.source, r.elicitationId, r.url])).toEqual([
      ['url-elicitation-required', 'req-1', SIGN_IN],
      ['url-elicitation-required', 'req-2', PAY],
    ]);
    for (const id of ['req-1', 'req-2']) expect(guard.flow(id)).toMatchObject({ state: 'OUT_OF_BAND_PENDING', lineage: 'error-retry' });

    for (const elicitationId of ['req-1', 'req-2'])
      await server.notification({ method: 'notifications/elicitation/complete', params: { elicitationId } });
    await vi.waitFor(() => expect(guard.flow('req-2')!.state).toBe('ERROR_RETRY_ELIGIBLE'));
    const retried = await client.callTool({ name: 'pay', arguments: { amount: 10 } });
    expect(retried.content).toEqual([{ type: 'text', text: 'paid' }]);
  });

  it('stops at the first decline, opens nothing, and cancels the entries not shown', async () => {
    const ui = scriptedUi({ url: () => 'decline' });
    const opener = vi.fn();
    const { client, guard, ledger } = await setup(ui, { opener }, payTool);
    const error = await callAndCatch(client);

    expect(await presentUrlElicitationRequired(guard, ui, error, { opener })).toBe('declined');

    expect(opener).not.toHaveBeenCalled();
    expect(ui.urlReviews).toHaveLength(1);
    expect(guard.flow('req-1')!.state).toBe('DECLINED');
    expect(guard.flow('req-2')!.state).toBe('CANCELLED');
    // The entry the user never saw gets no consent receipt: nothing was shown for it.
    expect(await ledger.listConsentReceipts(guard.flow('req-2')!.navigationId)).toEqual([]);
  });

  it('answers cancelled for something that is not a URL requirement', async () => {
    const ui = scriptedUi({ url: () => 'accept' });
    const guard = createGuard();
    expect(await presentUrlElicitationRequired(guard, ui, new Error('boom'), { opener: vi.fn() })).toBe('cancelled');
    expect(
      await presentUrlElicitationRequired(
        guard,
        ui,
        { elicitations: [{ mode: 'url', url: SIGN_IN, message: 'x', elicitationId: 'nope' }] },
        { opener: vi.fn() },
      ),
    ).toBe('cancelled');
    expect(ui.urlReviews).toHaveLength(0);
  });
});

describe('pendingFlowControls', () => {
  it('lists pending flows and lets the user take one up and confirm it, or cancel another', async () => {
    const { server, guard } = await setup(scriptedUi({ url: () => 'accept' }), { opener: vi.fn() });
    await server.request({ method: 'elicitation/create', params: urlParams('p-1') }, ElicitResultSchema);
    await server.request({ method: 'elicitation/create', params: urlParams('p-2', PAY, 'Pay') }, ElicitResultSchema);
    const controls = pendingFlowControls(guard);
    expect(controls.list().map((f) => [f.elicitationId, f.state])).toEqual([
      ['p-1', 'OUT_OF_BAND_PENDING'],
      ['p-2', 'OUT_OF_BAND_PENDING'],
    ]);
    expect(controls.retry('p-1').state).toBe('USER_RETRY');
    expect(controls.confirm('p-1').state).toBe('REQUIREMENT_VERIFIED');
    expect(controls.cancel('p-2').state).toBe('CANCELLED');
    // A cancelled flow is finished: it leaves the list.
    expect(controls.list().map((f) => f.elicitationId)).not.toContain('p-2');
  });
});
