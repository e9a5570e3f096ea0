/**
 * `npm run bench`: every benchmark, each reported against a baseline measured in the same run.
 * No figure here is asserted anywhere; the README and the issue notes quote what this prints.
 */
import { benchFlood, printFlood } from './flood.bench.js';
import { benchLedger, printLedger } from './ledger.bench.js';
import { printPairs } from './harness.js';
import { benchProxy, printProxy } from './proxy.bench.js';
import { benchGuardPairs, benchSdk, GUARD_PAIR_TITLE, SDK_TITLE } from './sdk.bench.js';
import { benchUrl } from './url.bench.js';

printPairs(SDK_TITLE, await benchSdk());
printPairs(GUARD_PAIR_TITLE, await benchGuardPairs());
const url = await benchUrl();
printPairs(`URL analysis over ${url.inputs} shared-corpus URLs: new URL() + tldts.parse() (baseline) vs analyzeUrl (candidate), target ≤ ${url.target}×`, [url]);
printLedger(await benchLedger());
printProxy(await benchProxy());
printFlood(await benchFlood());
