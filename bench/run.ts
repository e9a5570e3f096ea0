/**
 * `npm run bench`: every benchmark, each reported against a baseline measured in the same run.
 * No figure here is asserted anywhere; the README and the issue notes quote what this prints.
 */
import { benchFlood, printFlood } from './flood.bench.js';
import { benchForm, printForm } from './form.bench.js';
import { benchLedger, printLedger } from './ledger.bench.js';
import { printPairs } from './harness.js';
import { benchDurable, POSTGRES_BENCH_ENV, printDurable } from './postgres.bench.js';
import { benchProxy, printProxy } from './proxy.bench.js';
import { benchGuardPairs, benchSdk, GUARD_PAIR_TITLE, SDK_TITLE } from './sdk.bench.js';
import { benchGuardV2, benchSdkV2, GUARD_V2_TITLE, SDK_V2_TITLE } from './sdk-v2.bench.js';
import { benchUrlRows, urlBenchUnavailable } from './url.bench.js';

printPairs(SDK_TITLE, await benchSdk());
printPairs(GUARD_PAIR_TITLE, await benchGuardPairs());
printPairs(SDK_V2_TITLE, await benchSdkV2());
printPairs(GUARD_V2_TITLE, await benchGuardV2());
const notMeasured: string[] = [];
const urlUnavailable = urlBenchUnavailable();
if (urlUnavailable === null) {
  const urlRows = await benchUrlRows();
  printPairs(
    `URL analysis over ${urlRows[0]!.inputs} shared-corpus URLs with varied tails: new URL() + tldts.parse(private suffixes) ` +
      `(baseline) vs analyzeUrl with 0, 500 and 5,000 policy protected domains (candidate), target ≤ ${urlRows[0]!.target}×`,
    urlRows,
  );
} else {
  console.log(`\n${urlUnavailable}`);
  notMeasured.push('URL analysis (needs ../shared/corpora)');
}
printLedger(await benchLedger());
printProxy(await benchProxy());
printFlood(await benchFlood());
printForm(await benchForm());
// PostgreSQL beside SQLite when a database is given (scripts/with-postgres.sh npm run bench).
printDurable(process.env[POSTGRES_BENCH_ENV] ? await benchDurable(process.env[POSTGRES_BENCH_ENV]!) : null);
if (notMeasured.length > 0) console.log(`\nnot measured in this run: ${notMeasured.join('; ')}`);
