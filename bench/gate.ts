/**
 * `npm run gate`: the release gate. Every line is measured in this run (nothing is read from an
 * earlier one) and printed as a table; the process exits 1 when any line fails, or when a
 * measurement could not be made at all.
 */
import { consentLine } from './gate/consent.js';
import { falseRejectionLine, maliciousLine } from './gate/corpus.js';
import { expiryLine } from './gate/expiry.js';
import { FORM_SETS, formLine } from './gate/forms.js';
import { reconcileLine } from './gate/reconcile.js';
import { tokensLine } from './gate/tokens.js';
import { URL_SETS, urlSetLine } from './gate/url-sets.js';
import type { GateLine } from './gate/types.js';

const MEASUREMENTS: readonly { readonly name: string; readonly run: () => Promise<GateLine> }[] = [
  { name: 'malicious-URL corpus blocked', run: maliciousLine },
  { name: 'legitimate domains falsely rejected', run: falseRejectionLine },
  // URL sets: development, blind and real-world, each on its own line.
  ...URL_SETS.map((set) => ({ name: `URL set ${set.name}: malicious blocked, legitimate rejected`, run: () => urlSetLine(set) })),
  { name: 'URL navigations with a consent receipt', run: consentLine },
  { name: 'third-party tokens outside the vault', run: tokensLine },
  { name: 'completion reconciliation p99 (lost notices)', run: () => reconcileLine() },
  { name: 'expired flows recovered by hand', run: () => expiryLine() },
  // --- forms (issue 12, form side): development, blind, real-world and holdout sets, each on its own line ---
  ...FORM_SETS.map((set) => ({ name: set.name, run: () => formLine(set) })),
  // --- end of the form lines ---
];

async function measure(m: (typeof MEASUREMENTS)[number]): Promise<GateLine> {
  try {
    return await m.run();
  } catch (error) {
    // A measurement that cannot be made fails its line; it never passes by default.
    return { name: m.name, measured: 'error', threshold: '-', pass: false, notes: [`${(error as Error)?.stack ?? String(error)}`] };
  }
}

function verdict(line: GateLine): string {
  if (line.skipped === true) return line.pass ? 'SKIP' : 'FAIL';
  return line.pass ? 'PASS' : 'FAIL';
}

function table(lines: readonly GateLine[]): string {
  const rows = [['line', 'measured', 'threshold', 'result'], ...lines.map((l) => [l.name, l.measured, l.threshold, verdict(l)])];
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  const format = (r: readonly string[]): string =>
    r
      .map((cell, c) => cell.padEnd(widths[c]!))
      .join('  ')
      .trimEnd();
  return [format(rows[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(format)].join('\n');
}

const started = performance.now();
const lines: GateLine[] = [];
for (const m of MEASUREMENTS) lines.push(await measure(m));
const seconds = ((performance.now() - started) / 1000).toFixed(1);

const out: string[] = ['', `Release gate (measured in this run, ${seconds} s)`, '', table(lines), ''];
for (const line of lines) {
  out.push(`${verdict(line)} ${line.name}`);
  for (const note of line.notes) out.push(`     ${note}`);
}
const failed = lines.filter((l) => !l.pass).length;
const skipped = lines.filter((l) => l.pass && l.skipped === true).length;
const notMeasured = skipped === 0 ? '' : `; ${skipped} line${skipped === 1 ? ' was' : 's were'} not measured (see SKIP above)`;
out.push(
  '',
  failed === 0
    ? skipped === 0
      ? 'gate: every line passed'
      : `gate: every measured line passed${notMeasured}`
    : `gate: ${failed} line${failed === 1 ? '' : 's'} failed${notMeasured}`,
);
process.stdout.write(out.join('\n') + '\n');
process.exitCode = failed === 0 ? 0 : 1;
