import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, McpError, UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, postgresUrl } from '../ledger/postgres-support.js';

// Many guards, one PostgreSQL ledger: real proxy processes (each with its own server child and its
// own SDK client) share one database and one lineage scope (--session-key), as replicas serving
// one host conversation would. Whatever the interleaving, each original operation's final answer
// is accepted once: one business receipt, and every other proxy withholds its answer with the
// guard's code. A proxy killed with SIGKILL mid-flow loses nothing: another process finds the flow
// in the shared ledger and recovers it by hand, and a retry elsewhere is not accepted twice.

const root = fileURLToPath(new URL('../../', import.meta.url));
const tsx = ['--import', 'tsx'];
const fixtureServer = [process.execPath, ...tsx, 'fixtures/servers/elicitation-server.ts'];
const run = promisify(execFile);
const PROXIES = 4;
const ROUNDS = 12;

interface Proxy {
  readonly client: Client;
  readonly transport: StdioClientTransport;
  readonly stderr: () => string;
}

async function startProxy(
  url: string,
  sessionKey: string,
  onUrl: (params: Record<string, unknown>) => void = () => undefined,
): Promise<Proxy> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...tsx, 'src/cli/main.ts', 'proxy', '--ledger', url, '--session-key', sessionKey, '--', ...fixtureServer],
    cwd: root,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  const client = new Client({ name: 'replica-host', version: '1.0.0' }, { capabilities: { elicitation: { form: {}, url: {} } } });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    onUrl(request.params as Record<string, unknown>);
    return { action: 'accept' };
  });
  await client.connect(transport);
  return { client, transport, stderr: () => stderr };
}

type Outcome =
  | { readonly kind: 'paid'; readonly paid: number }
  | { readonly kind: 'refused'; readonly code: unknown }
  | { readonly kind: 'other'; readonly detail: string };

async function pay(proxy: Proxy, invoice: string): Promise<Outcome> {
  try {
    const result = await proxy.client.callTool({ name: 'pay', arguments: { invoice } });
    const text = (result.content as { text: string }[])[0]!.text;
    const parsed = JSON.parse(text) as { paid?: number };
    return typeof parsed.paid === 'number' ? { kind: 'paid', paid: parsed.paid } : { kind: 'other', detail: text };
  } catch (error) {
    if (error instanceof McpError) return { kind: 'refused', code: (error.data as { code?: unknown } | undefined)?.code };
    return { kind: 'other', detail: String(error) };
  }
}

async function expectUrlRequired(proxy: Proxy, invoice: string): Promise<void> {
  const error = await proxy.client.callTool({ name: 'pay', arguments: { invoice } }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UrlElicitationRequiredError);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(postgresUrl === null)('proxies sharing one PostgreSQL ledger', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let sql: pg.Client;

  beforeAll(async () => {
    database = await freshDatabase();
    sql = new pg.Client(database.url);
    await sql.connect();
  });
  afterAll(async () => {
    await sql?.end();
    await database?.drop();
  });

  async function receipts(session: string): Promise<{ id: string; original_request_digest: string }[]> {
    const { rows } = await sql.query(
      'SELECT id, original_request_digest FROM mcp_elicitation_guard.business_receipts WHERE session LIKE $1',
      [`${session}/%`],
    );
    return rows;
  }

  it(`${PROXIES} proxies racing the retries of one operation after -32042: one business receipt, the others refused with ` +
    `E_ALREADY_ACCEPTED (${ROUNDS} rounds, random delays)`, async () => {
    const session = `conversation-${Date.now()}`;
    const proxies = await Promise.all(Array.from({ length: PROXIES }, () => startProxy(database.url, session)));
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const invoice = `INV-${round}`;
        // Each replica's host makes the same call (same request id, same params): one operation.
        await Promise.all(proxies.map((p) => expectUrlRequired(p, invoice)));
        const outcomes = await Promise.all(
          proxies.map(async (p) => {
            await sleep(Math.floor(Math.random() * 25));
            return pay(p, invoice);
          }),
        );
        const paid = outcomes.filter((o) => o.kind === 'paid');
        const refused = outcomes.filter((o) => o.kind === 'refused');
        expect(paid, `round ${round}: ${JSON.stringify(outcomes)}`).toHaveLength(1);
        expect(
          refused.map((o) => (o as { code: unknown }).code),
          `round ${round}`,
        ).toEqual(Array.from({ length: PROXIES - 1 }, () => 'E_ALREADY_ACCEPTED'));
      }
      const stored = await receipts(session);
      expect(stored).toHaveLength(ROUNDS);
      expect(new Set(stored.map((r) => r.original_request_digest)).size).toBe(ROUNDS);
    } finally {
      for (const p of proxies) await p.client.close();
    }
    for (const p of proxies) expect(p.stderr()).not.toMatch(/E_LEDGER_UNAVAILABLE|cannot use the ledger/);
  }, 180_000);

  it('a proxy killed with SIGKILL mid-flow: another process lists and recovers the flow through the shared ledger; nothing lost, nothing accepted twice', async () => {
    const session = `crash-${Date.now()}`;
    const seen: Record<string, unknown>[] = [];
    const victim = await startProxy(database.url, session, (params) => seen.push(params));
    // A finished operation (its business receipt is durable before the host sees the answer)…
    await expectUrlRequired(victim, 'INV-crash');
    expect(await pay(victim, 'INV-crash')).toEqual({ kind: 'paid', paid: 1 });
    // …and a URL flow in the middle: the host accepted, the server never answers the tool call.
    void victim.client.callTool({ name: 'open-oauth-hold', arguments: {} }, undefined, { timeout: 120_000 }).catch(() => undefined);
    await expect.poll(() => seen.map((p) => p.elicitationId), { timeout: 20_000 }).toEqual(['oauth-1-held']);
    // Killed once the flow's consent and opening are committed, as a crash after the host opened the page.
    await expect
      .poll(
        async () =>
          (await sql.query("SELECT state FROM mcp_elicitation_guard.navigations WHERE elicitation_id = 'oauth-1-held'")).rows.map(
            (r) => r.state,
          ),
        { timeout: 20_000 },
      )
      .toEqual(['OUT_OF_BAND_PENDING']);
    const pid = victim.transport.pid!;
    process.kill(pid, 'SIGKILL');
    await victim.client.close().catch(() => undefined);

    const cli = async (...args: string[]) => {
      try {
        const { stdout } = await run(process.execPath, [...tsx, 'src/cli/main.ts', 'ledger', ...args, '--ledger', database.url, '--json'], {
          cwd: root,
        });
        return { code: 0, out: JSON.parse(stdout) as unknown };
      } catch (error) {
        const e = error as { code: number; stdout: string };
        return { code: e.code, out: JSON.parse(e.stdout) as unknown };
      }
    };
    const listed = (await cli('list')).out as { id: string; state: string; target: { host: string } }[];
    // The URL flow the victim's host accepted (github.com), not the payment's -32042 flow.
    const flows = listed.filter((f) => f.target.host === 'github.com');
    expect(flows, JSON.stringify(listed)).toHaveLength(1);
    const pending = flows[0]!;
    expect(pending.state).toBe('OUT_OF_BAND_PENDING');
    const shown = (await cli('show', pending.id)).out as { consents: { decision: string }[]; history: { to: string }[] };
    expect(shown.consents.map((c) => c.decision)).toEqual(['accept']);
    const recovered = await cli('recover', pending.id);
    expect(recovered.code).toBe(0);
    expect((await cli('show', pending.id)).out).toMatchObject({ flow: { state: 'USER_RETRY' } });
    // Recovering twice is refused: the first recovery holds. Then the user gives up on it.
    expect((await cli('recover', pending.id)).code).toBe(1);
    expect((await cli('cancel', pending.id)).code).toBe(0);
    const history = ((await cli('show', pending.id)).out as { history: { to: string }[] }).history.map((h) => h.to);
    expect(history.slice(-2)).toEqual(['USER_RETRY', 'CANCELLED']);
    expect(history.filter((to) => to === 'USER_RETRY')).toHaveLength(1);

    // The host re-sends the operation the victim finished through another replica: the shared
    // ledger refuses it before it reaches that replica's server (the victim accepted it).
    const survivor = await startProxy(database.url, session);
    try {
      expect(await pay(survivor, 'INV-crash')).toEqual({ kind: 'refused', code: 'E_ALREADY_ACCEPTED' });
      // An operation the victim never accepted goes through the survivor once.
      await expectUrlRequired(survivor, 'INV-after-crash');
      expect(await pay(survivor, 'INV-after-crash')).toEqual({ kind: 'paid', paid: 1 });
    } finally {
      await survivor.client.close();
    }
    expect(await receipts(session)).toHaveLength(2);
    const { rows } = await sql.query('SELECT count(*)::int AS n FROM mcp_elicitation_guard.consent_receipts WHERE navigation_id = $1', [
      pending.id,
    ]);
    expect(rows[0].n).toBe(1);
  }, 120_000);
});
