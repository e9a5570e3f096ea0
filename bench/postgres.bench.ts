/**
 * Durable business receipts per second on PostgreSQL and on SQLite, side by side in one run, as
 * callers see them: a receipt counts when its promise resolved, i.e. when the transaction holding
 * it committed (PostgreSQL with synchronous_commit=on: the WAL is flushed; SQLite in WAL mode with
 * synchronous=FULL: fsynced). Cases, each on fresh tables:
 *
 * - one caller at a time (the baseline: one commit per receipt);
 * - 64 callers in flight in one process (group commit);
 * - 4 processes writing at once, 64 callers in flight each (real child processes, one database or
 *   one file), started together.
 *
 * Each receipt's latency (call to resolved promise) is kept; p50 and p99 are reported. The
 * in-process cases run 3 rounds and report the median round.
 *
 * Run with a throwaway PostgreSQL: scripts/with-postgres.sh npx tsx bench/postgres.bench.ts
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMainModule } from '../src/cli/io.js';
import { createBusinessReceipt, type BusinessReceipt } from '../src/flow/records.js';
import { PostgresLedger } from '../src/ledger/postgres.js';
import { SqliteLedger } from '../src/ledger/sqlite.js';
import type { Ledger } from '../src/ledger/types.js';
import { sha256Hex } from '../src/protocol/digest.js';

export const POSTGRES_BENCH_ENV = 'MCP_GUARD_TEST_POSTGRES_URL';
const IN_FLIGHT = 64;
const PROCESSES = 4;
const ROUNDS = 3;
const WRITER = fileURLToPath(new URL('./ledger-writer.ts', import.meta.url));
const deps = { clock: Date.now, random: (n: number) => new Uint8Array(randomBytes(n)) };
let serial = 0;

export interface DurableBenchRow {
  readonly store: string;
  readonly case: string;
  readonly receipts: number;
  readonly perSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly perTransaction: number | null;
}

function receipts(count: number): BusinessReceipt[] {
  const response = sha256Hex('response');
  return Array.from({ length: count }, () =>
    createBusinessReceipt(
      {
        lineage: { session: 'bench', kind: 'nested', originalRequestDigest: sha256Hex(`original ${serial++} ${process.pid}`) },
        requestId: serial,
        retryGeneration: 0,
        requirementReceiptIds: ['cr_bench'],
        responseDigest: response,
      },
      deps,
    ),
  );
}

const quantile = (sorted: readonly number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

async function rounds(
  ledger: Ledger & { writeStats(): { commits: number } },
  count: number,
  callers: number,
): Promise<{ perSecond: number; latencies: number[]; perTransaction: number }> {
  const results: { perSecond: number; latencies: number[] }[] = [];
  const before = ledger.writeStats().commits;
  for (let round = 0; round < ROUNDS; round++) {
    const batch = receipts(count);
    const latencies: number[] = new Array(count);
    let next = 0;
    const started = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: callers }, async () => {
        while (next < count) {
          const i = next++;
          const t0 = process.hrtime.bigint();
          if (!(await ledger.acceptBusinessReceipt(batch[i]!)).accepted) throw new Error('a fresh lineage was refused');
          latencies[i] = Number(process.hrtime.bigint() - t0) / 1e6;
        }
      }),
    );
    results.push({ perSecond: count / (Number(process.hrtime.bigint() - started) / 1e9), latencies: latencies.sort((a, b) => a - b) });
  }
  const commits = ledger.writeStats().commits - before;
  const median = [...results].sort((a, b) => a.perSecond - b.perSecond)[ROUNDS >> 1]!;
  return { perSecond: median.perSecond, latencies: median.latencies, perTransaction: (count * ROUNDS) / commits };
}

async function processes(spec: string, schema: string, count: number): Promise<{ perSecond: number; latencies: number[] }> {
  const children = Array.from({ length: PROCESSES }, (_, i) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WRITER, spec, schema, String(count), String(IN_FLIGHT), `p${i}`], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    const ready = new Promise<void>((resolve) =>
      child.stdout.on('data', (c: Buffer) => ((out += c.toString()), out.startsWith('ready\n') && resolve())),
    );
    const done = new Promise<{ seconds: number; latencies: number[] }>((resolve, reject) =>
      child.on('close', (code) =>
        code === 0
          ? resolve(JSON.parse(out.slice('ready\n'.length)) as { seconds: number; latencies: number[] })
          : reject(new Error(`writer exited ${code}`)),
      ),
    );
    return { child, ready, done };
  });
  await Promise.all(children.map((c) => c.ready));
  const started = process.hrtime.bigint();
  for (const c of children) c.child.stdin.end('go\n');
  const results = await Promise.all(children.map((c) => c.done));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { perSecond: (PROCESSES * count) / seconds, latencies: results.flatMap((r) => r.latencies).sort((a, b) => a - b) };
}

function row(
  store: string,
  name: string,
  receiptsPerRound: number,
  r: { perSecond: number; latencies: number[]; perTransaction?: number },
): DurableBenchRow {
  return {
    store,
    case: name,
    receipts: receiptsPerRound,
    perSecond: r.perSecond,
    p50Ms: quantile(r.latencies, 0.5),
    p99Ms: quantile(r.latencies, 0.99),
    perTransaction: r.perTransaction ?? null,
  };
}

export async function benchDurable(postgresUrl: string): Promise<DurableBenchRow[]> {
  const rows: DurableBenchRow[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'mcp-eg-durable-bench-'));
  const schemas: string[] = [];
  const schema = () => {
    const name = `bench_${randomBytes(5).toString('hex')}`;
    schemas.push(name);
    return name;
  };
  let files = 0;
  try {
    const probe = await PostgresLedger.connect(postgresUrl, { schema: schema() });
    const settings = await probe.settings();
    await probe.close();
    const pgName = `PostgreSQL ${settings.serverVersion.split(' ')[0]} (synchronous_commit=${settings.synchronousCommit})`;
    const sqliteName = 'SQLite (WAL, synchronous=FULL)';

    for (const [label, count, callers] of [
      ['one caller at a time (baseline)', 2_000, 1],
      [`${IN_FLIGHT} callers in flight, one process`, 30_000, IN_FLIGHT],
    ] as const) {
      const pgLedger = await PostgresLedger.connect(postgresUrl, { schema: schema() });
      rows.push(row(pgName, label, count, await rounds(pgLedger, count, callers)));
      await pgLedger.close();
      const sqlite = await SqliteLedger.open(join(dir, `ledger-${files++}.sqlite`));
      rows.push(row(sqliteName, label, count, await rounds(sqlite, count, callers)));
      await sqlite.close();
    }

    const shared = schema();
    await (await PostgresLedger.connect(postgresUrl, { schema: shared })).close();
    rows.push(
      row(
        pgName,
        `${PROCESSES} processes × ${IN_FLIGHT} in flight, one database`,
        PROCESSES * 10_000,
        await processes(postgresUrl, shared, 10_000),
      ),
    );
    const file = join(dir, `ledger-${files++}.sqlite`);
    await (await SqliteLedger.open(file)).close();
    rows.push(
      row(sqliteName, `${PROCESSES} processes × ${IN_FLIGHT} in flight, one file`, PROCESSES * 10_000, await processes(file, '-', 10_000)),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
    const pg = (await import('pg')).default;
    const client = new pg.Client(postgresUrl);
    await client.connect();
    for (const name of schemas) await client.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
    await client.end();
  }
  return rows;
}

export function printDurable(rows: readonly DurableBenchRow[] | null): void {
  if (rows === null) {
    console.log(
      `\ndurable receipts, PostgreSQL vs SQLite: skipped (${POSTGRES_BENCH_ENV} is not set; run: scripts/with-postgres.sh npm run bench)`,
    );
    return;
  }
  console.log(
    '\ndurable business receipts per second, PostgreSQL and SQLite side by side (counted when the commit returned; target ≥ ' +
      '10,000/s on PostgreSQL with 64 in flight)',
  );
  const baseline = new Map(rows.filter((r) => r.case.startsWith('one caller')).map((r) => [r.store, r.perSecond]));
  console.table(
    rows.map((r) => ({
      store: r.store,
      case: r.case,
      receipts: r.receipts,
      'receipts/s': Math.round(r.perSecond),
      '× one caller': (r.perSecond / (baseline.get(r.store) ?? r.perSecond)).toFixed(1),
      'p50 ms': r.p50Ms.toFixed(2),
      'p99 ms': r.p99Ms.toFixed(2),
      'per transaction': r.perTransaction === null ? '–' : r.perTransaction.toFixed(1),
    })),
  );
}

if (isMainModule(import.meta.url)) {
  const url = process.env[POSTGRES_BENCH_ENV];
  printDurable(url === undefined || url === '' ? null : await benchDurable(url));
}
