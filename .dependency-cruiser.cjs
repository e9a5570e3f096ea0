/**
 * The module map (README "Architecture"): each folder of src/ and what it may import. `npm run
 * lint:deps` fails on an arrow that points up the table, on a cycle, and on an import of tests.
 */

/** Folder → the folders it may import (anything of theirs). */
const layers = {
  protocol: [],
  policy: ['protocol'],
  secrets: ['protocol'],
  negotiation: ['protocol', 'policy'],
  form: ['protocol', 'policy', 'secrets'],
  url: ['protocol', 'policy', 'secrets'],
  render: ['protocol', 'url'],
  flow: ['protocol', 'policy', 'secrets'],
  ledger: ['protocol'],
  audit: ['protocol', 'secrets'],
  wire: ['protocol'],
  core: ['protocol', 'policy', 'secrets', 'negotiation', 'form', 'url', 'render', 'flow', 'ledger', 'audit', 'wire'],
  adapters: ['protocol', 'policy', 'secrets', 'negotiation', 'form', 'url', 'render', 'flow', 'ledger', 'audit', 'wire', 'core'],
  ui: ['protocol', 'policy', 'secrets', 'negotiation', 'form', 'url', 'render', 'flow', 'ledger', 'audit', 'wire', 'core'],
  server: ['protocol', 'policy', 'secrets', 'form', 'render', 'audit'],
};

/**
 * Narrower arrows: single modules of a folder another may use. The ledger stores the flow's records
 * and checks moves against its table; a codec speaks the book's vocabulary (types only, checked by
 * scripts/check-type-imports.mjs); the server companion stores the flow's records, uses ledger types and
 * shares the ledger's PostgreSQL connection support.
 */
const modules = {
  ledger: ['^src/flow/(records|states)\\.ts$'],
  wire: ['^src/flow/book\\.ts$'],
  server: ['^src/flow/records\\.ts$', '^src/ledger/(types|postgres-support)\\.ts$'],
};

const folders = [...Object.keys(layers), 'cli'];

const forbidden = Object.entries(layers).map(([from, allowed]) => {
  const denied = folders.filter((to) => to !== from && !allowed.includes(to));
  const exceptions = modules[from] ?? [];
  return {
    name: `${from}-imports-only-below`,
    comment: `src/${from}/ may import ${allowed.join(', ') || 'nothing of ours'}${exceptions.length > 0 ? `, and ${exceptions.join(', ')}` : ''}`,
    severity: 'error',
    from: { path: `^src/${from}/` },
    to: { path: `^src/(${denied.join('|')})/`, ...(exceptions.length > 0 ? { pathNot: exceptions } : {}) },
  };
});

module.exports = {
  forbidden: [
    ...forbidden,
    { name: 'no-circular', severity: 'error', comment: 'cycles between modules hide which way a dependency points', from: {}, to: { circular: true } },
    { name: 'not-to-unresolvable', severity: 'error', comment: 'every import resolves', from: {}, to: { couldNotResolve: true } },
    { name: 'src-not-to-tests', severity: 'error', comment: 'the package never imports tests, benchmarks or fixtures', from: { path: '^src/' }, to: { path: '^(test|bench|fixtures)/' } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.d\\.ts$' },
    // TypeScript 7 has no compiler API for the cruiser: swc parses the sources.
    parser: 'swc',
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'], exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
