import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  McpError,
  UrlElicitationRequiredError,
} from '@modelcontextprotocol/sdk/types.js';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAuditLog } from '../../src/audit/log.js';
import { guardTransport } from '../../src/adapters/sdk/transport.js';
import type { GuardEvent } from '../../src/core/events.js';
import { createGuard, type Guard } from '../../src/core/guard.js';
import Database from 'better-sqlite3';
import { MemoryLedger } from '../../src/ledger/memory.js';
import { SqliteLedger } from '../../src/ledger/sqlite.js';

const CONNECT_URL =
  'https://github.com/login/oauth/authorize?client_id=Iv1.8a61f9b3a7aba766&state=9d1f7c2b&' +
  'code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256';
const PAY_URL = 'https://checkout.stripe.com/c/pay/cs_test_a1B2c3D4e5F6g7H8i9J0';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * A real SDK server with the two URL-mode lineages:
 * - `connect` sends a nested URL elicitation inside tools/call and answers after the out-of-band step;
 * - `pay` throws UrlElicitationRequiredError (-32042) until its requirement was met, then succeeds.
 */
function lineageServer() {
  const server = new Server({ name: 'lineage-server', version: '1.0.0' }, { capabilities: { tools: {} } });
  const outOfBand = deferred();
  const operations = { connect: 0, pay: 0 };
  let connections = 0;
  let paymentMet = false;
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    if (request.params.name === 'connect') {
      const elicitationId = `connect-${++connections}`;
      const result = await server.elicitInput({ mode: 'url', message: 'Connect your GitHub account', url: CONNECT_URL, elicitationId });
      if (result.action !== 'accept') return { content: [{ type: 'text' as const, text: result.action }] };
      await outOfBand.promise;
      await server.createElicitationCompletionNotifier(elicitationId)();
      operations.connect += 1;
      return { content: [{ type: 'text' as const, text: 'connected' }] };
    }
    if (!paymentMet)
      throw new UrlElicitationRequiredError([{ mode: 'url', message: 'Confirm the payment', url: PAY_URL, elicitationId: 'pay-1' }]);
    operations.pay += 1;
    return { content: [{ type: 'text' as const, text: `paid #${operations.pay}` }] };
  });
  return {
    server,
    finishOutOfBand: () => outOfBand.resolve(),
    meetPayment: () => (paymentMet = true),
    operations: () => operations,
  };
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function connect(guard: Guard, onElicit = vi.fn(async () => ({ action: 'accept' as const }))) {
  const fixture = lineageServer();
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'host', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
  client.setRequestHandler(ElicitRequestSchema, onElicit);
  const notices = vi.fn(async (_n: unknown) => {});
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, notices);
  await fixture.server.connect(serverSide);
  await client.connect(guardTransport(clientSide, guard));
  closers.push(() => client.close());
  return { client, notices, ...fixture };
}

async function rejection(promise: Promise<unknown>): Promise<McpError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

describe('nested lineage: a URL elicitation inside tools/call', () => {
  it('refuses a host retry while the original is in flight, then accepts the original once with a business receipt', async () => {
    const ledger = new MemoryLedger();
    const events: GuardEvent[] = [];
    const guard = createGuard({ ledger, onEvent: (e) => events.push(e) });
    const { client, notices, finishOutOfBand, operations } = await connect(guard);

    const original = client.callTool({ name: 'connect', arguments: { account: 'octocat' } });
    await vi.waitFor(() => expect(guard.flow('connect-1')?.state).toBe('OUT_OF_BAND_PENDING'));
    expect(guard.flow('connect-1')?.lineage).toBe('nested');

    const retry = await rejection(client.callTool({ name: 'connect', arguments: { account: 'octocat' } }));
    expect(retry.data).toMatchObject({ code: 'E_RETRY_WHILE_IN_FLIGHT' });

    finishOutOfBand();
    const result = await original;
    expect(result.content).toEqual([{ type: 'text', text: 'connected' }]);
    expect(operations().connect).toBe(1);
    expect(notices).toHaveBeenCalledTimes(1);
    expect(guard.flow('connect-1')?.state).toBe('ORIGINAL_RESPONSE_ACCEPTED');

    await guard.flush();
    const [navigation] = await ledger.listNavigations();
    expect(navigation?.flow.state).toBe('ORIGINAL_RESPONSE_ACCEPTED');
    expect((await ledger.listConsentReceipts(navigation!.record.id)).map((r) => r.decision)).toEqual(['accept']);
    const business = events.filter((e) => e.type === 'receipt.business');
    expect(business).toHaveLength(1);
    expect(events.some((e) => e.type === 'retry.refused')).toBe(true);

    // The same call made again after the original finished is a new operation, not a retry.
    await expect(client.callTool({ name: 'connect', arguments: { account: 'octocat' } })).resolves.toMatchObject({
      content: [{ text: 'connected' }],
    });
    expect(guard.flow('connect-2')?.state).toBe('ORIGINAL_RESPONSE_ACCEPTED');
    expect(operations().connect).toBe(2);
  });
});

describe('with a SQLite ledger', () => {
  it('delivers the original answer only after its business receipt is durable', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'meg-lineage-db-')), 'ledger.sqlite');
    const ledger = await SqliteLedger.open(file);
    closers.push(() => ledger.close());
    const guard = createGuard({ ledger });
    const { client, finishOutOfBand } = await connect(guard);
    const original = client.callTool({ name: 'connect', arguments: { account: 'octocat' } });
    await vi.waitFor(() => expect(guard.flow('connect-1')?.state).toBe('OUT_OF_BAND_PENDING'));
    finishOutOfBand();
    const rowsWhenDelivered = await original.then(() => {
      const reader = new Database(file, { readonly: true });
      try {
        return (reader.prepare('SELECT COUNT(*) AS n FROM business_receipts').get() as { n: number }).n;
      } finally {
        reader.close();
      }
    });
    expect(rowsWhenDelivered).toBe(1);
    await guard.flush();
    const [navigation] = await ledger.listNavigations();
    expect(navigation?.flow.state).toBe('ORIGINAL_RESPONSE_ACCEPTED');
    expect((await ledger.listTransitions(navigation!.record.id)).length).toBe(8);
  });
});

describe('error lineage: -32042 and the retry', () => {
  it('lets one of three retries through and accepts its answer once', async () => {
    const ledger = new MemoryLedger();
    const guard = createGuard({ ledger });
    const { client, meetPayment, operations } = await connect(guard);
    const call = () => client.callTool({ name: 'pay', arguments: { amount: 5, currency: 'EUR' } });

    const required = await rejection(call());
    expect(required).toBeInstanceOf(UrlElicitationRequiredError);
    expect((required as UrlElicitationRequiredError).elicitations.map((e) => e.elicitationId)).toEqual(['pay-1']);
    expect(guard.flow('pay-1')).toMatchObject({ state: 'USER_REVIEW', lineage: 'error-retry' });

    // The host presents it, the user agrees, the guard opens it, the user says they are done.
    const ticket = await guard.recordConsent('pay-1', 'accept');
    const opened: string[] = [];
    await guard.openUrl(ticket!, (url) => void opened.push(url));
    expect(opened).toEqual([PAY_URL]);
    meetPayment();
    expect(guard.confirmFlow('pay-1').state).toBe('ERROR_RETRY_ELIGIBLE');

    const results = await Promise.allSettled([call(), call(), call()]);
    const fulfilled = results.filter((r) => r.status === 'fulfilled');
    const refused = results.flatMap((r) => (r.status === 'rejected' ? [(r.reason as McpError).data as { code: string }] : []));
    expect(fulfilled).toHaveLength(1);
    expect(refused.map((d) => d.code)).toEqual(['E_RETRY_EXHAUSTED', 'E_RETRY_EXHAUSTED']);
    expect(operations().pay).toBe(1);
    expect(guard.flow('pay-1')?.state).toBe('RETRY_RESPONSE_ACCEPTED');
  });

  it('lets one of three sequential retries through, refuses the others with E_RETRY_EXHAUSTED, and runs the operation once', async () => {
    const events: GuardEvent[] = [];
    const guard = createGuard({ ledger: new MemoryLedger(), onEvent: (e) => events.push(e) });
    const { client, meetPayment, operations } = await connect(guard);
    const call = () => client.callTool({ name: 'pay', arguments: { amount: 9 } });
    await rejection(call());
    meetPayment();
    // A host that draws its own UI never tells the guard about consent: the retry itself is the signal.
    await expect(call()).resolves.toMatchObject({ content: [{ text: 'paid #1' }] });
    for (let i = 0; i < 2; i++) expect((await rejection(call())).data).toMatchObject({ code: 'E_RETRY_EXHAUSTED' });
    expect(operations().pay).toBe(1);
    expect(events.filter((e) => e.type === 'receipt.business')).toHaveLength(1);
  });

  it('treats a -32042 answer to the retry as a new requirement: the server ran nothing', async () => {
    const guard = createGuard();
    const { client, operations } = await connect(guard);
    const call = () => client.callTool({ name: 'pay', arguments: { amount: 3 } });
    for (let i = 0; i < 3; i++) expect(await rejection(call())).toBeInstanceOf(UrlElicitationRequiredError);
    expect(operations().pay).toBe(0);
  });

  it('holds the retry until the requirement the host recorded consent for is completed', async () => {
    const guard = createGuard();
    const { client, server, meetPayment, operations } = await connect(guard);
    const call = () => client.callTool({ name: 'pay', arguments: { amount: 4 } });
    await rejection(call());
    const ticket = await guard.recordConsent('pay-1', 'accept');
    await guard.openUrl(ticket!, () => {});
    expect((await rejection(call())).data).toMatchObject({ code: 'E_RETRY_NOT_ELIGIBLE' });
    meetPayment();
    await server.notification({ method: 'notifications/elicitation/complete', params: { elicitationId: 'pay-1' } });
    await vi.waitFor(() => expect(guard.flow('pay-1')?.state).toBe('ERROR_RETRY_ELIGIBLE'));
    await expect(call()).resolves.toMatchObject({ content: [{ text: 'paid #1' }] });
    expect(operations().pay).toBe(1);
  });

  it('never retries after the user declined', async () => {
    const guard = createGuard();
    const { client, meetPayment, operations } = await connect(guard);
    const call = () => client.callTool({ name: 'pay', arguments: { amount: 7 } });
    await rejection(call());
    await guard.recordConsent('pay-1', 'decline');
    meetPayment();
    const refused = await rejection(call());
    expect(refused.data).toMatchObject({ code: 'E_RETRY_NOT_ELIGIBLE' });
    expect(operations().pay).toBe(0);
  });
});

describe('the audit log of a flow', () => {
  it('records every flow move and receipt, redacted, with no URL query and no nonce', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'meg-lineage-')), 'audit.jsonl');
    const log = createAuditLog(file);
    const guard = createGuard({ ledger: new MemoryLedger(), onEvent: (e) => log.write(e) });
    const { client, finishOutOfBand } = await connect(guard);
    const original = client.callTool({ name: 'connect', arguments: {} });
    await vi.waitFor(() => expect(guard.flow('connect-1')?.state).toBe('OUT_OF_BAND_PENDING'));
    finishOutOfBand();
    await original;
    await log.close();
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; to?: string });
    expect(lines.filter((l) => l.type === 'flow.transition').map((l) => l.to)).toEqual([
      'USER_REVIEW',
      'NAVIGATION_ACCEPTED',
      'OUT_OF_BAND_PENDING',
      'COMPLETION_NOTIFIED',
      'REQUIREMENT_VERIFIED',
      'NESTED_SERVER_CONTINUES',
      'ORIGINAL_RESPONSE_ACCEPTED',
    ]);
    expect(lines.filter((l) => l.type.startsWith('receipt.')).map((l) => l.type)).toEqual(['receipt.consent', 'receipt.business']);
    const text = readFileSync(file, 'utf8');
    for (const secretish of ['code_challenge=', 'state=9d1f7c2b', 'client_id=']) expect(text).not.toContain(secretish);
  });
});

describe('expiry and manual recovery', () => {
  it('keeps an accepted flow that never completes queryable after expiry and lets the user recover it', async () => {
    let now = 1_700_000_000_000;
    const guard = createGuard({ clock: () => now, policy: { completion: { ttlSeconds: 60 } } });
    const { client, finishOutOfBand } = await connect(guard);
    const original = client.callTool({ name: 'connect', arguments: {} });
    await vi.waitFor(() => expect(guard.flow('connect-1')?.state).toBe('OUT_OF_BAND_PENDING'));
    now += 61_000;
    expect(guard.pendingFlows().map((f) => [f.elicitationId, f.state])).toEqual([['connect-1', 'EXPIRED']]);
    expect(guard.retryFlow('connect-1').state).toBe('USER_RETRY');
    expect(guard.confirmFlow('connect-1').state).toBe('NESTED_SERVER_CONTINUES');
    finishOutOfBand();
    await original;
    expect(guard.flow('connect-1')?.state).toBe('ORIGINAL_RESPONSE_ACCEPTED');
    expect(guard.pendingFlows()).toEqual([]);
  });
});
