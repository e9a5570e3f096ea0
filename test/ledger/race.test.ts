import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteLedger } from '../../src/ledger/sqlite.js';
import { sha256Hex } from '../../src/protocol/digest.js';
import { tempDir } from './support.js';

const RACER = fileURLToPath(new URL('./fixtures/race-accept.ts', import.meta.url));
const LINEAGES = 400;

interface Racer {
  readonly ready: Promise<void>;
  readonly result: Promise<{ worker: string; won: number[]; largestGroup: number }>;
  go(): void;
}

function racer(file: string, worker: string): Racer {
  const child = spawn(process.execPath, ['--import', 'tsx', RACER, file, worker, String(LINEAGES)], {
    cwd: process.cwd(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let signalReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (signalReady = resolve));
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString();
    if (stdout.startsWith('ready\n')) signalReady();
  });
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const result = new Promise<{ worker: string; won: number[]; largestGroup: number }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      signalReady();
      if (code === 0) resolve(JSON.parse(stdout.slice('ready\n'.length)) as { worker: string; won: number[]; largestGroup: number });
      else reject(new Error(`worker ${worker} exited ${code}: ${stderr}`));
    });
  });
  return { ready, result, go: () => child.stdin.write('go\n') };
}

describe('two guard instances on one SQLite file', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => {
    tmp = tempDir();
  });
  afterEach(() => tmp.remove());

  it('accept exactly one business receipt per lineage when racing in separate processes', async () => {
    const file = join(tmp.dir, 'ledger.sqlite');
    // Create and migrate the file first, so the racers only race on receipts.
    await (await SqliteLedger.open(file)).close();
    const racers = [racer(file, 'a'), racer(file, 'b')];
    await Promise.all(racers.map((r) => r.ready));
    for (const r of racers) r.go();
    const results = await Promise.all(racers.map((r) => r.result));
    // Each process wrote groups, so the UNIQUE constraint was contended by multi-receipt transactions.
    for (const r of results) expect(r.largestGroup, r.worker).toBeGreaterThan(1);
    const wins = results.flatMap((r) => r.won);
    expect(wins.sort((x, y) => x - y)).toEqual(Array.from({ length: LINEAGES }, (_, i) => i));

    const ledger = await SqliteLedger.open(file);
    try {
      for (let i = 0; i < LINEAGES; i++) {
        const stored = await ledger.getBusinessReceipt({
          session: 'race',
          kind: 'error-retry',
          originalRequestDigest: sha256Hex(`original ${i}`),
        });
        const winner = results.find((r) => r.won.includes(i))!.worker;
        expect(String(stored?.requestId)).toBe(`${winner}:${i}`);
      }
    } finally {
      await ledger.close();
    }
  }, 60_000);
});
