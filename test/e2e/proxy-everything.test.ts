/**
 * The stdio proxy between a real SDK host and the official reference server
 * (`@modelcontextprotocol/server-everything`), three processes deep: host → proxy → server. The
 * server's `trigger-url-elicitation` tool drives both URL-mode lineages; the host draws its own UI,
 * so it answers on the wire and records what it was shown.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  McpError,
  UrlElicitationRequiredError,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { GuardMetaKey } from '../../src/protocol/wire.js';
import type { UrlAnalysis } from '../../src/url/types.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const everything = [
  fileURLToPath(new URL('../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url)),
  'stdio',
];

const OAUTH_QUERY = {
  client_id: 'Iv1.8a61f9b3a7aba766',
  state: '9d1f7c2b4e6a8f0d',
  code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
  code_challenge_method: 'S256',
};
const OAUTH_URL = `https://github.com/login/oauth/authorize?${new URLSearchParams(OAUTH_QUERY).toString()}`;
const PREREQUISITE_URL = 'https://modelcontextprotocol.io';

interface Shown {
  readonly message: string;
  readonly url: string;
  readonly elicitationId: string;
  readonly analysis: UrlAnalysis | undefined;
}

const audit = join(mkdtempSync(join(tmpdir(), 'meg-everything-')), 'audit.jsonl');
/** What the host's own UI showed the user, in order: nested elicitations and -32042 entries alike. */
const shown: Shown[] = [];
const handlerCalls = vi.fn();
const logs: Record<string, unknown>[] = [];
let client: Client;

function show(params: Record<string, unknown>): Shown {
  const meta = params._meta as Record<string, unknown> | undefined;
  const entry = {
    message: String(params.message),
    url: String(params.url),
    elicitationId: String(params.elicitationId),
    analysis: meta?.[GuardMetaKey.urlAnalysis] as UrlAnalysis | undefined,
  };
  shown.push(entry);
  return entry;
}

function text(result: Awaited<ReturnType<Client['callTool']>>): string {
  return (result.content as { type: string; text: string }[]).map((c) => c.text).join('\n');
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected the call to be rejected');
    },
    (error: unknown) => error,
  );
}

beforeAll(async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', 'src/cli/main.ts', 'proxy', '--ledger', 'memory', '--audit', audit, '--', process.execPath, ...everything],
    cwd: root,
    stderr: 'pipe',
  });
  client = new Client({ name: 'own-ui-host', version: '1.0.0' }, { capabilities: { elicitation: { form: {}, url: {} } } });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    handlerCalls(request.params);
    if (request.params.mode !== 'url') return { action: 'decline' };
    show(request.params as Record<string, unknown>);
    return { action: 'accept' };
  });
  client.setNotificationHandler(LoggingMessageNotificationSchema, async (n) => void logs.push(n.params as Record<string, unknown>));
  await client.connect(transport);
}, 30_000);

afterAll(async () => {
  await client?.close();
});

describe('the proxy in front of server-everything', () => {
  it('lists trigger-url-elicitation, which the server offers only to hosts that declared URL mode', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('trigger-url-elicitation');
  });

  it('request path: one nested URL elicitation reaches the host with the guard analysis, then the tool result', async () => {
    const before = shown.length;
    const result = await client.callTool({
      name: 'trigger-url-elicitation',
      arguments: { url: OAUTH_URL, message: 'Connect your GitHub account', elicitationId: 'everything-nested-1' },
    });
    expect(result.isError).not.toBe(true);
    expect(text(result)).toContain('User completed the URL elicitation flow');
    expect(text(result)).toContain('everything-nested-1');
    const seen = shown.slice(before);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ url: OAUTH_URL, elicitationId: 'everything-nested-1', message: 'Connect your GitHub account' });
    expect(seen[0]?.analysis).toMatchObject({ verdict: 'allow', display: { host: 'github.com', registrableDomain: 'github.com' } });
  });

  it('error path: -32042 reaches the host judged, one retry succeeds through a nested elicitation, a second retry is refused locally', async () => {
    const call = {
      name: 'trigger-url-elicitation',
      arguments: { url: OAUTH_URL, message: 'Authorize the deployment', elicitationId: 'everything-error-1', errorPath: true },
    };
    const required = await rejection(client.callTool(call));
    expect(required).toBeInstanceOf(UrlElicitationRequiredError);
    const list = (required as UrlElicitationRequiredError).elicitations;
    expect(list).toHaveLength(1);
    // The host draws the -32042 entries in its own UI: the guard's analysis travels with each one.
    const prerequisite = show(list[0] as unknown as Record<string, unknown>);
    expect(prerequisite.url).toBe(PREREQUISITE_URL);
    expect(prerequisite.analysis).toMatchObject({ verdict: 'allow', display: { host: 'modelcontextprotocol.io' } });

    const before = shown.length;
    const retried = await client.callTool(call);
    expect(text(retried)).toContain('User completed the URL elicitation flow');
    expect(shown.slice(before)).toMatchObject([{ url: OAUTH_URL, elicitationId: 'everything-error-1', analysis: { verdict: 'allow' } }]);

    // The server would answer a third identical call with -32042 again; the guard answers first.
    const again = await rejection(client.callTool(call));
    expect(again).toBeInstanceOf(McpError);
    expect(again).not.toBeInstanceOf(UrlElicitationRequiredError);
    expect((again as McpError).code).toBe(-32600);
    expect((again as McpError).data).toMatchObject({ code: 'E_RETRY_EXHAUSTED' });
    expect(shown).toHaveLength(before + 1);
    await vi.waitFor(() =>
      expect(logs).toContainEqual(
        expect.objectContaining({
          logger: 'mcp-elicitation-guard',
          data: expect.objectContaining({ event: 'retry.refused', code: 'E_RETRY_EXHAUSTED' }),
        }),
      ),
    );
  });

  it.each([
    ['the cloud metadata endpoint', 'http://169.254.169.254/latest/meta-data/', 'blocked-metadata'],
    ['a homograph of paypal.com', 'https://xn--pypal-4ve.com/login', 'blocked-homograph'],
  ])('a blocked URL (%s) never reaches the host; the server tool sees -32602', async (_label, url, elicitationId) => {
    const calls = handlerCalls.mock.calls.length;
    const result = await client.callTool({ name: 'trigger-url-elicitation', arguments: { url, elicitationId } });
    // server-everything turns the failed elicitation/create into a tool error carrying the JSON-RPC error's message.
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^MCP error -32602: Elicitation refused by the client: the elicitation URL was blocked/);
    expect(handlerCalls.mock.calls.length).toBe(calls);
    await vi.waitFor(() =>
      expect(logs).toContainEqual(
        expect.objectContaining({ data: expect.objectContaining({ event: 'elicitation.refused', code: 'E_URL_BLOCKED', mode: 'url' }) }),
      ),
    );
  });

  it('writes flow moves and receipts to the audit log, without any URL query value', async () => {
    await vi.waitFor(() => expect(readFileSync(audit, 'utf8')).toContain('"type":"receipt.business"'));
    const events = readFileSync(audit, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const types = new Set(events.map((e) => e.type));
    for (const type of [
      'session.initialized',
      'elicitation.forwarded',
      'flow.transition',
      'receipt.consent',
      'receipt.business',
      'retry.refused',
      'elicitation.refused',
    ])
      expect(types).toContain(type);
    const moves = events.filter((e) => e.type === 'flow.transition').map((e) => `${String(e.from)}→${String(e.to)}`);
    expect(moves).toEqual(
      expect.arrayContaining([
        'CREATED→USER_REVIEW',
        'USER_REVIEW→NAVIGATION_ACCEPTED',
        'NAVIGATION_ACCEPTED→OUT_OF_BAND_PENDING',
        'NESTED_SERVER_CONTINUES→ORIGINAL_RESPONSE_ACCEPTED',
      ]),
    );
    expect(events.filter((e) => e.type === 'receipt.consent').every((e) => e.decision === 'accept')).toBe(true);
    expect(events.filter((e) => e.type === 'receipt.business')).toHaveLength(2);
    const raw = readFileSync(audit, 'utf8');
    for (const value of Object.values(OAUTH_QUERY)) expect(raw).not.toContain(value);
    expect(raw).not.toContain('code_challenge=');
  });
});
