/**
 * Form-side costs, each against a baseline measured in the same run, alternating order:
 * - `auditForm` over typical forms (the shipped real-world set: SDK examples and public servers'
 *   forms) against a JSON round trip of the same params, the copy any message path already pays.
 *   Target: under 20 µs per typical form.
 * - The answer check (`checkContent`) and the secret scan (`scanValue`) over answers, against
 *   `JSON.stringify` of the same answers; and, for the record, one answer linted in-process by
 *   secretlint's recommended preset (`@secretlint/core` + the preset), which is why its patterns are
 *   used as data instead of running its rules on the message path.
 * Reports only; nothing here asserts a time.
 *
 *   npx tsx bench/form.bench.ts
 */
import { readFileSync } from 'node:fs';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { isMainModule } from '../src/cli/io.js';
import { auditForm, checkContent } from '../src/form/index.js';
import { clearReadingMemo } from '../src/form/matcher.js';
import { defaultPolicy } from '../src/policy/policy.js';
import { scanValue } from '../src/secrets/index.js';
import { comparePair, printPairs, type PairResult } from './harness.js';

export const AUDIT_TARGET_US = 20;

function loadRows(name: string): { readonly id: string; readonly params: unknown }[] {
  return readFileSync(new URL(`../fixtures/forms/${name}`, import.meta.url), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { id: string; params: unknown });
}

const loadForms = (name: string): unknown[] => loadRows(name).map((r) => r.params);

// Answers as users type them: names, e-mails, prose, dates, ids, and the secrets the scan must catch.
function answers(): string[] {
  return [
    'Ada Lovelace',
    'ada@example.com',
    'It was a dark and stormy night; the rain fell in torrents.',
    '2025-12-26',
    'https://example.com/portfolio',
    'reports/2024/Q1-summary.csv',
    'feature/login-page',
    '3f2504e0-4f89-11d3-9a0c-0305e82c3301',
    'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8',
    'postgres://app:' + 'S3cretPass@db.internal:5432/app',
    '4111 1111 1111 1111',
    generateMnemonic(wordlist),
    'wJalrXUtnFEMI/K7MDENG/bPxRfiCY' + 'EXAMPLEKEY',
    'Please call me back after 5pm, thanks!',
  ];
}

export async function benchForm(): Promise<{ readonly pairs: readonly PairResult[]; readonly forms: number; readonly answers: number }> {
  const policy = defaultPolicy.base;
  const typical = loadForms('real-world.jsonl');
  const multilingual = loadForms('blind.jsonl');
  let i = 0;
  let j = 0;
  const audit = await comparePair(
    `auditForm, ${typical.length} real-world forms`,
    () => JSON.parse(JSON.stringify(typical[i++ % typical.length])),
    () => auditForm(typical[i++ % typical.length], policy),
  );
  // Cold: every label read anew (the reading memo cleared before each audit), as for a server's first form.
  let n = 0;
  const auditCold = await comparePair(
    `auditForm, ${typical.length} real-world forms, cold (no memoised readings)`,
    () => JSON.parse(JSON.stringify(typical[n++ % typical.length])),
    () => {
      clearReadingMemo();
      return auditForm(typical[n++ % typical.length], policy);
    },
  );
  const registration = loadRows('real-world.jsonl').find((r) => r.id === 'rw-ts-registration')!.params;
  const auditOne = await comparePair(
    'auditForm, one typical form (registration: username, email, plan)',
    () => JSON.parse(JSON.stringify(registration)),
    () => auditForm(registration, policy),
  );
  const auditBlind = await comparePair(
    `auditForm, ${multilingual.length} blind-set forms (32 languages, evasions)`,
    () => JSON.parse(JSON.stringify(multilingual[j++ % multilingual.length])),
    () => auditForm(multilingual[j++ % multilingual.length], policy),
  );

  const values = answers();
  const schema = { type: 'object', properties: { note: { type: 'string' } } };
  let k = 0;
  const scan = await comparePair(
    `scanValue per answer string (${values.length} answers)`,
    () => JSON.stringify(values[k++ % values.length]),
    () => scanValue(values[k++ % values.length]!, { entropy: true }),
  );
  const content = await comparePair(
    `checkContent per one-field answer`,
    () => JSON.stringify({ note: values[k++ % values.length] }),
    () => checkContent({ note: values[k++ % values.length] }, schema),
  );

  const { lintSource } = await import('@secretlint/core');
  const { creator } = await import('@secretlint/secretlint-rule-preset-recommend');
  const config = { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: creator, rules: [] }] };
  const secretlint = await comparePair(
    'secretlint preset in-process (baseline) vs scanValue (candidate), per answer',
    async () => {
      await lintSource({
        source: { filePath: '/answer.txt', content: values[k++ % values.length]!, contentType: 'text' },
        options: { config } as never,
      });
    },
    () => scanValue(values[k++ % values.length]!, { entropy: true }),
    { rounds: 1, timeMs: 500 },
  );
  return {
    pairs: [auditOne, audit, auditCold, auditBlind, scan, content, secretlint],
    forms: typical.length + multilingual.length,
    answers: values.length,
  };
}

export function printForm(result: Awaited<ReturnType<typeof benchForm>>): void {
  printPairs(
    `Form audit and answer scan: baseline = JSON round trip / JSON.stringify of the same input (target: auditForm ` +
      `< ${AUDIT_TARGET_US} µs per typical form)`,
    result.pairs,
  );
}

if (isMainModule(import.meta.url)) printForm(await benchForm());
