/**
 * `npm run bench`: every benchmark, each reported against a baseline measured in the same run.
 * No figure here is asserted anywhere; the README and the issue notes quote what this prints.
 */
import { benchFlood, printFlood } from './flood.bench.js';
import { benchLedger, printLedger } from './ledger.bench.js';
import { printPairs } from './harness.js';
import { benchProxy, printProxy } from './proxy.bench.js';
import { benchSdk } from './sdk.bench.js';
import { benchUrl, urlBenchUnavailable } from './url.bench.js';

printPairs('SDK round trips: unguarded (baseline) vs guardTransport (candidate), target ≤ 1.03×', await benchSdk());
const notMeasured: string[] = [];
const urlUnavailable = urlBenchUnavailable();
if (urlUnavailable === null) {
  const url = await benchUrl();
  printPairs(`URL analysis over ${url.inputs} shared-corpus URLs: new URL() + tldts.parse() (baseline) vs analyzeUrl (candidate), target ≤ ${url.target}×`, [url]);
} else {
  console.log(`\n${urlUnavailable}`);
  notMeasured.push('URL analysis (needs ../shared/corpora)');
}
printLedger(await benchLedger());
printProxy(await benchProxy());
printFlood(await benchFlood());
if (notMeasured.length > 0) console.log(`\nnot measured in this run: ${notMeasured.join('; ')}`);
