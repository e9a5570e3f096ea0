/**
 * `npm run bench`: every benchmark, each reported against a baseline measured in the same run.
 * No figure here is asserted anywhere; the README and the issue notes quote what this prints.
 */
import { benchFlood, printFlood } from './flood.bench.js';
import { benchLedger, printLedger } from './ledger.bench.js';
import { printPairs } from './harness.js';
import { benchProxy, printProxy } from './proxy.bench.js';
import { benchSdk } from './sdk.bench.js';
import { benchSdkV2 } from './sdk-v2.bench.js';
import { benchUrl } from './url.bench.js';

printPairs('SDK round trips: unguarded (baseline) vs guardTransport (candidate), target ≤ 1.03×', await benchSdk());
printPairs('SDK v2 (2026-07-28) round trips: unguarded (baseline) vs guardTransport (candidate), target ≤ 1.03×', await benchSdkV2());
const url = await benchUrl();
printPairs(`URL analysis over ${url.inputs} shared-corpus URLs: new URL() + tldts.parse() (baseline) vs analyzeUrl (candidate), target ≤ ${url.target}×`, [url]);
printLedger(await benchLedger());
printProxy(await benchProxy());
printFlood(await benchFlood());
