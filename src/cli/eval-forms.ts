/**
 * `eval --forms`: the form audit over labelled form corpora (JSON Lines), reported like `--urls`:
 * sensitive forms let through, ordinary forms blocked, personal forms not warned, misses per
 * category, and field classes that differ from the labels.
 */

import { auditForm } from '../form/index.js';
import type { FieldClass } from '../form/index.js';
import type { Policy } from '../policy/policy.js';
import type { Verdict } from '../protocol/verdict.js';
import { escapeText } from '../render/index.js';

/** One labelled form: `params` are `elicitation/create` params (or a bare `requestedSchema`). */
export interface FormRow {
  readonly file: string;
  readonly line: number;
  readonly id: string;
  readonly category: string;
  readonly params: unknown;
  readonly expected: Verdict;
  /** Expected class per field, when the row labels fields. */
  readonly fields: Readonly<Record<string, FieldClass>> | null;
  readonly policy: Policy;
}

export interface FormMiss {
  readonly file: string;
  readonly line: number;
  readonly id: string;
  readonly expected: Verdict;
  readonly verdict: Verdict;
  readonly codes: readonly string[];
}

export interface FormCategoryResult {
  readonly category: string;
  readonly rows: number;
  readonly misses: number;
  /** Expected block, not blocked. */
  readonly sensitiveLetThrough: number;
  /** Expected allow or warn, blocked. */
  readonly ordinaryBlocked: number;
  readonly missed: readonly FormMiss[];
}

export interface FieldMismatch {
  readonly file: string;
  readonly line: number;
  readonly id: string;
  readonly field: string;
  readonly expected: FieldClass;
  readonly got: FieldClass | null;
}

/** The `forms` part of `eval --json`. Rates are fractions in [0, 1] (`null` when there were no rows). */
export interface FormsSummary {
  readonly files: readonly string[];
  readonly rows: number;
  /** Rows expected `block` (a credential or payment field). */
  readonly sensitive: {
    readonly rows: number;
    readonly blocked: number;
    readonly letThrough: number;
    readonly letThroughRate: number | null;
  };
  /** Rows expected `allow` or `warn`. */
  readonly ordinary: { readonly rows: number; readonly blocked: number; readonly warned: number; readonly falseBlockRate: number | null };
  /** Rows expected `warn` (personal data, a warning finding) that came back `allow`. */
  readonly warnMissed: number;
  readonly categories: readonly FormCategoryResult[];
  readonly fieldMismatches: readonly FieldMismatch[];
  readonly misses: number;
}

const EXPECTED: ReadonlySet<string> = new Set(['allow', 'warn', 'block']);
const CLASSES: ReadonlySet<string> = new Set(['credential', 'payment', 'personal', 'ordinary']);

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The non-empty lines of a JSONL corpus, each a JSON object, with its line number and `file:line`; `fail` makes the error for a bad line. */
export function* jsonlObjects(
  text: string,
  file: string,
  fail: (message: string) => Error,
): Generator<{ readonly line: number; readonly where: string; readonly value: Record<string, unknown> }> {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    if (raw.trim() === '') continue;
    const where = `${file}:${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      throw fail(`${where}: not valid JSON`);
    }
    if (!isPlainObject(value)) throw fail(`${where}: not a JSON object`);
    yield { line: i + 1, where, value };
  }
}

/**
 * Parses one form corpus. A row: `{"params", "expected": {"verdict", "fields"?} | "block"|"warn"|"allow",
 * "category"?, "lang"?, "id"?, "policy"?}`. Without `category` the row's language names it
 * (`lang:fr`), else `uncategorised`. Throws `Error` with `file:line` on a bad row.
 */
export function parseFormRows(text: string, file: string, resolvePolicy: (override: unknown, where: string) => Policy): FormRow[] {
  const rows: FormRow[] = [];
  for (const { line, where, value } of jsonlObjects(text, file, (message) => new Error(message))) {
    if (!Object.hasOwn(value, 'params')) throw new Error(`${where}: "params" (elicitation/create params or a requestedSchema) is required`);
    const expectedRaw = value.expected;
    const verdict = isPlainObject(expectedRaw) ? expectedRaw.verdict : expectedRaw;
    if (typeof verdict !== 'string' || !EXPECTED.has(verdict))
      throw new Error(`${where}: "expected" must be "block", "warn" or "allow" (or {"verdict": ..., "fields": {...}})`);
    let fields: Record<string, FieldClass> | null = null;
    if (isPlainObject(expectedRaw) && expectedRaw.fields !== undefined) {
      if (!isPlainObject(expectedRaw.fields)) throw new Error(`${where}: "expected.fields" must be an object of field → class`);
      fields = {};
      for (const [name, cls] of Object.entries(expectedRaw.fields)) {
        if (typeof cls !== 'string' || !CLASSES.has(cls))
          throw new Error(`${where}: "expected.fields.${name}" must be credential, payment, personal or ordinary`);
        fields[name] = cls as FieldClass;
      }
    }
    const category =
      typeof value.category === 'string' && value.category !== ''
        ? value.category
        : typeof value.lang === 'string' && value.lang !== ''
          ? `lang:${value.lang}`
          : 'uncategorised';
    const id = typeof value.id === 'string' && value.id !== '' ? value.id : `line ${line}`;
    rows.push({
      file,
      line,
      id,
      category,
      params: value.params,
      expected: verdict as Verdict,
      fields,
      policy: resolvePolicy(value.policy, where),
    });
  }
  return rows;
}

const rate = (part: number, whole: number): number | null => (whole === 0 ? null : part / whole);

/** Audits every row and summarises; `isMiss` is the same rule as for URLs. */
export function evaluateForms(
  files: readonly string[],
  rows: readonly FormRow[],
  isMiss: (expected: Verdict, verdict: Verdict) => boolean,
): FormsSummary {
  let sensitiveRows = 0;
  let sensitiveBlocked = 0;
  let ordinaryRows = 0;
  let ordinaryBlocked = 0;
  let ordinaryWarned = 0;
  let warnMissed = 0;
  const categories = new Map<string, { rows: number; letThrough: number; blocked: number; missed: FormMiss[] }>();
  const fieldMismatches: FieldMismatch[] = [];
  for (const row of rows) {
    const audit = auditForm(row.params, row.policy);
    const verdict = audit.verdict;
    const codes = [...new Set(audit.findings.filter((f) => f.severity !== 'info').map((f) => f.code))];
    let category = categories.get(row.category);
    if (category === undefined) categories.set(row.category, (category = { rows: 0, letThrough: 0, blocked: 0, missed: [] }));
    category.rows++;
    if (row.expected === 'block') {
      sensitiveRows++;
      if (verdict === 'block') sensitiveBlocked++;
      else category.letThrough++;
    } else {
      ordinaryRows++;
      if (verdict === 'block') {
        ordinaryBlocked++;
        category.blocked++;
      } else if (verdict === 'warn') ordinaryWarned++;
      if (row.expected === 'warn' && verdict === 'allow') warnMissed++;
    }
    if (isMiss(row.expected, verdict))
      category.missed.push({ file: row.file, line: row.line, id: row.id, expected: row.expected, verdict, codes });
    if (row.fields !== null) {
      const got = new Map(audit.fields.map((f) => [f.name, f.class]));
      for (const [field, expected] of Object.entries(row.fields)) {
        const cls = got.get(field) ?? null;
        if (cls !== expected) fieldMismatches.push({ file: row.file, line: row.line, id: row.id, field, expected, got: cls });
      }
    }
  }
  const categoryResults = [...categories].map(([category, c]) => ({
    category,
    rows: c.rows,
    misses: c.missed.length,
    sensitiveLetThrough: c.letThrough,
    ordinaryBlocked: c.blocked,
    missed: c.missed,
  }));
  return {
    files,
    rows: rows.length,
    sensitive: {
      rows: sensitiveRows,
      blocked: sensitiveBlocked,
      letThrough: sensitiveRows - sensitiveBlocked,
      letThroughRate: rate(sensitiveRows - sensitiveBlocked, sensitiveRows),
    },
    ordinary: { rows: ordinaryRows, blocked: ordinaryBlocked, warned: ordinaryWarned, falseBlockRate: rate(ordinaryBlocked, ordinaryRows) },
    warnMissed,
    categories: categoryResults,
    fieldMismatches,
    misses: categoryResults.reduce((n, c) => n + c.misses, 0),
  };
}

const percent = (value: number | null): string => (value === null ? 'n/a' : `${(value * 100).toFixed(2)}%`);
const MISMATCHES_LISTED = 40;

/** The human report of the forms part. */
export function formsReport(s: FormsSummary): string[] {
  const out: string[] = [];
  out.push(`labelled forms: ${s.rows} rows from ${s.files.map(escapeText).join(', ')}`);
  out.push(
    `  sensitive (expected block):       ${s.sensitive.rows} rows, blocked ${s.sensitive.blocked} — let ` +
      `through ${s.sensitive.letThrough} (${percent(s.sensitive.letThroughRate)})`,
  );
  out.push(
    `  ordinary  (expected allow/warn):  ${s.ordinary.rows} rows, blocked ${s.ordinary.blocked} — false block ` +
      `rate ${percent(s.ordinary.falseBlockRate)}; warned ${s.ordinary.warned}; expected warn but allowed ${s.warnMissed}`,
  );
  out.push('', 'form misses by category:');
  const width = Math.max(8, ...s.categories.map((c) => c.category.length));
  out.push(`  ${'category'.padEnd(width)}  rows  misses  let-through  blocked`);
  for (const c of s.categories) {
    out.push(
      `  ${escapeText(c.category).padEnd(width)}  ${String(c.rows).padStart(4)}  ${String(c.misses).padStart(6)} ` +
        ` ${String(c.sensitiveLetThrough).padStart(11)}  ${String(c.ordinaryBlocked).padStart(7)}`,
    );
  }
  const missed = s.categories.flatMap((c) => c.missed.map((m) => ({ category: c.category, ...m })));
  if (missed.length > 0) {
    out.push('', 'missed forms:');
    for (const m of missed)
      out.push(
        `  [${escapeText(m.category)}] ${escapeText(m.file)}:${m.line} ${escapeText(m.id)} expected ${m.expected}, ` +
          `got ${m.verdict}${m.codes.length > 0 ? ` (${m.codes.map(escapeText).join(', ')})` : ''}`,
      );
  }
  if (s.fieldMismatches.length > 0) {
    out.push('', `field classes that differ from the labels: ${s.fieldMismatches.length}`);
    for (const f of s.fieldMismatches.slice(0, MISMATCHES_LISTED))
      out.push(
        `  ${escapeText(f.file)}:${f.line} ${escapeText(f.id)} field ${escapeText(JSON.stringify(f.field))}: ` +
          `expected ${f.expected}, got ${f.got ?? 'missing'}`,
      );
    if (s.fieldMismatches.length > MISMATCHES_LISTED)
      out.push(`  … and ${s.fieldMismatches.length - MISMATCHES_LISTED} more (--json lists all)`);
  }
  return out;
}
