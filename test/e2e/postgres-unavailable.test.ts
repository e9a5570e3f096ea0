import { createServer, Socket as NetSocket, type Server, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, McpError, UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { createBusinessReceipt } from '../../src/flow/records.js';
import { PostgresLedger } from '../../src/ledger/postgres.js';
import { GuardError } from '../../src/protocol/errors.js';
import { businessInput, testDeps } from '../flow/support.js';
import { dropSchema, freshSchema, postgresUrl } from '../ledger/postgres-support.js';

// When the shared database cannot be reached: the proxy starts and stays out of the way of
// everything that needs no ledger, and fails closed where the ledger is the guarantee (the answer
// to a retried operation is withheld with E_LEDGER_UNAVAILABLE). The ledger reconnects by itself
// once the database answers again.

const root = fileURLToPath(new URL('../../', import.meta.url));
const tsx = ['--import', 'tsx'];

async function codeOf(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
  } catch (error) {
    return GuardError.is(error) ? error.code : `not a GuardError: ${(error as Error).message}`;
  }
  return 'no error';
}

describe('a PostgreSQL ledger that cannot be reached', () => {
  it('the proxy starts, passes what needs no ledger, and withholds an answer whose business receipt cannot be written', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        ...tsx,
        'src/cli/main.ts',
        'proxy',
        '--ledger',
        'postgres://guard:not-a-real-password@127.0.0.1:1/guard',
        '--',
        process.execPath,
        ...tsx,
        'fixtures/servers/elicitation-server.ts',
      ],
      cwd: root,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
    const client = new Client({ name: 'host', version: '1.0.0' }, { capabilities: { elicitation: { form: {}, url: {} } } });
    client.setRequestHandler(ElicitRequestSchema, async (request) =>
      request.params.mode === 'url' ? { action: 'accept' } : { action: 'accept', content: { project: 'demo', replicas: 1 } },
    );
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('pay');
      const form = await client.callTool({ name: 'ask-benign', arguments: {} });
      expect(JSON.parse((form.content as { text: string }[])[0]!.text)).toEqual({
        result: { action: 'accept', content: { project: 'demo', replicas: 1 } },
      });
      const required = await client.callTool({ name: 'pay', arguments: { invoice: 'INV-down' } }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(required).toBeInstanceOf(UrlElicitationRequiredError);
      const retried = await client.callTool({ name: 'pay', arguments: { invoice: 'INV-down' } }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(retried).toBeInstanceOf(McpError);
      expect((retried as McpError).data).toMatchObject({ code: 'E_LEDGER_UNAVAILABLE' });
    } finally {
      await client.close();
    }
    expect(stderr).toMatch(/the ledger at postgres 127\.0\.0\.1:1\/guard cannot be reached yet/);
    expect(stderr).not.toContain('not-a-real-password');
  }, 60_000);
});

/** A TCP relay in front of PostgreSQL that the test can cut (every connection dropped, new ones refused) and restore. */
async function relay(target: URL): Promise<{ url: string; cut(): void; restore(): void; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let open = true;
  const server: Server = createServer((client) => {
    if (!open) return void client.destroy();
    const upstream = new NetSocket();
    upstream.connect(Number(target.port), target.hostname);
    client.pipe(upstream).pipe(client);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => {
        sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.port = String((server.address() as { port: number }).port);
  return {
    url: url.href,
    cut() {
      open = false;
      for (const s of sockets) s.destroy();
    },
    restore() {
      open = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

describe.skipIf(postgresUrl === null)('a PostgreSQL ledger that loses its database', () => {
  const schema = freshSchema('down');
  afterAll(() => dropSchema(schema));

  it('fails closed while the database is gone and reconnects with backoff when it is back', async () => {
    const cable = await relay(new URL(postgresUrl!));
    const ledger = await PostgresLedger.connect(cable.url, {
      schema,
      connectTimeoutMs: 1000,
      reconnect: { initialDelayMs: 20, maxDelayMs: 200 },
    });
    const deps = testDeps(11);
    const receipt = (session: string) => createBusinessReceipt(businessInput({ lineage: { ...businessInput().lineage, session } }), deps);
    try {
      expect(await ledger.acceptBusinessReceipt(receipt('before'))).toEqual({ accepted: true });
      cable.cut();
      expect(await codeOf(() => ledger.acceptBusinessReceipt(receipt('during-1')))).toBe('E_LEDGER_UNAVAILABLE');
      expect(ledger.health().up).toBe(false);
      // While it is known to be down, calls fail at once instead of waiting for a connection each.
      expect(await codeOf(() => ledger.getBusinessReceipt(receipt('during-2').lineage))).toBe('E_LEDGER_UNAVAILABLE');
      cable.restore();
      await expect.poll(() => ledger.health().up, { timeout: 10_000, interval: 20 }).toBe(true);
      expect(ledger.health().reconnects).toBeGreaterThanOrEqual(1);
      expect(await ledger.acceptBusinessReceipt(receipt('after'))).toEqual({ accepted: true });
      expect(await ledger.getBusinessReceipt(receipt('before').lineage)).not.toBeNull();
      expect(await ledger.getBusinessReceipt(receipt('during-1').lineage)).toBeNull();
    } finally {
      await ledger.close();
      await cable.close();
    }
  }, 30_000);
});
