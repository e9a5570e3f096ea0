#!/usr/bin/env node
// Refreshes Chromium's top-domain list (BSD-3-Clause, src/url/data/LICENSE.chromium), vendored
// for the look-alike checks:
//   src/url/data/chromium-top-domains.list  the file as Chromium ships it (verbatim)
//   src/url/data/chromium-top-domains.json  what the engine loads: the top bucket and the rest
//
//   node scripts/refresh-chromium-top-domains.mjs                 fetch the current file from Chromium's source
//   node scripts/refresh-chromium-top-domains.mjs --from FILE [--revision SHA]   use a copy you already have
//
// Review the diff of the .list (a domain that leaves or joins the list changes what is protected)
// and run `npx vitest run test/url` before committing.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PATH = 'components/url_formatter/spoof_checks/top_domains/domains.list';
const SOURCE = `https://chromium.googlesource.com/chromium/src/+/main/${PATH}?format=TEXT`;
const END_OF_TOP = '###END_TOP_BUCKET###';
const DATA = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'url', 'data');

function argument(name) {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

async function download() {
  const response = await fetch(SOURCE);
  if (!response.ok) throw new Error(`${SOURCE}: HTTP ${response.status}`);
  // Gitiles serves raw files base64-encoded with ?format=TEXT.
  return Buffer.from(await response.text(), 'base64').toString('utf8');
}

/** Parses the list: one domain per line, `#` comments, the top bucket ending at the marker. */
export function parseDomainsList(text) {
  const top = [];
  const rest = [];
  let inTop = true;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === END_OF_TOP) {
      inTop = false;
      continue;
    }
    if (line === '' || line.startsWith('#')) continue;
    if (!/^[^\s/:@]+\.[^\s/:@]+$/u.test(line)) throw new Error(`unexpected line in domains.list: ${JSON.stringify(line)}`);
    (inTop ? top : rest).push(line.toLowerCase());
  }
  if (inTop) throw new Error(`domains.list has no ${END_OF_TOP} marker`);
  return { top, rest };
}

const from = argument('--from');
const text = from !== undefined ? readFileSync(from, 'utf8') : await download();
const { top, rest } = parseDomainsList(text);
if (top.length < 100 || rest.length < 1000)
  throw new Error(`domains.list looks truncated (${top.length} top, ${rest.length} other domains)`);
const revision = argument('--revision') ?? (from !== undefined ? 'unknown' : 'main');
// The license travels with the data into dist/ (the JSON is what the package ships).
const licenseText = readFileSync(join(DATA, 'LICENSE.chromium'), 'utf8');
writeFileSync(join(DATA, 'chromium-top-domains.list'), text);
writeFileSync(
  join(DATA, 'chromium-top-domains.json'),
  JSON.stringify({ source: `chromium/src ${PATH}`, revision, license: 'BSD-3-Clause', licenseText, top, rest }) + '\n',
);
console.log(`chromium-top-domains: ${top.length} top-bucket and ${rest.length} other domains (revision ${revision})`);
