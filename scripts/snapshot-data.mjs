// Snapshots the protected top-site list from the pinned `top-sites` devDependency into
// src/url/data/top-sites.json (git-ignored, copied to dist/ by tsc). The package's own
// postinstall would refetch a moving list from the network, so it is denied in package.json
// (`allowScripts`) and we read the version the lock file pins: the same list on every machine.
import { createRequire } from 'node:module';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const sites = require('top-sites/top-sites.json');
const { version } = require('top-sites/package.json');
const domains = sites.map((site) => String(site.rootDomain).toLowerCase()).filter(Boolean);
const out = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'url', 'data', 'top-sites.json');
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify({ source: `top-sites@${version}`, domains }, null, 0) + '\n');
