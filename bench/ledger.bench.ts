/**
 * Business receipts per second: MemoryLedger, and SqliteLedger as the guard writes them (WAL,
 * synchronous=FULL, one receipt per transaction, so one fsync per receipt), plus the batching API
 * (one transaction per 100 receipts) and, for reference, the disk's own ceiling: a bare
 * better-sqlite3 one-row insert per transaction with the same settings.
 * Target: ≥ 10k durable receipts/s. Each case runs 3 rounds; the median is reported.
 *
 * Run: npx tsx bench/ledger.bench.ts
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMainModule } from '../src/cli/io.js';
import { createBusinessReceipt, type BusinessReceipt } from '../src/flow/records.js';
import { MemoryLedger } from '../src/ledger/memory.js';
import { SqliteLedger } from '../src/ledger/sqlite.js';
import { sha256Hex } from '../src/protocol/digest.js';

export interface LedgerBenchResult {
  readonly name: string;
  /** Receipts per round. */
  readonly receipts: number;
  /** Median over the rounds. */
  readonly perSecond: number;
  /** Every round's figure, to show the spread. */
  readonly rounds: readonly number[];
}

const ROUNDS = 3;
const deps = { clock: Date.now, random: (n: number) => new Uint8Array(randomBytes(n)) };
let serial = 0;

function receipts(count: number): BusinessReceipt[] {
  const response = sha256Hex('response');
  return Array.from({ length: count }, () =>
    createBusinessReceipt(
      { lineage: { session: 'bench', kind: 'nested', originalRequestDigest: sha256Hex(`original ${serial++}`) }, requestId: serial, retryGeneration: 0, requirementReceiptIds: ['cr_bench'], responseDigest: response },
      deps,
    ),
  );
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
}

async function measure(name: string, count: number, round: (batch: BusinessReceipt[]) => Promise<void>): Promise<LedgerBenchResult> {
  const figures: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    // Receipts are built (and validated) outside the timed part: that cost is the guard's, not the store's.
    const batch = receipts(count);
    const started = process.hrtime.bigint();
    await round(batch);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    figures.push(count / seconds);
  }
  return { name, receipts: count, perSecond: median(figures), rounds: figures };
}

export async function benchLedger(): Promise<LedgerBenchResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-eg-ledger-bench-'));
  const results: LedgerBenchResult[] = [];
  try {
    const memory = new MemoryLedger();
    results.push(
      await measure('MemoryLedger, one receipt per call', 100_000, async (batch) => {
        for (const r of batch) await memory.acceptBusinessReceipt(r);
      }),
    );
    await memory.close();

    const sqlite = await SqliteLedger.open(join(dir, 'ledger.sqlite'));
    const { journalMode, synchronous } = sqlite.settings();
    results.push(
      await measure(`SqliteLedger (${journalMode}, synchronous=${synchronous}), one receipt per transaction`, 10_000, async (batch) => {
        for (const r of batch) await sqlite.acceptBusinessReceipt(r);
      }),
    );
    results.push(
      await measure(`SqliteLedger (${journalMode}, synchronous=${synchronous}), acceptBusinessReceipts in batches of 100`, 50_000, async (batch) => {
        for (let i = 0; i < batch.length; i += 100) await sqlite.acceptBusinessReceipts(batch.slice(i, i + 100));
      }),
    );
    results.push(await refusals(sqlite));
    await sqlite.close();
    results.push(await diskCeiling(join(dir, 'ceiling.sqlite')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

/** A second receipt for a lineage that already has one: the path a duplicate answer takes. */
async function refusals(sqlite: SqliteLedger): Promise<LedgerBenchResult> {
  const accepted = receipts(10_000);
  for (const r of accepted) await sqlite.acceptBusinessReceipt(r);
  const again = accepted.map((r) => createBusinessReceipt({ lineage: r.lineage, requestId: 'again', retryGeneration: 1, requirementReceiptIds: [], responseDigest: r.responseDigest }, deps));
  const figures: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const started = process.hrtime.bigint();
    for (const r of again) if ((await sqlite.acceptBusinessReceipt(r)).accepted) throw new Error('a second receipt for a lineage was accepted');
    figures.push(again.length / (Number(process.hrtime.bigint() - started) / 1e9));
  }
  return { name: 'SqliteLedger, a second receipt for an accepted lineage (refused)', receipts: again.length, perSecond: median(figures), rounds: figures };
}

/** The same fsync pattern without the ledger: what this disk allows at all. */
async function diskCeiling(file: string): Promise<LedgerBenchResult> {
  const Database = (await import('better-sqlite3')).default;
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT NOT NULL) STRICT');
  const insert = db.prepare('INSERT INTO t (k, v) VALUES (?, ?)');
  const count = 10_000;
  const figures: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < count; i++) insert.run(`${round}:${i}`, 'x'.repeat(400));
    figures.push(count / (Number(process.hrtime.bigint() - started) / 1e9));
  }
  db.close();
  return { name: 'reference: bare better-sqlite3 insert, WAL + synchronous=FULL, one row per transaction', receipts: count, perSecond: median(figures), rounds: figures };
}

export function printLedger(results: readonly LedgerBenchResult[]): void {
  console.log('\nledger: business receipts per second (median of 3 rounds)');
  console.table(
    results.map((r) => ({
      case: r.name,
      receipts: r.receipts,
      'receipts/s': Math.round(r.perSecond),
      rounds: r.rounds.map((x) => Math.round(x)).join(' / '),
    })),
  );
}

if (isMainModule(import.meta.url)) {
  printLedger(await benchLedger());
}
