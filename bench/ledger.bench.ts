/**
 * Business receipts per second, as callers see them: a call counts when its promise has resolved,
 * and for SqliteLedger that means the transaction holding the receipt has committed with
 * `synchronous=FULL` (fsynced). Two ways of calling:
 *
 * - one caller at a time: each call awaited before the next, so every receipt is a transaction of
 *   its own (one fsync per receipt); this is a guard serving one request at a time;
 * - N callers in flight: N loops, each awaiting its own call, as a busy proxy produces; calls that
 *   arrive in the same event-loop turn share one transaction (group commit).
 *
 * Every SQLite case starts on a fresh file, except the one labelled with a pre-filled file: receipt
 * keys are random digests, so each insert touches a random page of two indexes, and a larger file
 * writes more pages per transaction. For reference, the disk's own ceiling for one fsync per
 * transaction: a bare better-sqlite3 one-row insert per transaction with the same settings.
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
import type { GroupCommitStats } from '../src/ledger/group-commit.js';
import { MemoryLedger } from '../src/ledger/memory.js';
import { SqliteLedger } from '../src/ledger/sqlite.js';
import type { Ledger } from '../src/ledger/types.js';
import { sha256Hex } from '../src/protocol/digest.js';

export interface LedgerBenchResult {
  readonly name: string;
  /** Receipts per round. */
  readonly receipts: number;
  /** Median over the rounds. */
  readonly perSecond: number;
  /** Every round's figure, to show the spread. */
  readonly rounds: readonly number[];
  /** Receipts per committed transaction, over all rounds; `null` where there are no transactions. */
  readonly perTransaction: number | null;
}

const ROUNDS = 3;
const IN_FLIGHT = 64;
const PREFILLED = 100_000;
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

/** Awaits each call before making the next. */
function oneAtATime(ledger: Ledger): (batch: readonly BusinessReceipt[]) => Promise<void> {
  return async (batch) => {
    for (const r of batch) if (!(await ledger.acceptBusinessReceipt(r)).accepted) throw new Error('a fresh lineage was refused');
  };
}

/** `callers` loops share the batch; each awaits its own call before taking the next receipt. */
function inFlight(ledger: Ledger, callers: number): (batch: readonly BusinessReceipt[]) => Promise<void> {
  return async (batch) => {
    let next = 0;
    const caller = async () => {
      while (next < batch.length) if (!(await ledger.acceptBusinessReceipt(batch[next++]!)).accepted) throw new Error('a fresh lineage was refused');
    };
    await Promise.all(Array.from({ length: callers }, caller));
  };
}

async function measure(
  name: string,
  count: number,
  round: (batch: readonly BusinessReceipt[]) => Promise<void>,
  stats: () => GroupCommitStats | null = () => null,
  make: (count: number) => readonly BusinessReceipt[] = receipts,
): Promise<LedgerBenchResult> {
  const figures: number[] = [];
  const before = stats();
  for (let i = 0; i < ROUNDS; i++) {
    // Receipts are built (and validated) outside the timed part: that cost is the guard's, not the store's.
    const batch = make(count);
    const started = process.hrtime.bigint();
    await round(batch);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    figures.push(count / seconds);
  }
  const after = stats();
  const perTransaction = before === null || after === null ? null : (count * ROUNDS) / (after.commits - before.commits);
  return { name, receipts: count, perSecond: median(figures), rounds: figures, perTransaction };
}

export async function benchLedger(): Promise<LedgerBenchResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-eg-ledger-bench-'));
  const results: LedgerBenchResult[] = [];
  let files = 0;
  const fresh = () => SqliteLedger.open(join(dir, `ledger-${files++}.sqlite`));
  try {
    const memory = new MemoryLedger();
    results.push(await measure('MemoryLedger, one caller at a time', 50_000, oneAtATime(memory)));
    results.push(await measure(`MemoryLedger, ${IN_FLIGHT} callers in flight`, 50_000, inFlight(memory, IN_FLIGHT)));
    await memory.close();

    const probe = await fresh();
    const { journalMode, synchronous } = probe.settings();
    await probe.close();
    const durable = `SqliteLedger (${journalMode}, synchronous=${synchronous})`;

    for (const [label, count, run] of [
      ['one caller at a time', 5_000, oneAtATime],
      [`8 callers in flight`, 20_000, (l: Ledger) => inFlight(l, 8)],
      [`${IN_FLIGHT} callers in flight`, 30_000, (l: Ledger) => inFlight(l, IN_FLIGHT)],
    ] as const) {
      const sqlite = await fresh();
      results.push(await measure(`${durable}, ${label}, fresh file`, count, run(sqlite), () => sqlite.writeStats()));
      await sqlite.close();
    }

    const big = await fresh();
    for (let done = 0; done < PREFILLED; done += 1000) await big.acceptBusinessReceipts(receipts(1000));
    results.push(await measure(`${durable}, ${IN_FLIGHT} callers in flight, file already holding ${PREFILLED / 1000}k receipts`, 30_000, inFlight(big, IN_FLIGHT), () => big.writeStats()));
    await big.close();

    const batches = await fresh();
    results.push(
      await measure(`${durable}, acceptBusinessReceipts in batches of 100, one caller, fresh file`, 50_000, async (batch) => {
        for (let i = 0; i < batch.length; i += 100) await batches.acceptBusinessReceipts(batch.slice(i, i + 100));
      }, () => batches.writeStats()),
    );
    await batches.close();

    const refused = await fresh();
    results.push(...(await refusals(refused)));
    await refused.close();
    results.push(await diskCeiling(join(dir, 'ceiling.sqlite')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

/** A second receipt for a lineage that already has one: the path a duplicate answer takes. */
async function refusals(sqlite: SqliteLedger): Promise<LedgerBenchResult[]> {
  const accepted = receipts(10_000);
  await inFlight(sqlite, IN_FLIGHT)(accepted);
  let pass = 0;
  // Every round refuses the same 10k lineages with new receipts.
  const again = (count: number) =>
    accepted.slice(0, count).map((r) => createBusinessReceipt({ lineage: r.lineage, requestId: `again ${pass++}`, retryGeneration: 1, requirementReceiptIds: [], responseDigest: r.responseDigest }, deps));
  const refuseEach = (callers: number) => async (batch: readonly BusinessReceipt[]) => {
    let next = 0;
    const caller = async () => {
      while (next < batch.length) if ((await sqlite.acceptBusinessReceipt(batch[next++]!)).accepted) throw new Error('a second receipt for a lineage was accepted');
    };
    await Promise.all(Array.from({ length: callers }, caller));
  };
  return [
    await measure('SqliteLedger, a second receipt for an accepted lineage (refused), one caller at a time', accepted.length, refuseEach(1), () => sqlite.writeStats(), again),
    await measure(`SqliteLedger, a second receipt for an accepted lineage (refused), ${IN_FLIGHT} callers in flight`, accepted.length, refuseEach(IN_FLIGHT), () => sqlite.writeStats(), again),
  ];
}

/** The same fsync pattern without the ledger: what this disk allows at one commit per row. */
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
  return { name: 'reference: bare better-sqlite3 insert, WAL + synchronous=FULL, one row per transaction', receipts: count, perSecond: median(figures), rounds: figures, perTransaction: 1 };
}

export function printLedger(results: readonly LedgerBenchResult[]): void {
  console.log('\nledger: business receipts per second, counted when the promise resolved (median of 3 rounds)');
  console.table(
    results.map((r) => ({
      case: r.name,
      receipts: r.receipts,
      'receipts/s': Math.round(r.perSecond),
      rounds: r.rounds.map((x) => Math.round(x)).join(' / '),
      'per transaction': r.perTransaction === null ? '–' : r.perTransaction.toFixed(1),
    })),
  );
}

if (isMainModule(import.meta.url)) {
  printLedger(await benchLedger());
}
