/**
 * Many guards, one shared ledger (a PostgreSQL database, or one SQLite file on one machine), spec
 * 2026-07-28: real proxy processes, each with its own SDK v2 server child
 * (fixtures/servers/modern-server.ts), sharing the ledger and one lineage scope (--session-key), as
 * replicas serving one host conversation would.
 *
 * - Four SDK v2 hosts race the retry of one input-required round (a URL elicitation, answered with
 *   `inputResponses` + `requestState`): one final answer is accepted (one business receipt), the
 *   others are withheld with E_ALREADY_ACCEPTED, round after round, with random delays.
 * - Recovery from another proxy: proxy B's query page (`proxy --ui`) lists a flow proxy A is
 *   waiting on and cancels it through the shared ledger; A then withholds the server's final
 *   answer (E_RETRY_NOT_ELIGIBLE) and writes no receipt.
 * - `kill -9`: the host's retry, re-sent through proxy B after A died, is judged against the ledger:
 *   refused when A had accepted the operation, run once when A never did.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, clientOptions, FIXTURE_SERVER, StdioClientTransport } from '../helpers/modern.js';
import { freshDatabase, postgresUrl } from '../ledger/postgres-support.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const tsx = ['--import', 'tsx'];
const PROXIES = 4;
const ROUNDS = 8;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const proxyArgs = (url: string, sessionKey: string, extra: string[] = []) => [
  ...tsx,
  'src/cli/main.ts',
  'proxy',
  '--ledger',
  url,
  '--session-key',
  sessionKey,
  ...extra,
  '--',
  process.execPath,
  ...tsx,
  FIXTURE_SERVER,
];

interface Host {
  readonly client: Client;
  readonly stderr: () => string;
}

/** An SDK v2 host (2026-07-28) whose user accepts every URL step after a random pause. */
async function v2Host(url: string, sessionKey: string): Promise<Host> {
  const transport = new StdioClientTransport({ command: process.execPath, args: proxyArgs(url, sessionKey), cwd: root, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  const client = new Client({ name: 'replica-v2-host', version: '1.0.0' }, clientOptions('modern'));
  client.setRequestHandler('elicitation/create', async (request) => {
    await sleep(Math.floor(Math.random() * 25));
    return request.params.mode === 'url' ? { action: 'accept' } : { action: 'decline' };
  });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

type Message = { id?: unknown; result?: Record<string, unknown>; error?: { code: number; data?: { code?: string } } };

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw-host', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {}, url: {} } },
};

/** A host on raw JSON-RPC lines (it re-sends what it likes, as a host recovering from a crash would). */
class RawHost {
  readonly child: ChildProcessWithoutNullStreams;
  readonly #answers = new Map<unknown, Message>();
  #stderr = '';

  constructor(url: string, sessionKey: string, extra: string[] = [], env: NodeJS.ProcessEnv = process.env) {
    this.child = spawn(process.execPath, proxyArgs(url, sessionKey, extra), { cwd: root, env });
    this.child.stderr.on('data', (chunk: Buffer) => void (this.#stderr += chunk.toString()));
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      const message = JSON.parse(line) as Message;
      if (message.id !== undefined) this.#answers.set(message.id, message);
    });
  }

  get stderr(): string {
    return this.#stderr;
  }

  call(id: number, name: string, args: Record<string, unknown>, retry: Record<string, unknown> = {}): void {
    this.child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, ...retry, _meta: META } })}\n`,
    );
  }

  async answer(id: number, timeout = 30_000): Promise<Message> {
    for (let waited = 0; waited < timeout; waited += 20) {
      const found = this.#answers.get(id);
      if (found !== undefined) return found;
      await sleep(20);
    }
    throw new Error(`no answer to ${id}; stderr: ${this.#stderr}`);
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.stdin.end();
    await exited;
  }

  kill9(): Promise<unknown> {
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGKILL');
    return exited;
  }
}

const accept = (state: string) => ({ inputResponses: { github: { action: 'accept' } }, requestState: state });
const codeOf = (m: Message) => m.error?.data?.code ?? null;

/** The shared ledger as the tests read it behind the proxies' backs (plain SQL on the same tables). */
interface Store {
  /** The `--ledger` spec the proxies get. */
  readonly spec: string;
  rows(sql: string, params: unknown[]): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

async function postgresStore(): Promise<Store> {
  const database = await freshDatabase();
  const client = new pg.Client(database.url);
  await client.connect();
  return {
    spec: database.url,
    // Written with ? placeholders for both engines; PostgreSQL's tables live in their own schema.
    async rows(text, params) {
      let n = 0;
      const query = text.replace(/\?/g, () => `$${(n += 1)}`).replace(/\b(navigations|business_receipts)\b/g, 'mcp_elicitation_guard.$1');
      return (await client.query(query, params)).rows;
    },
    async close() {
      await client.end();
      await database.drop();
    },
  };
}

async function sqliteStore(dir: string): Promise<Store> {
  const file = join(dir, 'shared-ledger.sqlite');
  let db: Database.Database | null = null;
  return {
    spec: file,
    async rows(text, params) {
      // Opened once the proxies created the file; read-only, beside their connections (WAL).
      if (db === null && !existsSync(file)) return [];
      db ??= new Database(file, { readonly: true, fileMustExist: true });
      return db.prepare(text).all(...params) as Record<string, unknown>[];
    },
    async close() {
      db?.close();
    },
  };
}

const backends: [string, (dir: string) => Promise<Store>, boolean][] = [
  ['one PostgreSQL database', () => postgresStore(), postgresUrl !== null],
  ['one SQLite file', sqliteStore, true],
];

describe.each(backends)('proxies sharing %s, spec 2026-07-28', (_name, openStore, available) => {
  let store: Store;
  const tmp = mkdtempSync(join(tmpdir(), 'meg-shared-modern-'));

  beforeAll(async () => {
    if (available) store = await openStore(tmp);
  });
  afterAll(async () => {
    await store?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  async function receipts(session: string): Promise<{ id: string; lineage_kind: string }[]> {
    return (await store.rows('SELECT id, lineage_kind FROM business_receipts WHERE session LIKE ?', [`${session}/%`])) as {
      id: string;
      lineage_kind: string;
    }[];
  }

  async function pendingFlows(): Promise<string[]> {
    return (await store.rows("SELECT id FROM navigations WHERE state = 'OUT_OF_BAND_PENDING'", [])).map((r) => r.id as string);
  }

  async function navigationState(id: string): Promise<string | undefined> {
    return (await store.rows('SELECT state FROM navigations WHERE id = ?', [id]))[0]?.state as string | undefined;
  }

  it.skipIf(!available)(
    `${PROXIES} proxies racing the retry of one input-required URL round: one business receipt, the others withheld with ` +
      `E_ALREADY_ACCEPTED (${ROUNDS} rounds, random delays)`,
    async () => {
      const session = `modern-conversation-${Date.now()}`;
      const hosts = await Promise.all(Array.from({ length: PROXIES }, () => v2Host(store.spec, session)));
      try {
        for (let round = 0; round < ROUNDS; round++) {
          // Each replica's host makes the same call (same request id, same params): one operation.
          const outcomes = await Promise.all(
            hosts.map(async (h) => {
              try {
                const result = await h.client.callTool({ name: 'oauth_url', arguments: {} });
                return { kind: 'done' as const, runs: (result.structuredContent as { runs: number }).runs };
              } catch (error) {
                return { kind: 'refused' as const, code: (error as { data?: { code?: string } }).data?.code ?? String(error) };
              }
            }),
          );
          const done = outcomes.filter((o) => o.kind === 'done');
          expect(done, `round ${round}: ${JSON.stringify(outcomes)}`).toHaveLength(1);
          // The winner's server ran the operation once per round: no proxy sent a retry twice.
          expect(done[0]!.runs).toBe(round + 1);
          expect(
            outcomes.filter((o) => o.kind === 'refused').map((o) => (o as { code: string }).code),
            `round ${round}`,
          ).toEqual(Array.from({ length: PROXIES - 1 }, () => 'E_ALREADY_ACCEPTED'));
        }
        const stored = await receipts(session);
        expect(stored).toHaveLength(ROUNDS);
        expect(new Set(stored.map((r) => r.lineage_kind))).toEqual(new Set(['input-required']));
      } finally {
        for (const h of hosts) await h.client.close();
      }
      for (const h of hosts) expect(h.stderr()).not.toMatch(/E_LEDGER_UNAVAILABLE|cannot use the ledger/);
    },
    240_000,
  );

  it.skipIf(!available)(
    'the same race between proxies that each saw other operations before: still one receipt per operation',
    async () => {
      const session = `modern-histories-${Date.now()}`;
      const hosts = Array.from({ length: PROXIES }, () => new RawHost(store.spec, session));
      try {
        // Proxy k first runs k operations of its own: the proxies' own counts of operations differ.
        await Promise.all(
          hosts.map(async (h, k) => {
            for (let i = 0; i < k; i++) {
              const id = 1000 + 2 * i;
              h.call(id, 'held_url', { release: tmp, own: `${k}-${i}` });
              const round = (await h.answer(id)).result!;
              h.call(id + 1, 'held_url', { release: tmp, own: `${k}-${i}` }, accept(round.requestState as string));
              expect(codeOf(await h.answer(id + 1))).toBeNull();
            }
          }),
        );
        for (let round = 0; round < 3; round++) {
          const id = 2 * round + 1;
          const args = { release: tmp };
          const outcomes = await Promise.all(
            hosts.map(async (h) => {
              h.call(id, 'held_url', args);
              const state = (await h.answer(id)).result!.requestState as string;
              await sleep(Math.floor(Math.random() * 25));
              h.call(id + 1, 'held_url', args, accept(state));
              return codeOf(await h.answer(id + 1));
            }),
          );
          expect(
            outcomes.filter((c) => c === null),
            `round ${round}: ${JSON.stringify(outcomes)}`,
          ).toHaveLength(1);
          expect(outcomes.filter((c) => c !== null)).toEqual(Array.from({ length: PROXIES - 1 }, () => 'E_ALREADY_ACCEPTED'));
        }
        // Six operations of the proxies' own, three raced ones.
        expect(await receipts(session)).toHaveLength(6 + 3);
      } finally {
        for (const h of hosts) await h.close();
      }
    },
    180_000,
  );

  it.skipIf(!available)(
    "proxy B's query page lists and cancels a flow proxy A is waiting on; A then withholds the final answer and writes no receipt",
    async () => {
      const session = `modern-cancel-${Date.now()}`;
      const release = join(tmp, 'release-cancel');
      const a = new RawHost(store.spec, session);
      const state = join(tmp, 'state-b');
      const b = new RawHost(store.spec, session, ['--ui'], { ...process.env, XDG_STATE_HOME: state });
      try {
        const before = new Set(await pendingFlows());
        a.call(1, 'held_url', { release });
        const round = (await a.answer(1)).result!;
        expect(round.resultType).toBe('input_required');
        a.call(2, 'held_url', { release }, accept(round.requestState as string));
        // A sent the retry on: its flow waits for the out-of-band step, in the shared ledger.
        await expect.poll(async () => (await pendingFlows()).filter((id) => !before.has(id)), { timeout: 20_000 }).toHaveLength(1);
        const flow = (await pendingFlows()).find((id) => !before.has(id))!;

        // B's page: the access link from its private file, a cookie, the list, then Cancel.
        await expect.poll(() => /query page at (http:\/\/127\.0\.0\.1:\d+)\//.test(b.stderr), { timeout: 30_000 }).toBe(true);
        const [, base, file] = /query page at (http:\/\/127\.0\.0\.1:\d+)\/ \(open the access link in (.+)\)\n/.exec(b.stderr)!;
        const exchanged = await fetch(readFileSync(file!, 'utf8').trim(), { redirect: 'manual' });
        const cookie = exchanged.headers.get('set-cookie')!.split(';')[0]!;
        const page = (path: string, init: RequestInit = {}) =>
          fetch(base + path, { redirect: 'manual', ...init, headers: { cookie, ...(init.headers as Record<string, string>) } });
        expect(await (await page('/')).text()).toContain(flow);
        const detail = await (await page(`/flows/${flow}`)).text();
        const csrf = /name="csrf" value="([^"]+)"/.exec(detail)![1]!;
        const cancelled = await page(`/flows/${flow}/cancel`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
          body: new URLSearchParams({ csrf }).toString(),
        });
        expect(await cancelled.json()).toEqual({ ok: true, from: 'OUT_OF_BAND_PENDING', state: 'CANCELLED', via: 'ledger' });

        // The server finishes its work: A does not accept an answer for a flow the ledger says is cancelled.
        writeFileSync(release, '');
        const final = await a.answer(2);
        expect(codeOf(final)).toBe('E_RETRY_NOT_ELIGIBLE');
        expect(await receipts(session)).toEqual([]);
        expect(await navigationState(flow)).toBe('CANCELLED');
      } finally {
        await a.close();
        await b.close();
      }
    },
    120_000,
  );

  it.skipIf(!available)(
    'after kill -9 of proxy A, the host re-sends its retry through proxy B: refused when A accepted the operation, ' +
      'run once when A never did',
    async () => {
      const session = `modern-crash-${Date.now()}`;
      const accepted = join(tmp, 'release-accepted');
      const open = join(tmp, 'release-open');
      writeFileSync(accepted, '');
      writeFileSync(open, '');
      const a = new RawHost(store.spec, session);
      let b: RawHost | null = null;
      let c: RawHost | null = null;
      try {
        // Operation 1: A runs both rounds and accepts the final answer (its receipt is durable before the host gets it).
        a.call(1, 'held_url', { release: accepted });
        const first = (await a.answer(1)).result!;
        a.call(2, 'held_url', { release: accepted }, accept(first.requestState as string));
        expect(codeOf(await a.answer(2))).toBeNull();
        // Operation 2: A shows the URL round, then dies before the host's retry.
        a.call(3, 'held_url', { release: open });
        const second = (await a.answer(3)).result!;
        await a.kill9();
        expect(await receipts(session)).toHaveLength(1);

        b = new RawHost(store.spec, session);
        // The retry of the accepted operation: refused by B before it reaches B's server.
        b.call(2, 'held_url', { release: accepted }, accept(first.requestState as string));
        expect(codeOf(await b.answer(2))).toBe('E_ALREADY_ACCEPTED');
        // The retry of the operation A never accepted: sent on without the answer B never presented;
        // the server asks again, the host answers through B, and B accepts it once.
        b.call(4, 'held_url', { release: open }, accept(second.requestState as string));
        const again = (await b.answer(4)).result!;
        expect(again.resultType).toBe('input_required');
        b.call(5, 'held_url', { release: open }, accept(again.requestState as string));
        const done = await b.answer(5);
        expect(codeOf(done)).toBeNull();
        expect((done.result!.structuredContent as { runs: number }).runs).toBe(1);
        expect(await receipts(session)).toHaveLength(2);
        await b.close();

        // The same retry once more, through a third proxy: the operation is accepted, so it is refused.
        c = new RawHost(store.spec, session);
        c.call(5, 'held_url', { release: open }, accept(again.requestState as string));
        expect(codeOf(await c.answer(5))).toBe('E_ALREADY_ACCEPTED');
        expect(await receipts(session)).toHaveLength(2);
      } finally {
        await a.close();
        await b?.close();
        await c?.close();
      }
    },
    120_000,
  );
});
