import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { evalCommand, isMiss, type EvalSummary } from '../../src/cli/eval.js';
import { main } from '../../src/cli/main.js';
import { parsePolicy } from '../../src/policy/policy.js';
import { memoryIo } from './memory-io.js';

const dir = mkdtempSync(join(tmpdir(), 'meg-eval-'));
let fileCount = 0;
function file(content: string, ext = 'jsonl'): string {
  const path = join(dir, `f${fileCount++}.${ext}`);
  writeFileSync(path, content);
  return path;
}
const rows = (...r: object[]): string => r.map((x) => JSON.stringify(x)).join('\n') + '\n';

// Rows whose verdicts do not hinge on fine engine heuristics.
const userinfo = { url: 'https://paypal.com@evil.com/', expected: 'block', category: 'userinfo' };
const script = { url: 'javascript:alert(1)', expected: 'block', category: 'scheme' };
const github = { url: 'https://github.com/login', expected: 'allow', category: 'plain' };
const devLocalhost = { url: 'http://localhost:3000/callback', expected: 'allow', category: 'dev', policy: { profile: 'development' } };

async function runJson(args: string[]): Promise<{ code: number; summary: EvalSummary; stderr: string }> {
  const m = memoryIo();
  const code = await evalCommand([...args, '--json'], m.io);
  return { code, summary: JSON.parse(m.stdout()) as EvalSummary, stderr: m.stderr() };
}

describe('isMiss', () => {
  it('counts only the disagreements that matter', () => {
    expect(isMiss('block', 'block')).toBe(false);
    expect(isMiss('block', 'warn')).toBe(true);
    expect(isMiss('block', 'allow')).toBe(true);
    expect(isMiss('allow', 'allow')).toBe(false);
    expect(isMiss('allow', 'warn')).toBe(false);
    expect(isMiss('allow', 'block')).toBe(true);
    expect(isMiss('warn', 'warn')).toBe(false);
    expect(isMiss('warn', 'allow')).toBe(true);
    expect(isMiss('warn', 'block')).toBe(true);
  });
});

describe('eval over labelled rows', () => {
  it('reports block rate, false rejection rate and categories, exit 0 when nothing is missed', async () => {
    const corpus = file(rows(userinfo, script, github, devLocalhost));
    const { code, summary } = await runJson(['--urls', corpus]);
    expect(code).toBe(0);
    expect(summary.misses).toBe(0);
    expect(summary.labelled.rows).toBe(4);
    expect(summary.labelled.malicious).toEqual({ rows: 2, blocked: 2, blockRate: 1 });
    expect(summary.labelled.legitimate).toMatchObject({ rows: 2, blocked: 0, falseRejectionRate: 0 });
    expect(summary.labelled.categories.map((c) => [c.category, c.rows, c.misses])).toEqual([
      ['userinfo', 1, 0],
      ['scheme', 1, 0],
      ['plain', 1, 0],
      ['dev', 1, 0],
    ]);
  });

  it('lists a missed row under its category with both verdicts and exits 1', async () => {
    const wrong = { url: 'https://github.com/login', expected: 'block', category: 'mislabelled' };
    const corpus = file(rows(userinfo, wrong));
    const { code, summary } = await runJson(['--urls', corpus]);
    expect(code).toBe(1);
    expect(summary.misses).toBe(1);
    const category = summary.labelled.categories.find((c) => c.category === 'mislabelled')!;
    expect(category.missed).toEqual([{ file: corpus, line: 2, url: wrong.url, expected: 'block', verdict: 'allow', codes: [] }]);
    expect(summary.labelled.malicious).toEqual({ rows: 2, blocked: 1, blockRate: 0.5 });
  });

  it('counts a blocked legitimate row as a false rejection', async () => {
    const corpus = file(rows({ url: 'javascript:alert(1)', expected: 'allow', category: 'legit-but-blocked' }, github));
    const { code, summary } = await runJson(['--urls', corpus]);
    expect(code).toBe(1);
    expect(summary.labelled.legitimate).toMatchObject({ rows: 2, blocked: 1, falseRejectionRate: 0.5 });
  });

  it('merges a row policy over the run policy', async () => {
    const withoutOverride = file(rows({ ...devLocalhost, policy: undefined }));
    expect((await runJson(['--urls', withoutOverride])).code).toBe(1);
    const runPolicy = file(JSON.stringify({ profile: 'development', url: { maxLength: 4096 } }), 'json');
    const production = file(rows({ ...devLocalhost, expected: 'block', policy: { profile: 'production' } }));
    const { code, summary } = await runJson(['--urls', production, '--policy', runPolicy]);
    expect(code).toBe(0);
    expect(summary.labelled.malicious.blocked).toBe(1);
  });

  it('prints a human report with escaped missed URLs', async () => {
    const hostile = { url: 'https://github.com/\u001b[2J\u202eexe', expected: 'allow', category: 'hostile' };
    const wrong = { url: 'https://github.com/login?\u001b]8;;x', expected: 'block', category: 'hostile' };
    const m = memoryIo();
    const code = await evalCommand(['--urls', file(rows(hostile, wrong))], m.io);
    expect(code).toBe(1);
    const out = m.stdout();
    expect(out).toContain('misses by category:');
    expect(out).toMatch(/hostile\s+2\s+\d/);
    expect(out).toContain('\\u{1B}');
    expect(out).not.toMatch(/[\u001b\u202e]/);
    expect(out).toMatch(/result: \d+ labelled expectations? missed/);
  });
});

describe('eval over legitimate host lists', () => {
  it('reads hosts with comments and tab columns and reports false rejections without failing the run', async () => {
    const hosts = file('# comment\n\ngithub.com\nwww.google.com\tsome\tcolumns\n  \ncom\n', 'txt');
    const { code, summary } = await runJson(['--legit', hosts]);
    expect(code).toBe(0);
    expect(summary.legitFiles).toHaveLength(1);
    const result = summary.legitFiles[0]!;
    expect(result).toMatchObject({ file: hosts, hosts: 3, blocked: 1 });
    expect(result.falseRejectionRate).toBeCloseTo(1 / 3);
    expect(result.blockedHosts.map((b) => b.host)).toEqual(['com']);
    expect(result.blockedHosts[0]!.codes.length).toBeGreaterThan(0);
  });

  it('shows progress on a non-terminal stderr every 10,000 URLs, and none on a short run', async () => {
    const many = file(Array.from({ length: 10_000 }, (_, i) => `site-${i}.example.com`).join('\n'), 'txt');
    const m = memoryIo();
    await evalCommand(['--legit', many], m.io);
    expect(m.stderr()).toBe('eval: 10000/10000 URLs\n');
    const short = memoryIo();
    await evalCommand(['--legit', file('github.com\n', 'txt')], short.io);
    expect(short.stderr()).toBe('');
  }, 60_000);
});

describe('eval usage errors', () => {
  it('exits 2 without inputs or with an unknown flag', async () => {
    expect(await main(['eval'], memoryIo().io)).toBe(2);
    expect(await main(['eval', '--urls', file(rows(github)), '--fast'], memoryIo().io)).toBe(2);
  });

  it('exits 2 on an unreadable corpus', async () => {
    const m = memoryIo();
    expect(await evalCommand(['--urls', join(dir, 'missing.jsonl')], m.io)).toBe(2);
    expect(m.stderr()).toContain('cannot read');
  });

  it('exits 2 naming the file and line of a malformed row', async () => {
    const bad = file(rows(github) + '{"url": "https://x.com/", "category": "c"}\n');
    const m = memoryIo();
    expect(await evalCommand(['--urls', bad], m.io)).toBe(2);
    expect(m.stderr()).toContain(`${bad}:2: "expected" must be`);
    const notJson = file('not json\n');
    const n = memoryIo();
    expect(await evalCommand(['--urls', notJson], n.io)).toBe(2);
    expect(n.stderr()).toContain(`${notJson}:1: not valid JSON`);
  });

  it('exits 2 on an invalid row policy or run policy', async () => {
    const m = memoryIo();
    expect(await evalCommand(['--urls', file(rows({ ...github, policy: { profile: 'staging' } }))], m.io)).toBe(2);
    expect(m.stderr()).toContain(':1:');
    const p = memoryIo();
    expect(await evalCommand(['--urls', file(rows(github)), '--policy', join(dir, 'nope.json')], p.io)).toBe(2);
    expect(p.stderr()).toContain('E_POLICY_UNREADABLE');
  });
});

describe('the shipped URL corpus (fixtures/urls)', () => {
  const corpusDir = fileURLToPath(new URL('../../fixtures/urls/', import.meta.url));
  const malicious = join(corpusDir, 'malicious.jsonl');
  const legitimate = join(corpusDir, 'legitimate.jsonl');
  const parseRows = (path: string): Record<string, unknown>[] =>
    readFileSync(path, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);

  it('has well-formed rows: url, expected, category, why, and an optional policy that parses', () => {
    for (const path of [malicious, legitimate]) {
      for (const row of parseRows(path)) {
        expect(Object.keys(row).every((k) => ['url', 'expected', 'category', 'why', 'policy'].includes(k))).toBe(true);
        expect(typeof row.url === 'string' && row.url !== '').toBe(true);
        expect(['allow', 'warn', 'block']).toContain(row.expected);
        expect(typeof row.category === 'string' && row.category !== '').toBe(true);
        expect(typeof row.why === 'string' && (row.why as string).length > 10).toBe(true);
        if (row.policy !== undefined) expect(() => parsePolicy(row.policy)).not.toThrow();
      }
    }
  });

  it('holds at least 600 malicious rows expected to block and 150 legitimate rows, with no duplicate row', () => {
    const bad = parseRows(malicious);
    const good = parseRows(legitimate);
    expect(bad.length).toBeGreaterThanOrEqual(600);
    expect(bad.every((r) => r.expected === 'block')).toBe(true);
    expect(good.length).toBeGreaterThanOrEqual(150);
    expect(good.every((r) => r.expected === 'allow' || r.expected === 'warn')).toBe(true);
    // The same URL may appear twice only under different policies (http://localhost in production and in development).
    const keys = [...bad, ...good].map((r) => JSON.stringify([r.url, r.policy ?? null]));
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('writes invisible, bidi and control characters as \\u escapes so the files stay readable', () => {
    for (const path of [malicious, legitimate]) {
      const text = readFileSync(path, 'utf8');
      expect(text).not.toMatch(
        /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u00a0\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/,
      );
    }
    expect(readFileSync(malicious, 'utf8')).toContain('\\u202e');
  });

  it('pins the profile of every http: row, so the label holds whatever policy a run uses', () => {
    for (const row of [...parseRows(malicious), ...parseRows(legitimate)]) {
      if (!/^http:/i.test(row.url as string)) continue;
      const profile = (row.policy as { profile?: string } | undefined)?.profile;
      expect(profile, row.url as string).toBe(row.expected === 'block' ? 'production' : 'development');
    }
  });

  it('is read by eval in full', async () => {
    const { code, summary } = await runJson(['--urls', malicious, '--urls', legitimate]);
    expect(code).not.toBe(2);
    expect(summary.labelled.rows).toBe(parseRows(malicious).length + parseRows(legitimate).length);
    expect(summary.labelled.malicious.rows).toBe(parseRows(malicious).length);
  });
});

describe('eval --forms', () => {
  const password = {
    id: 'pw',
    category: 'login',
    params: { message: 'Sign in', requestedSchema: { type: 'object', properties: { password: { type: 'string' } } } },
    expected: { verdict: 'block', fields: { password: 'credential' } },
  };
  const plain = {
    id: 'plain',
    lang: 'en',
    params: { message: 'Settings', requestedSchema: { type: 'object', properties: { theme: { type: 'string', enum: ['a', 'b'] } } } },
    expected: { verdict: 'allow', fields: { theme: 'ordinary' } },
  };
  const wrong = {
    id: 'wrong',
    category: 'login',
    params: { message: 'Settings', requestedSchema: { type: 'object', properties: { api_key: { type: 'string' } } } },
    expected: 'allow',
  };

  it('reports sensitive forms let through, ordinary forms blocked and categories', async () => {
    const { code, summary } = await runJson(['--forms', file(rows(password, plain))]);
    expect(code).toBe(0);
    expect(summary.forms?.sensitive).toEqual({ rows: 1, blocked: 1, letThrough: 0, letThroughRate: 0 });
    expect(summary.forms?.ordinary).toMatchObject({ rows: 1, blocked: 0, falseBlockRate: 0 });
    expect(summary.forms?.categories.map((c) => [c.category, c.rows, c.misses])).toEqual([
      ['login', 1, 0],
      ['lang:en', 1, 0],
    ]);
    expect(summary.forms?.fieldMismatches).toEqual([]);
    expect(summary.labelled.rows).toBe(0);
  });

  it('exits 1 on a missed row and names it in the human report', async () => {
    const m = memoryIo();
    expect(await evalCommand(['--forms', file(rows(password, wrong))], m.io)).toBe(1);
    expect(m.stdout()).toContain('form misses by category');
    expect(m.stdout()).toMatch(/\[login\] .*:2 wrong expected allow, got block \(E_SENSITIVE_FIELD\)/);
    const { summary } = await runJson(['--forms', file(rows(password, wrong))]);
    expect(summary.misses).toBe(1);
    expect(summary.forms?.ordinary.blocked).toBe(1);
  });

  it('reports field classes that differ from the labels without counting them as misses', async () => {
    const mislabelled = { ...password, id: 'ml', expected: { verdict: 'block', fields: { password: 'payment' } } };
    const { code, summary } = await runJson(['--forms', file(rows(mislabelled))]);
    expect(code).toBe(0);
    expect(summary.forms?.fieldMismatches).toEqual([
      expect.objectContaining({ id: 'ml', field: 'password', expected: 'payment', got: 'credential' }),
    ]);
  });

  it('runs --urls and --forms together, misses added up', async () => {
    const { summary } = await runJson(['--urls', file(rows(userinfo)), '--forms', file(rows(password))]);
    expect(summary.labelled.rows).toBe(1);
    expect(summary.forms?.rows).toBe(1);
    expect(summary.misses).toBe(0);
  });

  it('rejects bad rows with their location (exit 2)', async () => {
    for (const bad of [
      '{"params": {}}',
      '{"expected": "block"}',
      '{"params": {}, "expected": {"verdict": "block", "fields": {"a": "secret"}}}',
      'nope',
    ]) {
      const m = memoryIo();
      expect(await evalCommand(['--forms', file(bad + '\n')], m.io)).toBe(2);
      expect(m.stderr()).toMatch(/:1: /);
    }
  });
});

describe('the shipped form sets (fixtures/forms)', () => {
  const formsDir = fileURLToPath(new URL('../../fixtures/forms/', import.meta.url));
  it.each(['labelled.jsonl', 'blind.jsonl', 'real-world.jsonl'])(
    '%s: no sensitive form let through, no ordinary form blocked',
    async (name) => {
      const { code, summary } = await runJson(['--forms', join(formsDir, name)]);
      expect(summary.forms?.sensitive.letThrough).toBe(0);
      expect(summary.forms?.ordinary.blocked).toBe(0);
      expect(code).toBe(0);
    },
  );
});

describe('eval: URL sets file by file', () => {
  it('reports each --urls file on its own, next to the totals', async () => {
    const { summary } = await runJson([
      '--urls',
      fileURLToPath(new URL('../../fixtures/urls/blind/blind.jsonl', import.meta.url)),
      '--urls',
      fileURLToPath(new URL('../../fixtures/urls/real-world.jsonl', import.meta.url)),
    ]);
    expect(summary.labelled.byFile.map((f) => f.file.split('/').slice(-1)[0])).toEqual(['blind.jsonl', 'real-world.jsonl']);
    const [blind, real] = summary.labelled.byFile;
    expect(blind!.rows + real!.rows).toBe(summary.labelled.rows);
    expect(blind!.malicious + real!.malicious).toBe(summary.labelled.malicious.rows);
    expect(blind!.blocked).toBe(blind!.malicious);
    expect(real!.legitimateBlocked).toBe(0);
  });
});
