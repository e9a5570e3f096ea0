import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditSchemaCommand } from '../../src/cli/audit-schema.js';
import type { CliIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';

interface Run {
  readonly io: CliIo;
  readonly stdin: PassThrough;
  /** stdout split into lines, read live. */
  readonly lines: string[];
  stdout(): string;
  stderr(): string;
}

function run(cwd: string, stdinText?: string): Run {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: string[] = [];
  const err: string[] = [];
  const lines: string[] = [];
  let partial = '';
  stdout.on('data', (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    out.push(text);
    partial += text;
    const parts = partial.split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
  });
  stderr.on('data', (chunk: Buffer) => err.push(chunk.toString('utf8')));
  if (stdinText !== undefined) stdin.end(stdinText);
  return { io: { stdin, stdout, stderr, isTTY: false, cwd }, stdin, lines, stdout: () => out.join(''), stderr: () => err.join('') };
}

const loginParams = {
  message: 'Sign in',
  requestedSchema: { type: 'object', properties: { email: { type: 'string', format: 'email' }, password: { type: 'string' } } },
};
const settingsSchema = { type: 'object', properties: { max_tokens: { type: 'integer' }, temperature: { type: 'number' } } };
const contactParams = {
  message: 'Contact',
  requestedSchema: { type: 'object', properties: { email: { type: 'string', format: 'email' } } },
};

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audit-schema-'));
  writeFileSync(join(dir, 'login.json'), JSON.stringify(loginParams));
  writeFileSync(join(dir, 'settings.json'), '\ufeff' + JSON.stringify(settingsSchema));
  writeFileSync(join(dir, 'broken.json'), '{"message": ');
  writeFileSync(join(dir, 'audit-policy.json'), JSON.stringify({ form: { onSensitive: 'audit' } }));
  writeFileSync(join(dir, 'bad-policy.json'), JSON.stringify({ form: { onSensitive: 'sometimes' } }));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('audit-schema FILE', () => {
  it('prints verdict, fields and findings and exits 1 when the form is blocked', async () => {
    const r = run(dir);
    expect(await auditSchemaCommand(['login.json'], r.io)).toBe(1);
    const result = JSON.parse(r.stdout());
    expect(Object.keys(result)).toEqual(['verdict', 'fields', 'findings']);
    expect(result.verdict).toBe('block');
    expect(result.fields).toEqual([
      { name: 'email', class: 'personal', reasons: ['format:email', 'name:email'] },
      { name: 'password', class: 'credential', reasons: ['name:password'] },
    ]);
    expect(result.findings).toContainEqual(expect.objectContaining({ code: 'E_SENSITIVE_FIELD', severity: 'error', field: 'password' }));
    for (const f of result.findings)
      expect(Object.keys(f).sort()).toEqual(
        f.field === undefined ? ['code', 'message', 'severity'] : ['code', 'field', 'message', 'severity'],
      );
  });

  it('reads a bare requestedSchema (with a byte order mark) and exits 0 when nothing is blocked', async () => {
    const r = run(dir);
    expect(await auditSchemaCommand(['settings.json'], r.io)).toBe(0);
    expect(JSON.parse(r.stdout())).toEqual({
      verdict: 'allow',
      fields: [
        { name: 'max_tokens', class: 'ordinary', reasons: [] },
        { name: 'temperature', class: 'ordinary', reasons: [] },
      ],
      findings: [],
    });
  });

  it('reads stdin for "-" and for no FILE; a warning still exits 0', async () => {
    for (const argv of [['-'], []]) {
      const r = run(dir, JSON.stringify(contactParams));
      expect(await auditSchemaCommand(argv, r.io)).toBe(0);
      expect(JSON.parse(r.stdout()).verdict).toBe('warn');
    }
  });

  it('exits 2 on a missing file or unparseable input, printing nothing to stdout', async () => {
    const missing = run(dir);
    expect(await auditSchemaCommand(['nope.json'], missing.io)).toBe(2);
    expect(missing.stderr()).toContain('ENOENT');
    const broken = run(dir);
    expect(await auditSchemaCommand(['broken.json'], broken.io)).toBe(2);
    expect(broken.stderr()).toContain('E_INPUT');
    const stdin = run(dir, 'not json');
    expect(await auditSchemaCommand([], stdin.io)).toBe(2);
    expect(missing.stdout() + broken.stdout() + stdin.stdout()).toBe('');
  });

  it('applies --policy: audit mode turns a block into a warning (exit 0)', async () => {
    const r = run(dir);
    expect(await auditSchemaCommand(['login.json', '--policy', 'audit-policy.json'], r.io)).toBe(0);
    const result = JSON.parse(r.stdout());
    expect(result.verdict).toBe('warn');
    expect(result.findings).toContainEqual(expect.objectContaining({ code: 'E_SENSITIVE_FIELD', severity: 'warning' }));
  });

  it('exits 2 on an invalid or missing policy file', async () => {
    for (const file of ['bad-policy.json', 'no-policy.json']) {
      const r = run(dir);
      expect(await auditSchemaCommand(['login.json', '--policy', file], r.io)).toBe(2);
      expect(r.stderr()).toMatch(/E_POLICY_(INVALID|UNREADABLE)/);
      expect(r.stdout()).toBe('');
    }
  });

  it('prints usage for --help', async () => {
    const r = run(dir);
    expect(await auditSchemaCommand(['--help'], r.io)).toBe(0);
    expect(r.stdout()).toContain('audit-schema [FILE|-]');
    expect(r.stdout()).toContain('--jsonl');
  });
});

describe('audit-schema --jsonl', () => {
  it('writes one line per input line, in order, copying other keys through', async () => {
    const input = [
      JSON.stringify({ id: 'a', params: loginParams }),
      JSON.stringify({ id: 'b', tag: { nested: [1, 2] }, params: settingsSchema }),
      JSON.stringify({ id: 'c', params: contactParams }),
    ].join('\n');
    const r = run(dir, input + '\n');
    expect(await auditSchemaCommand(['--jsonl'], r.io)).toBe(1);
    const out = r
      .stdout()
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(out.map((o) => [o.id, o.verdict])).toEqual([
      ['a', 'block'],
      ['b', 'allow'],
      ['c', 'warn'],
    ]);
    expect(out[1]).toEqual({
      id: 'b',
      tag: { nested: [1, 2] },
      params: settingsSchema,
      verdict: 'allow',
      fields: expect.any(Array),
      findings: [],
    });
    expect(Object.keys(out[0])).toEqual(['id', 'params', 'verdict', 'fields', 'findings']);
  });

  it('gives a bad line verdict block and E_INPUT and goes on; blank lines are skipped', async () => {
    const input = [
      'not json',
      '',
      '   ',
      '[1,2]',
      'null',
      JSON.stringify({ id: 'no-params' }),
      JSON.stringify({ id: 'ok', params: settingsSchema }),
    ].join('\r\n');
    const r = run(dir, input);
    expect(await auditSchemaCommand(['--jsonl', '-'], r.io)).toBe(1);
    const out = r
      .stdout()
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(out).toHaveLength(5);
    expect(out.slice(0, 4).map((o) => [o.verdict, o.findings[0].code, o.findings[0].message])).toEqual([
      ['block', 'E_INPUT', 'line 1: not valid JSON'],
      ['block', 'E_INPUT', 'line 4: not a JSON object'],
      ['block', 'E_INPUT', 'line 5: not a JSON object'],
      ['block', 'E_INPUT', 'line 6: no "params" key'],
    ]);
    expect(out[3].id).toBe('no-params');
    expect(out[4]).toMatchObject({ id: 'ok', verdict: 'allow' });
  });

  it('exits 0 when no line is blocked, and on empty input', async () => {
    const r = run(dir, JSON.stringify({ params: contactParams }) + '\n');
    expect(await auditSchemaCommand(['--jsonl'], r.io)).toBe(0);
    const empty = run(dir, '');
    expect(await auditSchemaCommand(['--jsonl'], empty.io)).toBe(0);
    expect(empty.stdout()).toBe('');
  });

  it('streams: a line is answered before the input ends', async () => {
    const r = run(dir);
    const done = auditSchemaCommand(['--jsonl'], r.io);
    r.stdin.write(JSON.stringify({ id: 'first', params: settingsSchema }) + '\n');
    for (let i = 0; i < 200 && r.lines.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(r.lines.map((l) => JSON.parse(l).id)).toEqual(['first']);
    r.stdin.end(JSON.stringify({ id: 'second', params: loginParams }) + '\n');
    expect(await done).toBe(1);
    expect(r.lines.map((l) => JSON.parse(l).id)).toEqual(['first', 'second']);
  });

  it('keeps a __proto__ key of an input line as data', async () => {
    const r = run(dir, '{"__proto__": {"polluted": true}, "params": ' + JSON.stringify(settingsSchema) + '}\n');
    expect(await auditSchemaCommand(['--jsonl'], r.io)).toBe(0);
    const line = r.stdout().trim();
    expect(line.startsWith('{"__proto__":{"polluted":true},"params":')).toBe(true);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('reads JSON Lines from a FILE too, and exits 2 when it is missing', async () => {
    writeFileSync(join(dir, 'batch.jsonl'), JSON.stringify({ params: loginParams }) + '\n');
    const r = run(dir);
    expect(await auditSchemaCommand(['--jsonl', 'batch.jsonl'], r.io)).toBe(1);
    expect(JSON.parse(r.stdout()).verdict).toBe('block');
    const missing = run(dir);
    expect(await auditSchemaCommand(['--jsonl', 'nope.jsonl'], missing.io)).toBe(2);
  });
});

describe('audit-schema in the command table', () => {
  it('is registered with its summary and reports bad usage with exit 2', async () => {
    const help = run(dir);
    expect(await main(['--help'], help.io)).toBe(0);
    expect(help.stdout()).toContain('audit-schema [FILE|-] [--policy FILE] [--jsonl]');
    const bad = run(dir);
    expect(await main(['audit-schema', '--frobnicate'], bad.io)).toBe(2);
    expect(bad.stderr()).toContain('audit-schema');
    const two = run(dir);
    expect(await main(['audit-schema', 'a.json', 'b.json'], two.io)).toBe(2);
  });
});
