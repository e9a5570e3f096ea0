import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parsePolicy, type Policy } from '../policy/policy.js';
import { GuardError } from '../protocol/errors.js';
import type { Verdict } from '../protocol/verdict.js';
import { escapeText } from '../render/index.js';
import { BufferedWriter } from './buffered-writer.js';
import { evaluateForms, formsReport, isPlainObject, jsonlObjects, parseFormRows, type FormRow, type FormsSummary } from './eval-forms.js';
import { Exit, UsageError, writeLine, type CliIo, parseCommandArgs } from './io.js';
import { judgeUrl } from './judge.js';
import { loadRunPolicy, type RunPolicy } from './run-policy.js';

const HELP = `usage:
  mcp-elicitation-guard eval --urls FILE.jsonl [--urls ...] [--legit FILE.txt ...] [--policy FILE] [--json]
  mcp-elicitation-guard eval --forms FILE.jsonl [--forms ...] [--policy FILE] [--json]

Runs the URL check over labelled corpora and plain host lists, or the form audit over labelled
forms, and reports how it did.

  --urls FILE     JSON Lines rows {"url", "expected": "block"|"warn"|"allow", "category", "policy"?};
                  a row's "policy" is merged over the run's policy
  --legit FILE    legitimate hosts, one per line ("#" comments; "host<TAB>..." takes the first column);
                  each becomes https://<host>/ and should not be blocked
  --forms FILE    JSON Lines rows {"params" (elicitation/create params), "expected": {"verdict", "fields"?},
                  "category"?, "lang"?, "id"?, "policy"?}; reports sensitive forms let through, ordinary
                  forms blocked, misses per category and field classes that differ from the labels
  --policy FILE   policy file (default: the built-in production policy)
  --json          print the summary as JSON

A miss: expected block but not blocked; expected allow or warn but blocked; expected warn but allowed.
exit codes: 0 no labelled row missed, 1 at least one missed, 2 bad usage or unreadable input`;

type Expected = Verdict;

interface LabelledRow {
  readonly file: string;
  readonly line: number;
  readonly url: string;
  readonly expected: Expected;
  readonly category: string;
  readonly policy: Policy;
}

interface Outcome {
  readonly row: LabelledRow;
  readonly verdict: Verdict;
  readonly codes: readonly string[];
}

export interface MissedRow {
  readonly file: string;
  readonly line: number;
  readonly url: string;
  readonly expected: Expected;
  readonly verdict: Verdict;
  readonly codes: readonly string[];
}

export interface CategoryResult {
  readonly category: string;
  readonly rows: number;
  readonly misses: number;
  readonly missed: readonly MissedRow[];
}

/** One `--urls` file's figures (the URL sets are reported file by file as well as together). */
export interface LabelledFileResult {
  readonly file: string;
  readonly rows: number;
  readonly malicious: number;
  readonly blocked: number;
  readonly legitimate: number;
  readonly legitimateBlocked: number;
  readonly misses: number;
}

export interface LegitFileResult {
  readonly file: string;
  readonly hosts: number;
  readonly blocked: number;
  readonly warned: number;
  readonly falseRejectionRate: number;
  readonly blockedHosts: readonly { readonly host: string; readonly codes: readonly string[] }[];
}

/** The `--json` output of `eval`. Rates are fractions in [0, 1] (`null` when there were no rows). */
export interface EvalSummary {
  readonly labelled: {
    readonly files: readonly string[];
    readonly rows: number;
    readonly malicious: { readonly rows: number; readonly blocked: number; readonly blockRate: number | null };
    readonly legitimate: {
      readonly rows: number;
      readonly blocked: number;
      readonly warned: number;
      readonly falseRejectionRate: number | null;
    };
    readonly categories: readonly CategoryResult[];
    /** The same figures per `--urls` file, in the order given. */
    readonly byFile: readonly LabelledFileResult[];
  };
  readonly legitFiles: readonly LegitFileResult[];
  /** Present when `--forms` was given. */
  readonly forms?: FormsSummary;
  readonly misses: number;
}

interface Options {
  readonly urls: readonly string[];
  readonly legit: readonly string[];
  readonly forms: readonly string[];
  readonly policyFile: string | undefined;
  readonly json: boolean;
  readonly help: boolean;
}

function parseOptions(argv: readonly string[]): Options {
  const parsed = parseCommandArgs(
    argv,
    {
      urls: { type: 'string', multiple: true },
      legit: { type: 'string', multiple: true },
      forms: { type: 'string', multiple: true },
      policy: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    false,
  );
  const { values } = parsed;
  const options: Options = {
    urls: values.urls ?? [],
    legit: values.legit ?? [],
    forms: values.forms ?? [],
    policyFile: values.policy,
    json: values.json === true,
    help: values.help === true,
  };
  if (!options.help && options.urls.length === 0 && options.legit.length === 0 && options.forms.length === 0)
    throw new UsageError('give at least one --urls FILE.jsonl, --legit FILE.txt or --forms FILE.jsonl');
  return options;
}

/** A corpus file that cannot be used: reported with its location, exit 2. */
class InputError extends Error {}

/** Objects merge key by key; anything else in `over` replaces what `base` had. */
function deepMerge(base: Readonly<Record<string, unknown>>, over: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = out[key];
    out[key] = isPlainObject(current) && isPlainObject(value) ? deepMerge(current, value) : value;
  }
  return out;
}

async function readText(file: string, cwd: string): Promise<string> {
  try {
    return await readFile(resolve(cwd, file), 'utf8');
  } catch (error) {
    throw new InputError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

const EXPECTED: ReadonlySet<string> = new Set(['allow', 'warn', 'block']);

/** Row policies are few and repeated: each distinct override is parsed once. */
function policyResolver(run: RunPolicy): (override: unknown, where: string) => Policy {
  const cache = new Map<string, Policy>();
  return (override, where) => {
    if (override === undefined) return run.document.base;
    if (!isPlainObject(override)) throw new InputError(`${where}: "policy" must be an object`);
    const key = JSON.stringify(override);
    const cached = cache.get(key);
    if (cached !== undefined) return cached;
    try {
      const policy = parsePolicy(deepMerge(run.json, override)).base;
      cache.set(key, policy);
      return policy;
    } catch (error) {
      if (GuardError.is(error)) throw new InputError(`${where}: ${error.message}`);
      throw error;
    }
  };
}

async function readLabelled(file: string, cwd: string, resolvePolicy: ReturnType<typeof policyResolver>): Promise<LabelledRow[]> {
  const text = await readText(file, cwd);
  const rows: LabelledRow[] = [];
  for (const { line, where, value } of jsonlObjects(text, file, (message) => new InputError(message))) {
    if (typeof value.url !== 'string') throw new InputError(`${where}: "url" must be a string`);
    if (typeof value.expected !== 'string' || !EXPECTED.has(value.expected))
      throw new InputError(`${where}: "expected" must be "block", "warn" or "allow"`);
    if (typeof value.category !== 'string' || value.category === '')
      throw new InputError(`${where}: "category" must be a non-empty string`);
    rows.push({
      file,
      line,
      url: value.url,
      expected: value.expected as Expected,
      category: value.category,
      policy: resolvePolicy(value.policy, where),
    });
  }
  return rows;
}

async function readFormRows(file: string, cwd: string, resolvePolicy: ReturnType<typeof policyResolver>): Promise<FormRow[]> {
  const text = await readText(file, cwd);
  try {
    return parseFormRows(text, file, resolvePolicy);
  } catch (error) {
    if (error instanceof InputError || GuardError.is(error)) throw error;
    throw new InputError((error as Error).message);
  }
}

async function readHosts(file: string, cwd: string): Promise<string[]> {
  const text = await readText(file, cwd);
  const hosts: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const host = line.split('\t')[0]!.trim();
    if (host !== '') hosts.push(host);
  }
  return hosts;
}

/** The rule the summary and the exit code share. */
export function isMiss(expected: Expected, verdict: Verdict): boolean {
  switch (expected) {
    case 'block':
      return verdict !== 'block';
    case 'warn':
      return verdict !== 'warn';
    case 'allow':
      return verdict === 'block';
    default: {
      const unreachable: never = expected;
      throw new Error(`unknown expectation ${String(unreachable)}`);
    }
  }
}

/**
 * Progress on stderr: a live counter when stderr is a terminal, otherwise a line every
 * `every` rows; nothing at all for runs shorter than that.
 */
class Progress {
  private done = 0;
  private readonly tty: boolean;

  constructor(
    private readonly io: CliIo,
    private readonly total: number,
    private readonly every = 10_000,
  ) {
    this.tty = (io.stderr as { isTTY?: boolean }).isTTY === true;
  }

  tick(): void {
    this.done++;
    if (this.total < this.every) return;
    if (this.tty) {
      if (this.done % 500 === 0 || this.done === this.total) this.io.stderr.write(`\reval: ${this.done}/${this.total} URLs`);
    } else if (this.done % this.every === 0) {
      writeLine(this.io.stderr, `eval: ${this.done}/${this.total} URLs`);
    }
  }

  end(): void {
    if (this.tty && this.total >= this.every) this.io.stderr.write('\n');
  }
}

const rate = (part: number, whole: number): number | null => (whole === 0 ? null : part / whole);

function summarise(labelledFiles: readonly string[], outcomes: readonly Outcome[], legitFiles: readonly LegitFileResult[]): EvalSummary {
  let maliciousRows = 0;
  let maliciousBlocked = 0;
  let legitRows = 0;
  let legitBlocked = 0;
  let legitWarned = 0;
  const categories = new Map<string, { rows: number; missed: MissedRow[] }>();
  for (const { row, verdict, codes } of outcomes) {
    if (row.expected === 'block') {
      maliciousRows++;
      if (verdict === 'block') maliciousBlocked++;
    } else {
      legitRows++;
      if (verdict === 'block') legitBlocked++;
      if (verdict === 'warn') legitWarned++;
    }
    let category = categories.get(row.category);
    if (category === undefined) categories.set(row.category, (category = { rows: 0, missed: [] }));
    category.rows++;
    if (isMiss(row.expected, verdict))
      category.missed.push({ file: row.file, line: row.line, url: row.url, expected: row.expected, verdict, codes });
  }
  const categoryResults = [...categories].map(([category, c]) => ({ category, rows: c.rows, misses: c.missed.length, missed: c.missed }));
  return {
    labelled: {
      files: labelledFiles,
      rows: outcomes.length,
      malicious: { rows: maliciousRows, blocked: maliciousBlocked, blockRate: rate(maliciousBlocked, maliciousRows) },
      legitimate: { rows: legitRows, blocked: legitBlocked, warned: legitWarned, falseRejectionRate: rate(legitBlocked, legitRows) },
      categories: categoryResults,
      byFile: byFile(labelledFiles, outcomes),
    },
    legitFiles,
    misses: categoryResults.reduce((n, c) => n + c.misses, 0),
  };
}

// --- URL sets file by file ----------------------------------------------------------------
function byFile(files: readonly string[], outcomes: readonly Outcome[]): LabelledFileResult[] {
  return files.map((file) => {
    const mine = outcomes.filter((o) => o.row.file === file);
    const malicious = mine.filter((o) => o.row.expected === 'block');
    const legitimate = mine.filter((o) => o.row.expected !== 'block');
    return {
      file,
      rows: mine.length,
      malicious: malicious.length,
      blocked: malicious.filter((o) => o.verdict === 'block').length,
      legitimate: legitimate.length,
      legitimateBlocked: legitimate.filter((o) => o.verdict === 'block').length,
      misses: mine.filter((o) => isMiss(o.row.expected, o.verdict)).length,
    };
  });
}

function byFileReport(files: readonly LabelledFileResult[]): string[] {
  if (files.length < 2) return [];
  const out = ['', 'by file:'];
  for (const f of files) {
    out.push(
      `  ${escapeText(f.file)}: ${f.rows} rows; malicious blocked ${f.blocked}/${f.malicious}; legitimate ` +
        `blocked ${f.legitimateBlocked}/${f.legitimate}; ${f.misses} missed`,
    );
  }
  return out;
}
// ------------------------------------------------------------------------------------------

const percent = (value: number | null): string => (value === null ? 'n/a' : `${(value * 100).toFixed(2)}%`);

// A missed row is listed for a human to look at; a 70,000-character URL would bury the report.
function shown(url: string): string {
  const escaped = escapeText(url);
  return escaped.length <= 300 ? escaped : `${escaped.slice(0, 240)}… (+${escaped.length - 240} chars)`;
}

const LEGIT_LISTED = 20;

function humanReport(summary: EvalSummary): string {
  const out: string[] = [];
  const { labelled } = summary;
  if (labelled.files.length > 0) {
    out.push(`labelled corpus: ${labelled.rows} rows from ${labelled.files.map(escapeText).join(', ')}`);
    out.push(
      `  malicious  (expected block):      ${labelled.malicious.rows} rows, blocked ${labelled.malicious.blocked} — block ` +
        `rate ${percent(labelled.malicious.blockRate)}`,
    );
    out.push(
      `  legitimate (expected allow/warn): ${labelled.legitimate.rows} rows, blocked ${labelled.legitimate.blocked} — false ` +
        `rejection rate ${percent(labelled.legitimate.falseRejectionRate)}; warned ${labelled.legitimate.warned}`,
    );
    out.push(...byFileReport(labelled.byFile));
    out.push('', 'misses by category:');
    const width = Math.max(8, ...labelled.categories.map((c) => c.category.length));
    out.push(`  ${'category'.padEnd(width)}  rows  misses`);
    for (const c of labelled.categories)
      out.push(`  ${escapeText(c.category).padEnd(width)}  ${String(c.rows).padStart(4)}  ${String(c.misses).padStart(6)}`);
    const missed = labelled.categories.flatMap((c) => c.missed.map((m) => ({ category: c.category, ...m })));
    if (missed.length > 0) {
      out.push('', 'missed rows:');
      for (const m of missed)
        out.push(
          `  [${escapeText(m.category)}] ${escapeText(m.file)}:${m.line} expected ${m.expected}, ` +
            `got ${m.verdict}${m.codes.length > 0 ? ` (${m.codes.map(escapeText).join(', ')})` : ''}: ${shown(m.url)}`,
        );
    }
  }
  if (summary.legitFiles.length > 0) {
    if (out.length > 0) out.push('');
    out.push('legitimate host lists:');
    for (const f of summary.legitFiles) {
      out.push(
        `  ${escapeText(f.file)}: ${f.hosts} hosts, blocked ${f.blocked} — false rejection ` +
          `rate ${percent(f.hosts === 0 ? null : f.falseRejectionRate)}; warned ${f.warned}`,
      );
      for (const b of f.blockedHosts.slice(0, LEGIT_LISTED))
        out.push(`    blocked ${shown(b.host)} (${b.codes.map(escapeText).join(', ')})`);
      if (f.blockedHosts.length > LEGIT_LISTED) out.push(`    … and ${f.blockedHosts.length - LEGIT_LISTED} more (--json lists all)`);
    }
  }
  if (summary.forms !== undefined) {
    if (out.length > 0) out.push('');
    out.push(...formsReport(summary.forms));
  }
  out.push(
    '',
    summary.misses === 0
      ? 'result: every labelled expectation met'
      : `result: ${summary.misses} labelled expectation${summary.misses === 1 ? '' : 's'} missed`,
  );
  return out.join('\n') + '\n';
}

interface Inputs {
  readonly labelled: readonly (readonly LabelledRow[])[];
  readonly hostLists: readonly (readonly string[])[];
  readonly forms: readonly FormRow[];
  readonly basePolicy: Policy;
}

/** Everything is read and validated before the first URL is judged, so a bad file fails fast. */
async function loadInputs(options: Options, cwd: string): Promise<Inputs> {
  const run = loadRunPolicy(options.policyFile, cwd);
  const resolvePolicy = policyResolver(run);
  const labelled = await Promise.all(options.urls.map((file) => readLabelled(file, cwd, resolvePolicy)));
  const hostLists = await Promise.all(options.legit.map((file) => readHosts(file, cwd)));
  const forms = (await Promise.all(options.forms.map(async (file) => readFormRows(file, cwd, resolvePolicy)))).flat();
  return { labelled, hostLists, forms, basePolicy: run.document.base };
}

const errorCodes = (findings: readonly { code: string; severity: string }[]): string[] =>
  findings.filter((f) => f.severity !== 'info').map((f) => f.code);

/** `eval`: block rate, false rejection rate and misses per category over labelled corpora and host lists. */
export async function evalCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const options = parseOptions(argv);
  if (options.help) {
    writeLine(io.stdout, HELP);
    return Exit.ok;
  }
  let inputs: Inputs;
  try {
    inputs = await loadInputs(options, io.cwd);
  } catch (error) {
    if (error instanceof InputError || GuardError.is(error)) {
      writeLine(io.stderr, `mcp-elicitation-guard eval: ${GuardError.is(error) ? `${error.code}: ` : ''}${error.message}`);
      return Exit.usage;
    }
    throw error;
  }
  const { labelled, hostLists, basePolicy } = inputs;

  const total = labelled.reduce((n, rows) => n + rows.length, 0) + hostLists.reduce((n, hosts) => n + hosts.length, 0);
  const progress = new Progress(io, total);
  const outcomes: Outcome[] = [];
  for (const rows of labelled) {
    for (const row of rows) {
      const { verdict, findings } = judgeUrl(row.url, row.policy);
      outcomes.push({ row, verdict, codes: errorCodes(findings) });
      progress.tick();
    }
  }
  const legitFiles: LegitFileResult[] = hostLists.map((hosts, index) => {
    let blocked = 0;
    let warned = 0;
    const blockedHosts: { host: string; codes: string[] }[] = [];
    for (const host of hosts) {
      const { verdict, findings } = judgeUrl(`https://${host}/`, basePolicy);
      if (verdict === 'block') {
        blocked++;
        blockedHosts.push({ host, codes: errorCodes(findings) });
      } else if (verdict === 'warn') warned++;
      progress.tick();
    }
    return {
      file: options.legit[index]!,
      hosts: hosts.length,
      blocked,
      warned,
      falseRejectionRate: hosts.length === 0 ? 0 : blocked / hosts.length,
      blockedHosts,
    };
  });
  progress.end();

  const urlSummary = summarise(options.urls, outcomes, legitFiles);
  const forms = options.forms.length > 0 ? evaluateForms(options.forms, inputs.forms, isMiss) : undefined;
  const summary: EvalSummary = forms === undefined ? urlSummary : { ...urlSummary, forms, misses: urlSummary.misses + forms.misses };
  const out = new BufferedWriter(io.stdout);
  await out.write(options.json ? JSON.stringify(summary, null, 2) + '\n' : humanReport(summary));
  await out.flush();
  return summary.misses === 0 ? Exit.ok : Exit.blocked;
}
