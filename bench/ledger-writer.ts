/**
 * One writer process of the multi-process ledger benchmark: opens a ledger, says `ready`, waits for
 * `go` on stdin, accepts `count` fresh business receipts with `inFlight` callers, and prints one
 * JSON line: how long it took and each receipt's latency (ms), sorted.
 *
 * Run by bench/postgres.bench.ts: tsx bench/ledger-writer.ts <ledger spec> <schema> <count> <in flight> <writer id>
 */
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { createBusinessReceipt } from '../src/flow/records.js';
import { openLedger } from '../src/ledger/open.js';
import { sha256Hex } from '../src/protocol/digest.js';

const [spec = '', schema = '', countText = '0', inFlightText = '64', writer = 'w'] = process.argv.slice(2);
const count = Number(countText);
const inFlight = Number(inFlightText);
const ledger = await openLedger(spec, schema === '-' ? {} : { schema });
const deps = { clock: Date.now, random: (n: number) => new Uint8Array(randomBytes(n)) };
const response = sha256Hex('response');
const batch = Array.from({ length: count }, (_, i) =>
  createBusinessReceipt(
    {
      lineage: {
        session: `bench-${writer}`,
        kind: 'nested',
        originalRequestDigest: sha256Hex(`${writer} ${i} ${randomBytes(8).toString('hex')}`),
      },
      requestId: i,
      retryGeneration: 0,
      requirementReceiptIds: ['cr_bench'],
      responseDigest: response,
    },
    deps,
  ),
);
process.stdout.write('ready\n');
await new Promise<void>((resolve) => {
  const lines = createInterface({ input: process.stdin });
  lines.once('line', () => {
    lines.close();
    resolve();
  });
});
const latencies: number[] = new Array(count);
let next = 0;
const started = process.hrtime.bigint();
await Promise.all(
  Array.from({ length: inFlight }, async () => {
    while (next < count) {
      const i = next++;
      const t0 = process.hrtime.bigint();
      if (!(await ledger.acceptBusinessReceipt(batch[i]!)).accepted) throw new Error('a fresh lineage was refused');
      latencies[i] = Number(process.hrtime.bigint() - t0) / 1e6;
    }
  }),
);
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
await ledger.close();
process.stdout.write(JSON.stringify({ writer, count, seconds, latencies: latencies.sort((a, b) => a - b) }) + '\n');
