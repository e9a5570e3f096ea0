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
 * Every round of every SQLite case starts on a fresh file (the pre-filled case on a fresh copy of a
 * file already holding 100k receipts), so a file that grew in an earlier round never slows a later
 * one; the file grows during the round, as a ledger in use does. The floors, measured in the same
 * rounds on fresh files with the same settings: bare better-sqlite3 inserts of a row with a unique
 * random 64-hex key and a 64-byte value (a receipt at its smallest), 64 rows per transaction (what
 * group commit can reach at best), and one row per transaction (what one caller at a time can reach). Each SqliteLedger
 * case is also given as a ratio to its floor in the same round: floor receipts/s ÷ ledger
 * receipts/s (1 = as fast as the floor). Three rounds; min / median / max.
 * Target: ≥ 30k durable receipts/s with 64 in flight on a growing file.
 *
 * Run: npx tsx bench/ledger.bench.ts
 */
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMainModule } from '../src/cli/io.js';
import { createBusinessReceipt, type BusinessReceipt } from '../src/flow/records.js';
import type { GroupCommitStats } from '../src/ledger/group-commit.js';
import { MemoryLedger } from '../src/ledger/memory.js';
import { SqliteLedger } from '../src/ledger/sqlite.js';
import type { Ledger } from '../src/ledger/types.js';
import { sha256Hex } from '../src/protocol/digest.js';
import { formatSpread, median, spread } from './harness.js';

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
      {
        lineage: { session: 'bench', kind: 'nested', originalRequestDigest: sha256Hex(`original ${serial++}`) },
        requestId: serial,
        retryGeneration: 0,
        requirementReceiptIds: ['cr_bench'],
        responseDigest: response,
      },
      deps,
    ),
  );
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
      while (next < batch.length)
        if (!(await ledger.acceptBusinessReceipt(batch[next++]!)).accepted) throw new Error('a fresh lineage was refused');
    };
    await Promise.all(Array.from({ length: callers }, caller));
  };
}

interface Round {
  readonly run: (batch: readonly BusinessReceipt[]) => Promise<void>;
  readonly stats: () => GroupCommitStats | null;
  readonly close: () => Promise<void>;
}

interface Case {
  readonly name: string;
  readonly count: number;
  /** The floor this case is compared with, round by round. */
  readonly floor?: 'grouped' | 'single';
  /** A fresh store (file) for one round. */
  readonly setup: () => Promise<Round>;
  readonly make?: (count: number) => readonly BusinessReceipt[];
}

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
  /** Per round: the floor's receipts/s ÷ this case's (1 = as fast as the floor); absent for the floors and memory. */
  readonly floorRatios?: readonly number[];
}

async function timeRound(round: Round, batch: readonly BusinessReceipt[]): Promise<{ perSecond: number; commits: number }> {
  const before = round.stats();
  const started = process.hrtime.bigint();
  await round.run(batch);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const after = round.stats();
  return { perSecond: batch.length / seconds, commits: before === null || after === null ? 0 : after.commits - before.commits };
}

/** The floor: bare better-sqlite3 on a fresh file, `perTransaction` rows per commit, same settings. */
async function floorRound(file: string, count: number, perTransaction: number): Promise<number> {
  const Database = (await import('better-sqlite3')).default;
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec('CREATE TABLE t (seq INTEGER PRIMARY KEY, k TEXT NOT NULL UNIQUE, v TEXT NOT NULL) STRICT');
    const insert = db.prepare('INSERT INTO t (k, v) VALUES (?, ?)');
    const group = db.transaction((keys: readonly string[]) => {
      for (const k of keys) insert.run(k, PAYLOAD);
    });
    const keys = Array.from({ length: count }, () => randomBytes(32).toString('hex'));
    const started = process.hrtime.bigint();
    for (let i = 0; i < count; i += perTransaction) {
      group(keys.slice(i, i + perTransaction));
      // One event-loop turn per transaction, as the ledger's group commit takes.
      await new Promise((resolve) => setImmediate(resolve));
    }
    return count / (Number(process.hrtime.bigint() - started) / 1e9);
  } finally {
    db.close();
  }
}

/** A receipt at its smallest: the unique lineage key and one digest. */
const PAYLOAD = 'x'.repeat(64);
/** Filled by the last benchLedger run: WAL bytes per receipt in each round (see walPerReceipt). */
export let walBytesPerReceipt: readonly number[] = [];
const GROUPED_FLOOR = `floor: bare better-sqlite3, unique random 64-hex key + 64-byte value, ${IN_FLIGHT} rows per transaction, fresh file`;
const SINGLE_FLOOR = 'floor: bare better-sqlite3, unique random 64-hex key + 64-byte value, one row per transaction, fresh file';

export async function benchLedger(): Promise<LedgerBenchResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-eg-ledger-bench-'));
  let files = 0;
  const file = () => join(dir, `ledger-${files++}.sqlite`);
  const sqliteRound = async (path: string, run: (l: Ledger) => Round['run']): Promise<Round> => {
    const ledger = await SqliteLedger.open(path);
    return { run: run(ledger), stats: () => ledger.writeStats(), close: () => ledger.close() };
  };
  const memoryRound = async (run: (l: Ledger) => Round['run']): Promise<Round> => {
    const ledger = new MemoryLedger();
    return { run: run(ledger), stats: () => null, close: () => ledger.close() };
  };
  try {
    const probe = await SqliteLedger.open(file());
    const { journalMode, synchronous } = probe.settings();
    await probe.close();
    const durable = `SqliteLedger (${journalMode}, synchronous=${synchronous})`;

    // One file already holding PREFILLED receipts, copied fresh for every round.
    const prefilled = file();
    const big = await SqliteLedger.open(prefilled);
    for (let done = 0; done < PREFILLED; done += 1000) await big.acceptBusinessReceipts(receipts(1000));
    await big.close();

    let accepted: BusinessReceipt[] = [];
    let pass = 0;
    const again = (count: number) =>
      accepted.slice(0, count).map((r) =>
        createBusinessReceipt(
          {
            lineage: r.lineage,
            requestId: `again ${pass++}`,
            retryGeneration: 1,
            requirementReceiptIds: [],
            responseDigest: r.responseDigest,
          },
          deps,
        ),
      );
    const refusedRound = async (callers: number): Promise<Round> => {
      const ledger = await SqliteLedger.open(file());
      accepted = receipts(10_000);
      await inFlight(ledger, IN_FLIGHT)(accepted);
      return { run: refuseEach(ledger, callers), stats: () => ledger.writeStats(), close: () => ledger.close() };
    };

    const cases: Case[] = [
      { name: 'MemoryLedger, one caller at a time', count: 50_000, setup: () => memoryRound(oneAtATime) },
      { name: `MemoryLedger, ${IN_FLIGHT} callers in flight`, count: 50_000, setup: () => memoryRound((l) => inFlight(l, IN_FLIGHT)) },
      { name: `${durable}, one caller at a time, fresh file`, count: 3_000, floor: 'single', setup: () => sqliteRound(file(), oneAtATime) },
      { name: `${durable}, 8 callers in flight, fresh file`, count: 20_000, setup: () => sqliteRound(file(), (l) => inFlight(l, 8)) },
      {
        name: `${durable}, ${IN_FLIGHT} callers in flight, fresh file growing to 50k`,
        count: 50_000,
        floor: 'grouped',
        setup: () => sqliteRound(file(), (l) => inFlight(l, IN_FLIGHT)),
      },
      {
        name: `${durable}, ${IN_FLIGHT} callers in flight, file already holding ${PREFILLED / 1000}k receipts`,
        count: 30_000,
        floor: 'grouped',
        setup: () => {
          const copy = file();
          copyFileSync(prefilled, copy);
          return sqliteRound(copy, (l) => inFlight(l, IN_FLIGHT));
        },
      },
      {
        name: `${durable}, acceptBusinessReceipts in batches of 100, one caller, fresh file`,
        count: 50_000,
        setup: () =>
          SqliteLedger.open(file()).then((l) => ({
            run: async (batch: readonly BusinessReceipt[]) => {
              for (let i = 0; i < batch.length; i += 100) await l.acceptBusinessReceipts(batch.slice(i, i + 100));
            },
            stats: () => l.writeStats(),
            close: () => l.close(),
          })),
      },
      {
        name: 'SqliteLedger, a second receipt for an accepted lineage (refused), one caller at a time',
        count: 10_000,
        setup: () => refusedRound(1),
        make: again,
      },
      {
        name: `SqliteLedger, a second receipt for an accepted lineage (refused), ${IN_FLIGHT} callers in flight`,
        count: 10_000,
        setup: () => refusedRound(IN_FLIGHT),
        make: again,
      },
    ];

    const figures = new Map<string, { perSecond: number[]; commits: number; floorRatios: number[] }>();
    const floors: Record<'grouped' | 'single', number[]> = { grouped: [], single: [] };
    for (const name of [GROUPED_FLOOR, SINGLE_FLOOR, ...cases.map((c) => c.name)])
      figures.set(name, { perSecond: [], commits: 0, floorRatios: [] });
    for (let r = 0; r < ROUNDS; r++) {
      const grouped = await floorRound(file(), 50_000, IN_FLIGHT);
      const single = await floorRound(file(), 3_000, 1);
      floors.grouped.push(grouped);
      floors.single.push(single);
      figures.get(GROUPED_FLOOR)!.perSecond.push(grouped);
      figures.get(SINGLE_FLOOR)!.perSecond.push(single);
      for (const c of cases) {
        const round = await c.setup();
        // Receipts are built (and validated) outside the timed part: that cost is the guard's, not the store's.
        const batch = (c.make ?? receipts)(c.count);
        const { perSecond, commits } = await timeRound(round, batch);
        await round.close();
        const f = figures.get(c.name)!;
        f.perSecond.push(perSecond);
        f.commits += commits;
        if (c.floor !== undefined) f.floorRatios.push((c.floor === 'grouped' ? grouped : single) / perSecond);
      }
    }
    const wal: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const copy = file();
      copyFileSync(prefilled, copy);
      wal.push(await walPerReceipt(copy, 20_000));
    }
    walBytesPerReceipt = wal;
    const result = (name: string, count: number, perTransaction: number | null): LedgerBenchResult => {
      const f = figures.get(name)!;
      return {
        name,
        receipts: count,
        perSecond: median(f.perSecond),
        rounds: f.perSecond,
        perTransaction,
        ...(f.floorRatios.length > 0 ? { floorRatios: f.floorRatios } : {}),
      };
    };
    return [
      ...cases.map((c) => {
        const f = figures.get(c.name)!;
        return result(c.name, c.count, f.commits === 0 ? null : (c.count * ROUNDS) / f.commits);
      }),
      result(GROUPED_FLOOR, 50_000, IN_FLIGHT),
      result(SINGLE_FLOOR, 3_000, 1),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * WAL bytes written per receipt, 64 callers in flight, on a copy of the pre-filled file: a second
 * connection holds a read transaction open from the start, so no checkpoint can reset the WAL and
 * its size at the end is everything the receipts wrote (frames of 4 KiB pages plus headers). Not
 * timed: pinning the WAL slows the writer.
 */
async function walPerReceipt(file: string, count: number): Promise<number> {
  const Database = (await import('better-sqlite3')).default;
  const ledger = await SqliteLedger.open(file);
  const reader = new Database(file, { readonly: true });
  try {
    reader.exec('BEGIN');
    reader.prepare('SELECT count(*) FROM sqlite_master').get();
    const before = walSize(file);
    await inFlight(ledger, IN_FLIGHT)(receipts(count));
    return (walSize(file) - before) / count;
  } finally {
    reader.exec('COMMIT');
    reader.close();
    await ledger.close();
  }
}

function walSize(file: string): number {
  try {
    return statSync(`${file}-wal`).size;
  } catch {
    return 0;
  }
}

/** A second receipt for a lineage that already has one: the path a duplicate answer takes. */
function refuseEach(ledger: Ledger, callers: number): (batch: readonly BusinessReceipt[]) => Promise<void> {
  return async (batch) => {
    let next = 0;
    const caller = async () => {
      while (next < batch.length)
        if ((await ledger.acceptBusinessReceipt(batch[next++]!)).accepted) throw new Error('a second receipt for a lineage was accepted');
    };
    await Promise.all(Array.from({ length: callers }, caller));
  };
}

export function printLedger(results: readonly LedgerBenchResult[]): void {
  console.log(
    `\nledger: business receipts per second, counted when the promise resolved, ${ROUNDS} rounds, a fresh file per round; ` +
      `target ≥ 30k/s with ${IN_FLIGHT} in flight`,
  );
  console.table(
    results.map((r) => {
      const s = spread(r.rounds);
      return {
        case: r.name,
        receipts: r.receipts,
        'receipts/s min / median / max': `${Math.round(s.min)} / ${Math.round(s.median)} / ${Math.round(s.max)}`,
        'floor ÷ this, min / median / max': r.floorRatios === undefined ? '–' : formatSpread(spread(r.floorRatios)),
        'per transaction': r.perTransaction === null ? '–' : r.perTransaction.toFixed(1),
      };
    }),
  );
  if (walBytesPerReceipt.length > 0) {
    const w = spread(walBytesPerReceipt);
    console.log(
      `WAL written per business receipt (${IN_FLIGHT} in flight, 20k receipts onto a file holding ${PREFILLED / 1000}k, no checkpoint): ` +
        `${(w.min / 1024).toFixed(2)} / ${(w.median / 1024).toFixed(2)} / ${(w.max / 1024).toFixed(2)} KiB (min / median / max)`,
    );
  }
}

if (isMainModule(import.meta.url)) {
  printLedger(await benchLedger());
}
