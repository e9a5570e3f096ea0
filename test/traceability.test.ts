/**
 * Traceability: every client MUST / SHOULD of spec 2025-11-25 elicitation and every rule of the
 * design (`fixtures/requirements.json`) names the tests that check it, and those tests exist.
 *
 * Test ids are collected by reading the test files, not by running vitest (a `vitest list` of the
 * whole suite takes half a minute): `describe` / `it` / `test` calls with a literal title, nested by
 * their call's parentheses, modifiers and `.each(table)` included. A title with a `%s`-style or
 * `$name` placeholder, or a `${…}` interpolation, is kept as a pattern that matches any text there.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface Call {
  readonly title: string;
  /** The title has placeholders filled in at run time. */
  readonly templated: boolean;
}

const SUITE = /^(describe|it|test|suite)\b/;
const MODIFIER = /^\.(skip|only|todo|concurrent|sequential|shuffle|fails|runIf|skipIf|each|for)\b/;

/** Where the literal starting at `at` ends (exclusive); handles escapes and `${…}` in templates. */
function skipString(src: string, at: number): number {
  const quote = src[at]!;
  let i = at + 1;
  while (i < src.length) {
    const ch = src[i]!;
    if (ch === '\\') i += 2;
    else if (ch === quote) return i + 1;
    else if (quote === '`' && ch === '$' && src[i + 1] === '{') i = skipBalanced(src, i + 1, '{', '}');
    else i++;
  }
  return i;
}

/** From an opening bracket at `at`, the index after its matching closer (strings, comments, regexes skipped). */
function skipBalanced(src: string, at: number, open: string, close: string): number {
  let depth = 0;
  let i = at;
  while (i < src.length) {
    const next = skipTrivia(src, i);
    if (next !== i) {
      i = next;
      continue;
    }
    const ch = src[i]!;
    if (ch === open) depth++;
    else if (ch === close && --depth === 0) return i + 1;
    i++;
  }
  return i;
}

/** Skips a string, comment or regex literal at `i`; returns `i` itself when there is none. */
function skipTrivia(src: string, i: number): number {
  const ch = src[i]!;
  if (ch === '"' || ch === "'" || ch === '`') return skipString(src, i);
  if (ch === '/' && src[i + 1] === '/') {
    const end = src.indexOf('\n', i);
    return end === -1 ? src.length : end;
  }
  if (ch === '/' && src[i + 1] === '*') {
    const end = src.indexOf('*/', i + 2);
    return end === -1 ? src.length : end + 2;
  }
  if (ch === '/' && /[(,=:[!&|?{};+\-*%<>~^]$|^$|\breturn$|\btypeof$/.test(src.slice(Math.max(0, i - 8), i).trimEnd())) {
    // A regex literal: a slash where an operand is expected.
    let j = i + 1;
    let inClass = false;
    while (j < src.length && src[j] !== '\n') {
      const c = src[j]!;
      if (c === '\\') j += 2;
      else {
        if (c === '[') inClass = true;
        else if (c === ']') inClass = false;
        else if (c === '/' && !inClass) return j + 1;
        j++;
      }
    }
    return i + 1;
  }
  return i;
}

/** The title literal at `at` (after whitespace), or null when the first argument is not a literal. */
function titleAt(src: string, at: number): (Call & { readonly end: number }) | null {
  let i = at;
  while (/\s/.test(src[i] ?? '')) i++;
  const quote = src[i];
  if (quote !== '"' && quote !== "'" && quote !== '`') return null;
  const end = skipString(src, i);
  const raw = src.slice(i + 1, end - 1);
  const title =
    quote === '`' ? raw : (JSON.parse(quote === '"' ? `"${raw}"` : `"${raw.replace(/\\'/g, "'").replace(/"/g, '\\"')}"`) as string);
  return { title, templated: quote === '`' && raw.includes('${'), end };
}

/** Every test id a file declares, as `path > describe … > it`. */
function testIdsOf(src: string, path: string): Call[] {
  const ids: Call[] = [];
  const stack: { readonly title: string; readonly templated: boolean; readonly closesAt: number }[] = [];
  let i = 0;
  while (i < src.length) {
    while (stack.length > 0 && i >= stack[stack.length - 1]!.closesAt) stack.pop();
    const skipped = skipTrivia(src, i);
    if (skipped !== i) {
      i = skipped;
      continue;
    }
    const match = /[A-Za-z_$.]/.test(src[i - 1] ?? ' ') ? null : SUITE.exec(src.slice(i, i + 9));
    if (match === null) {
      i++;
      continue;
    }
    const kind = match[1]!;
    let j = i + kind.length;
    let each = false;
    for (let m = MODIFIER.exec(src.slice(j, j + 12)); m !== null; m = MODIFIER.exec(src.slice(j, j + 12))) {
      j += m[0].length;
      if (m[1] === 'each' || m[1] === 'for' || m[1] === 'runIf' || m[1] === 'skipIf') {
        each ||= m[1] === 'each' || m[1] === 'for';
        while (/\s/.test(src[j] ?? '')) j++;
        j = src[j] === '`' ? skipString(src, j) : src[j] === '(' ? skipBalanced(src, j, '(', ')') : j;
      }
    }
    while (/\s/.test(src[j] ?? '')) j++;
    if (src[j] !== '(') {
      i = j > i ? j : i + 1;
      continue;
    }
    const title = titleAt(src, j + 1);
    if (title === null) {
      i = j + 1;
      continue;
    }
    const templated = title.templated || (each && /%[sdifjoc#%]|\$[A-Za-z_#]/.test(title.title));
    const closesAt = skipBalanced(src, j, '(', ')');
    const parents = stack.map((s) => s.title);
    if (kind === 'describe' || kind === 'suite') {
      stack.push({ title: title.title, templated, closesAt });
    } else {
      ids.push({ title: [path, ...parents, title.title].join(' > '), templated: templated || stack.some((s) => s.templated) });
    }
    i = title.end;
  }
  return ids;
}

/** A pattern for a templated id: literal text, with any text where a placeholder stands. */
function patternOf(id: string): RegExp {
  const parts = id.split(/(\$\{(?:[^{}]|\{[^{}]*\})*\}|%[sdifjoc#]|\$[A-Za-z_#][\w.]*)/);
  const source = parts.map((p, k) => (k % 2 === 1 ? '.+?' : p.replace(/%%/g, '%').replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('');
  return new RegExp(`^${source}$`, 's');
}

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

interface Row {
  readonly id: string;
  readonly source: string;
  readonly section: string;
  readonly level: string;
  readonly text: string;
  readonly tests: readonly string[];
  readonly excluded?: string;
}

const requirements = JSON.parse(readFileSync(join(ROOT, 'fixtures/requirements.json'), 'utf8')) as { readonly rows: readonly Row[] };
const declared = testFiles(join(ROOT, 'test')).flatMap((file) =>
  testIdsOf(readFileSync(file, 'utf8'), relative(ROOT, file).split('\\').join('/')),
);
const exact = new Set(declared.filter((d) => !d.templated).map((d) => d.title));
const patterns = declared.filter((d) => d.templated).map((d) => patternOf(d.title));
const exists = (id: string): boolean => exact.has(id) || patterns.some((p) => p.test(id));

describe('fixtures/requirements.json', () => {
  it('gives every row an id, a source, a quoted text and a level, and no id twice', () => {
    expect(requirements.rows.length).toBeGreaterThan(40);
    const ids = requirements.rows.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const row of requirements.rows) {
      expect(row.source, row.id).toMatch(/^(spec 2025-11-25|DESIGN\.md|SEP-1036|lifecycle)/);
      expect(row.text.length, row.id).toBeGreaterThan(10);
      expect(['MUST', 'MUST NOT', 'SHOULD', 'SHOULD NOT', 'MAY', 'RULE'], row.id).toContain(row.level);
    }
  });

  it('maps every row to at least one test, or states why it is excluded', () => {
    const untested = requirements.rows.filter((r) => r.tests.length === 0 && (r.excluded ?? '').trim().length < 20);
    expect(untested.map((r) => r.id)).toEqual([]);
  });

  it('names only tests that exist', () => {
    expect(declared.length).toBeGreaterThan(500);
    const missing = requirements.rows.flatMap((r) => r.tests.filter((t) => !exists(t)).map((t) => `${r.id}: ${t}`));
    expect(missing).toEqual([]);
  });
});

describe('reading test ids from source', () => {
  const source = [
    "import { describe, it } from 'vitest';",
    "describe('outer (with parens)', () => {",
    "  const re = /\\(/; // it('not a test')",
    "  it('first', () => expect(')').toBe(')'));",
    '  describe("inner", () => {',
    "    it.each([1, 2])('row %s', (n) => {});",
    "    test.concurrent(`in ${'a'}`, () => {});",
    '  });',
    "  it('second, after the inner block', () => {});",
    '});',
    "it('top level', () => {});",
  ].join('\n');
  const ids = testIdsOf(source, 'x.test.ts');

  it('nests titles by their describe calls and skips strings, comments and regexes', () => {
    expect(ids.map((d) => d.title)).toEqual([
      'x.test.ts > outer (with parens) > first',
      'x.test.ts > outer (with parens) > inner > row %s',
      "x.test.ts > outer (with parens) > inner > in ${'a'}",
      'x.test.ts > outer (with parens) > second, after the inner block',
      'x.test.ts > top level',
    ]);
  });

  it('matches the names vitest gives to templated titles, and nothing else', () => {
    const row = patternOf(ids[1]!.title);
    expect(ids[1]!.templated).toBe(true);
    expect(row.test('x.test.ts > outer (with parens) > inner > row 2')).toBe(true);
    expect(row.test('x.test.ts > outer (with parens) > inner > rows 2')).toBe(false);
    expect(patternOf(ids[2]!.title).test('x.test.ts > outer (with parens) > inner > in a')).toBe(true);
    expect(ids[0]!.templated).toBe(false);
  });
});
