import { Client, InMemoryTransport, type Transport } from '@modelcontextprotocol/client';
import { McpServer, SUPPORTED_PROTOCOL_VERSIONS, type ServerContext } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { describe, expect, it } from 'vitest';
import { GuardError } from '../../src/protocol/errors.js';
import { ConnectRounds } from '../../src/server/connect-rounds.js';
import { ConnectService } from '../../src/server/connect.js';
import { MemorySecretVault } from '../../src/server/vault.js';

// ConnectRounds without a provider round trip: construction, the requestState checks that need no
// completed flow, the verify hook, and the 2025 path. The end-to-end rounds are in readme-server-v2.test.ts.

const BASE = 'http://127.0.0.1:9';
const KEY = 'k'.repeat(32);

function service(): ConnectService {
  return new ConnectService({
    baseUrl: BASE,
    vault: new MemorySecretVault(),
    provider: { name: 'acme', issuer: 'http://127.0.0.1:10', clientId: 'c', redirectUri: `${BASE}/oauth/callback`, scope: 'openid' },
    allowInsecureRequests: true,
  });
}

/** A handler context as SDK v2 builds it: `modern` requests carry the 2026 `_meta` envelope. */
function ctx(subject: string | null, state?: unknown, options: { modern?: boolean; inputResponses?: Record<string, unknown> } = {}) {
  return {
    mcpReq: {
      id: 1,
      method: 'tools/call',
      requestState: () => state,
      inputResponses: options.inputResponses,
      signal: new AbortController().signal,
      ...(options.modern === false ? {} : { envelope: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } }),
    },
    http: subject === null ? undefined : { authInfo: { token: 't', clientId: 'c', scopes: [], extra: { sub: subject } } },
  } as unknown as ServerContext;
}

const subjectOf = (c: ServerContext) => (c.http?.authInfo?.extra?.['sub'] as string | undefined) ?? null;

function rounds(connect = service(), waitMs = 0): ConnectRounds {
  return new ConnectRounds(connect, { key: KEY, subject: subjectOf, waitMs, allowHttpLoopback: true });
}

describe('ConnectRounds', () => {
  it('says what to fix at construction', () => {
    const connect = service();
    const build = (options: Record<string, unknown>) => () =>
      new ConnectRounds(connect, { key: KEY, subject: subjectOf, ...options } as never);
    expect(build({ key: 'short' })).toThrow(/key must be at least 32 bytes/);
    expect(build({ key: new Uint8Array(31) })).toThrow(/key must be at least 32 bytes/);
    expect(build({ subject: 'alice' })).toThrow(/subject\(ctx\) must return the verified MCP subject/);
    expect(build({ waitMs: -1 })).toThrow(/waitMs must be/);
    expect(build({ waitMs: 1.5 })).toThrow(/waitMs must be/);
    expect(build({ stateTtlSeconds: 0 })).toThrow(/stateTtlSeconds must be/);
    expect(build({ inputKey: 'a b' })).toThrow(/inputKey must be/);
    expect(build({ pollMs: 1 })).toThrow(/pollMs must be/);
    expect(() => new ConnectRounds({} as never, { key: KEY, subject: subjectOf })).toThrow(/needs a ConnectService/);
  });

  it('needs a verified subject, and the SDK v2 handler context', async () => {
    await expect(rounds().connect(ctx(null), { purpose: 'Connect Acme' })).rejects.toMatchObject({ code: 'E_SUBJECT_REQUIRED' });
    // SDK v1's `extra` has no mcpReq.requestState.
    await expect(rounds().connect({ sessionId: 's' } as never, { purpose: 'Connect Acme' })).rejects.toThrow(/SDK v2 handler context/);
  });

  it('asks with an embedded URL request and a sealed state, and answers "not done yet" with a new state', async () => {
    const r = rounds();
    const first = await r.connect(ctx('alice'), { purpose: 'Connect Acme' });
    expect(first.kind).toBe('input_required');
    const result = (first as Extract<typeof first, { kind: 'input_required' }>).result;
    expect(result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { connect: { method: 'elicitation/create', params: { mode: 'url', message: 'Connect Acme' } } },
    });
    const url = (result.inputRequests!['connect'] as { params: { url: string } }).params.url;
    expect(url.startsWith(`${BASE}/connect/`)).toBe(true);
    const next = await r.connect(ctx('alice', result.requestState, { inputResponses: { connect: { action: 'accept' } } }), {
      purpose: 'Connect Acme',
    });
    expect(next.kind).toBe('input_required');
    const again = (next as Extract<typeof next, { kind: 'input_required' }>).result;
    expect(again.inputRequests).toBeUndefined();
    expect(again.requestState).not.toBe(result.requestState);
    expect(r.metrics()).toEqual({ issued: 1, connected: 0, notYet: 1, refused: 0 });
  });

  it('refuses states it did not seal, for this subject, with this key', async () => {
    const r = rounds();
    const first = await r.connect(ctx('alice'), { purpose: 'Connect Acme' });
    const state = (first as Extract<typeof first, { kind: 'input_required' }>).result.requestState!;
    const other = new ConnectRounds(service(), { key: 'o'.repeat(32), subject: subjectOf, waitMs: 0 });
    const cases: [ConnectRounds, ServerContext, string][] = [
      [r, ctx('mallory', state), 'bind'],
      [other, ctx('alice', state), 'mac'],
      [r, ctx('alice', `${state.slice(0, -2)}AA`), 'mac'],
      [r, ctx('alice', 'v1.e30.AAAA'), 'mac'],
      [r, ctx('alice', 'not-a-state'), 'malformed'],
      [r, ctx('alice', 42), 'malformed'],
      // An object in requestState() that this instance's verify did not produce (another hook's payload).
      [r, ctx('alice', { k: 'mcp-elicitation-guard/connect', u: `${BASE}/connect/x`, r: 1 }), 'foreign'],
    ];
    for (const [rounds, c, reason] of cases) {
      const step = await rounds.connect(c, { purpose: 'Connect Acme' });
      expect(step, reason).toMatchObject({ kind: 'refused', code: 'E_REQUEST_STATE_INVALID', error: { details: { reason } } });
      expect(GuardError.is((step as { error: unknown }).error)).toBe(true);
    }
  });

  it('takes the payload its own verify hook decoded, and answers a state of an unknown flow E_CONNECT_FLOW_ENDED', async () => {
    const connect = service();
    const r = rounds(connect);
    const first = await r.connect(ctx('alice'), { purpose: 'Connect Acme' });
    const state = (first as Extract<typeof first, { kind: 'input_required' }>).result.requestState!;
    const decoded = await r.verify(state, ctx('alice'));
    const viaHook = await r.connect(ctx('alice', decoded), { purpose: 'Connect Acme' });
    expect(viaHook.kind).toBe('input_required');
    // A state sealed for a flow this service never issued: a second service with the same key.
    const stranger = rounds(service());
    const strangerFirst = await stranger.connect(ctx('alice'), { purpose: 'Connect Acme' });
    const strangerState = (strangerFirst as Extract<typeof strangerFirst, { kind: 'input_required' }>).result.requestState!;
    expect(await r.connect(ctx('alice', strangerState), { purpose: 'Connect Acme' })).toMatchObject({
      kind: 'refused',
      code: 'E_CONNECT_FLOW_ENDED',
    });
    expect(await connect.flowOf('https://elsewhere.example/connect/x')).toBeNull();
    expect(await connect.flowOf('not a url')).toBeNull();
  });

  it('answers a decline or cancel with a tool error', async () => {
    const r = rounds();
    const first = await r.connect(ctx('alice'), { purpose: 'Connect Acme' });
    const state = (first as Extract<typeof first, { kind: 'input_required' }>).result.requestState!;
    for (const action of ['decline', 'cancel'] as const) {
      const step = await r.connect(ctx('alice', state, { inputResponses: { connect: { action } } }), { purpose: 'Connect Acme' });
      expect(step).toMatchObject({ kind: 'declined', action, result: { isError: true } });
    }
  });

  it('throws the -32042 error (SDK v2) on a 2025-11-25 request', async () => {
    const error = await rounds()
      .connect(ctx('alice', undefined, { modern: false }), { purpose: 'Connect Acme' })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(error).toMatchObject({ code: -32042 });
    const { UrlElicitationRequiredError } = await import('@modelcontextprotocol/server');
    expect(error).toBeInstanceOf(UrlElicitationRequiredError);
    expect((error as InstanceType<typeof UrlElicitationRequiredError>).elicitations).toMatchObject([
      { mode: 'url', message: 'Connect Acme', elicitationId: expect.stringMatching(/^el_[0-9a-f]{32}$/) },
    ]);
  });

  it("works as the SDK's requestState.verify hook: the SDK hands the tool the payload, and refuses a bad state itself", async () => {
    // In memory there is no HTTP authInfo: this server's verified subject is fixed.
    const r = new ConnectRounds(service(), { key: KEY, subject: () => 'alice', waitMs: 0, allowHttpLoopback: true });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const handle = serveStdio(
      () => {
        const server = new McpServer(
          { name: 'hooked', version: '1.0.0' },
          { supportedProtocolVersions: ['2026-07-28', ...SUPPORTED_PROTOCOL_VERSIONS], requestState: { verify: r.verify } },
        );
        server.registerTool('connect', {}, async (c) => {
          const step = await r.connect(c, { purpose: 'Connect Acme' });
          return step.kind === 'connected' ? { content: [{ type: 'text', text: 'connected' }] } : step.result;
        });
        return server;
      },
      { transport: serverSide as unknown as Transport },
    );
    const client = new Client(
      { name: 'raw', version: '1.0.0' },
      {
        capabilities: { elicitation: { url: {} } },
        versionNegotiation: { mode: { pin: '2026-07-28' } },
        inputRequired: { autoFulfill: false },
      },
    );
    await client.connect(clientSide);
    try {
      const call = (extra: Record<string, unknown> = {}) =>
        client.callTool({ name: 'connect', arguments: {}, ...extra } as never, { allowInputRequired: true } as never) as Promise<{
          resultType?: string;
          requestState?: string;
          inputRequests?: Record<string, unknown>;
          content?: { text: string }[];
        }>;
      const first = await call();
      expect(first.resultType).toBe('input_required');
      const next = await call({ inputResponses: { connect: { action: 'accept' } }, requestState: first.requestState });
      expect(next.resultType).toBe('input_required');
      expect(Object.keys(next.inputRequests ?? {})).toEqual([]);
      await expect(call({ inputResponses: { connect: { action: 'accept' } }, requestState: `${first.requestState}x` })).rejects.toThrow(
        /Invalid or expired requestState/,
      );
      expect(r.metrics()).toMatchObject({ issued: 1, notYet: 1, connected: 0 });
    } finally {
      await client.close();
      await handle.close();
    }
  });
});
