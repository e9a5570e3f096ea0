import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { checkUrlCommand } from '../../src/cli/check-url.js';
import { main } from '../../src/cli/main.js';
import { memoryIo } from './memory-io.js';

const LEGIT = 'https://github.com/login';
const USERINFO = 'https://paypal.com@evil.com/';
const SCRIPT = 'javascript:alert(1)';

const jsonLines = (text: string): Record<string, unknown>[] =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

function tempFile(name: string, content: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'meg-check-url-')), name);
  writeFileSync(file, content);
  return file;
}

describe('check-url with URL arguments', () => {
  it('prints each URL with its verdict and the registrable domain bracketed, exit 1 when one is blocked', async () => {
    const m = memoryIo();
    const code = await checkUrlCommand([LEGIT, USERINFO], m.io);
    expect(code).toBe(1);
    const out = m.stdout();
    expect(out).toContain(`ALLOW https://[github.com]/login`);
    expect(out).toMatch(/BLOCK https:\/\/paypal\.com@\[evil\.com\]\//);
    expect(out).toContain('[error] URL_USERINFO');
    expect(out).not.toContain('\u001b');
  });

  it('exits 0 when nothing is blocked', async () => {
    const m = memoryIo();
    expect(await checkUrlCommand([LEGIT], m.io)).toBe(0);
  });

  it('renders ANSI when stdout is a terminal', async () => {
    const m = memoryIo({ isTTY: true });
    await checkUrlCommand([LEGIT], m.io);
    expect(m.stdout()).toContain('\u001b[1;4mgithub.com\u001b[22;24m');
  });

  it('never lets an escape sequence from the URL reach the terminal raw', async () => {
    const m = memoryIo({ isTTY: true });
    await checkUrlCommand(['https://example.com/\u001b[2J\u001b]8;;https://evil.net\u0007x'], m.io);
    const withoutOwnStyling = m.stdout().replace(/\u001b\[[0-9;]*m/g, '');
    expect(withoutOwnStyling).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(withoutOwnStyling).toMatch(/BLOCK .*example\.com/);
  });

  it('prints one JSON object per URL with --json', async () => {
    const m = memoryIo();
    const code = await checkUrlCommand(['--json', LEGIT, SCRIPT], m.io);
    expect(code).toBe(1);
    const [first, second] = jsonLines(m.stdout());
    expect(first).toMatchObject({
      url: LEGIT,
      verdict: 'allow',
      findings: expect.any(Array),
      display: { host: 'github.com', registrableDomain: 'github.com' },
    });
    expect(second).toMatchObject({ url: SCRIPT, verdict: 'block' });
    expect(Object.keys(first!)).toEqual(['url', 'verdict', 'findings', 'display']);
  });

  it('applies --policy: a development profile lets a localhost callback through', async () => {
    const policy = tempFile('dev.json', JSON.stringify({ profile: 'development' }));
    const url = 'http://localhost:3000/callback';
    expect(await checkUrlCommand(['--json', url], memoryIo().io)).toBe(1);
    const m = memoryIo();
    expect(await checkUrlCommand(['--policy', policy, '--json', url], m.io)).toBe(0);
    expect(jsonLines(m.stdout())[0]).toMatchObject({ verdict: 'allow' });
  });
});

describe('check-url --jsonl', () => {
  it('keeps the input order, copies other fields through and adds verdict, findings and display', async () => {
    const input = [
      JSON.stringify({ id: 1, url: LEGIT, meta: { source: 'a' } }),
      '',
      JSON.stringify({ url: USERINFO, id: 2 }),
      '   ',
      JSON.stringify({ id: 3, url: SCRIPT, tags: ['x'] }),
    ].join('\n');
    const m = memoryIo({ stdin: input });
    const code = await checkUrlCommand(['--jsonl'], m.io);
    expect(code).toBe(1);
    const rows = jsonLines(m.stdout());
    expect(rows.map((r) => r.id)).toEqual([1, 2, 3]);
    expect(rows[0]).toMatchObject({
      id: 1,
      url: LEGIT,
      meta: { source: 'a' },
      verdict: 'allow',
      display: { registrableDomain: 'github.com' },
    });
    expect(Object.keys(rows[1]!)).toEqual(['url', 'id', 'verdict', 'findings', 'display']);
    expect(rows[1]).toMatchObject({ verdict: 'block' });
    expect(rows[2]).toMatchObject({ id: 3, tags: ['x'], verdict: 'block' });
  });

  it('answers a line that is not an object with a url with E_INPUT and goes on', async () => {
    const input = [
      'not json',
      '[1,2]',
      '"https://github.com/"',
      JSON.stringify({ id: 'no-url' }),
      JSON.stringify({ id: 'num', url: 42 }),
      JSON.stringify({ id: 'ok', url: LEGIT }),
    ].join('\n');
    const m = memoryIo({ stdin: input });
    const code = await checkUrlCommand(['--jsonl'], m.io);
    expect(code).toBe(1);
    const rows = jsonLines(m.stdout());
    expect(rows).toHaveLength(6);
    for (const row of rows.slice(0, 5)) {
      expect(row.verdict).toBe('block');
      expect(row.findings).toEqual([expect.objectContaining({ code: 'E_INPUT', severity: 'error' })]);
    }
    expect(rows[0]).toMatchObject({ line: 1 });
    expect(rows[3]).toMatchObject({ id: 'no-url' });
    expect(rows[4]).toMatchObject({ id: 'num', url: 42 });
    expect(rows[5]).toMatchObject({ id: 'ok', verdict: 'allow' });
    expect(m.stdout()).not.toContain('not json');
  });

  it('exits 0 when every line is allowed, and handles CRLF line ends', async () => {
    const m = memoryIo({ stdin: `${JSON.stringify({ url: LEGIT })}\r\n${JSON.stringify({ url: 'https://www.google.com/' })}\r\n` });
    expect(await checkUrlCommand(['--jsonl'], m.io)).toBe(0);
    expect(jsonLines(m.stdout()).map((r) => r.verdict)).toEqual(['allow', 'allow']);
  });

  it('completes a 30,000-line batch in order', async () => {
    const urls = [
      LEGIT,
      USERINFO,
      'https://accounts.google.com/o/oauth2/v2/auth?client_id=abc&response_type=code',
      'https://xn--80ak6aa92e.com/',
      SCRIPT,
    ];
    function* lines(): Generator<string> {
      for (let i = 0; i < 30_000; i++) yield JSON.stringify({ n: i, url: urls[i % urls.length] }) + '\n';
    }
    const m = memoryIo({ stdin: Readable.from(lines()) });
    const code = await checkUrlCommand(['--jsonl'], m.io);
    expect(code).toBe(1);
    const rows = jsonLines(m.stdout());
    expect(rows).toHaveLength(30_000);
    expect(rows.every((r, i) => r.n === i && r.url === urls[i % urls.length])).toBe(true);
    expect(rows.filter((r) => r.verdict === 'block').length).toBeGreaterThanOrEqual(12_000);
  }, 120_000);
});

describe('check-url usage errors', () => {
  it('exits 2 without URLs and without --jsonl', async () => {
    const m = memoryIo();
    expect(await main(['check-url'], m.io)).toBe(2);
    expect(m.stderr()).toContain('give at least one URL');
  });

  it('exits 2 on an unknown flag', async () => {
    const m = memoryIo();
    expect(await main(['check-url', '--frobnicate', LEGIT], m.io)).toBe(2);
    expect(m.stderr()).toContain('--frobnicate');
  });

  it('exits 2 when --jsonl is combined with URL arguments', async () => {
    expect(await main(['check-url', '--jsonl', LEGIT], memoryIo().io)).toBe(2);
  });

  it('exits 2 on an unreadable or invalid policy file', async () => {
    const missing = memoryIo();
    expect(await main(['check-url', '--policy', '/nonexistent/meg-policy.json', LEGIT], missing.io)).toBe(2);
    expect(missing.stderr()).toContain('E_POLICY_UNREADABLE');
    const invalid = memoryIo();
    expect(await main(['check-url', '--policy', tempFile('bad.json', '{"profile": "staging"}'), LEGIT], invalid.io)).toBe(2);
    expect(invalid.stderr()).toContain('E_POLICY_INVALID');
  });

  it('prints help with exit 0', async () => {
    const m = memoryIo();
    expect(await main(['check-url', '--help'], m.io)).toBe(0);
    expect(m.stdout()).toContain('--jsonl');
  });
});
