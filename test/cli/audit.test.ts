import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import type { GuardEvent } from '../../src/core/events.js';
import { createAuditLog } from '../../src/audit/log.js';
import { main } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/io.js';
import { memoryIo } from './memory-io.js';

const T0 = Date.parse('2026-12-01T09:00:00Z');
const everything = { key: 'everything', name: 'mcp-servers/everything', version: '1' };
const github = { key: 'github', name: 'github-mcp', version: '2' };

const EVENTS: GuardEvent[] = [
  {
    type: 'session.initialized',
    at: T0,
    generation: 1,
    server: everything,
    protocolVersion: '2025-11-25',
    modes: { form: true, url: true },
  },
  {
    type: 'form.sensitive',
    at: T0 + 1000,
    generation: 1,
    server: everything,
    action: 'blocked',
    requestId: 5,
    fields: [{ name: 'api_key', class: 'credential', reasons: ['name:api key'] }],
  },
  {
    type: 'elicitation.refused',
    at: T0 + 1000,
    generation: 1,
    server: everything,
    code: 'E_SENSITIVE_FIELD',
    mode: 'form',
    requestId: 5,
    reason: 'sensitive',
    findings: ['E_SENSITIVE_FIELD'],
  },
  {
    type: 'elicitation.refused',
    at: T0 + 2000,
    generation: 1,
    server: everything,
    code: 'E_URL_BLOCKED',
    mode: 'url',
    requestId: 6,
    reason: 'look-alike',
    findings: ['URL_LOOKALIKE_HOMOGLYPH'],
  },
  {
    type: 'elicitation.refused',
    at: T0 + 3000,
    generation: 1,
    server: everything,
    code: 'E_SENSITIVE_FIELD',
    mode: 'form',
    requestId: 7,
    reason: 'sensitive',
    findings: ['E_SENSITIVE_FIELD'],
  },
  {
    type: 'elicitation.forwarded',
    at: T0 + 3_600_000,
    generation: 1,
    server: github,
    mode: 'form',
    requestId: 1,
    verdict: 'allow',
    findings: [],
    host: null,
  },
  {
    type: 'exception.used',
    at: T0 + 3_600_500,
    generation: 1,
    server: github,
    kind: 'form-field',
    requestId: 2,
    target: 'token_name',
    reason: 'a label, not a token',
    findings: ['E_SENSITIVE_FIELD'],
  },
];

function writeLog(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'meg-audit-')), 'audit.jsonl');
  const log = createAuditLog(file);
  for (const e of EVENTS) log.write(e);
  return file;
}

async function run(
  args: string[],
  extra: Partial<CliIo & { now: () => number; abort: AbortSignal; pollMs: number }> = {},
  stdout?: PassThrough,
) {
  const m = memoryIo();
  const io = { ...m.io, now: () => T0 + 7_200_000, ...extra, ...(stdout === undefined ? {} : { stdout }) } as CliIo;
  const code = await main(args, io);
  return { code, out: m.stdout(), err: m.stderr() };
}

describe('audit show | tail | summary', () => {
  it('summary: a table of decisions per server and code', async () => {
    const file = writeLog();
    await vi.waitFor(async () => expect((await run(['audit', 'summary', file])).out).toContain('7 events'));
    const r = await run(['audit', 'summary', file]);
    expect(r.code).toBe(0);
    const lines = r.out.split('\n');
    expect(lines[0]).toMatch(/^server +decision +code +count +first +last$/u);
    expect(r.out).toMatch(/everything +block form +E_SENSITIVE_FIELD +2 +2026-12-01T09:00:01\.000Z +2026-12-01T09:00:03\.000Z/u);
    expect(r.out).toMatch(/everything +block url +E_URL_BLOCKED +1 /u);
    expect(r.out).toMatch(/github +allow form +- +1 /u);
    expect(r.out).toMatch(/github +exception form-field +token_name +1 /u);
    expect(r.out).toContain('7 events from 2 servers, 2026-12-01T09:00:00.000Z to 2026-12-01T10:00:00.500Z');
    const json = JSON.parse((await run(['audit', 'summary', file, '--json', '--server', 'github'])).out) as {
      events: number;
      rows: { decision: string }[];
    };
    expect(json.events).toBe(2);
    expect(json.rows.map((r) => r.decision)).toEqual(['allow form', 'exception form-field']);
  });

  it('show: one human line per event, with filters by server, type and time', async () => {
    const file = writeLog();
    await vi.waitFor(async () => expect((await run(['audit', 'show', file])).out.trim().split('\n')).toHaveLength(7));
    const all = (await run(['audit', 'show', file])).out;
    expect(all).toContain('2026-12-01T09:00:01.000Z  BLOCK form from everything: field "api_key" (credential: name:api key)');
    expect(all).toContain(
      '2026-12-01T10:00:00.500Z  EXCEPTION form-field for github: "token_name" allowed (E_SENSITIVE_FIELD): a label, not a token',
    );
    expect(
      (await run(['audit', 'show', file, '--server', 'mcp-servers/everything', '--type', 'elicitation'])).out.trim().split('\n'),
    ).toHaveLength(3);
    expect((await run(['audit', 'show', file, '--type', 'form.sensitive,exception'])).out.trim().split('\n')).toHaveLength(2);
    // The clock says 11:00: "the last 90 minutes" is github's hour only.
    expect((await run(['audit', 'show', file, '--since', '90m'])).out.trim().split('\n')).toHaveLength(2);
    expect(
      (await run(['audit', 'show', file, '--until', '2026-12-01T09:00:01Z', '--json'])).out
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as GuardEvent).type),
    ).toEqual(['session.initialized', 'form.sensitive', 'elicitation.refused']);
    expect((await run(['audit', 'show', file, '--since', 'yesterday-ish'])).code).toBe(2);
  });

  it('skips lines that are not events, and says so', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'meg-audit-')), 'audit.jsonl');
    writeFileSync(file, `${JSON.stringify(EVENTS[1])}\n{ torn line\n[1,2]\n${JSON.stringify(EVENTS[3])}\n`);
    const r = await run(['audit', 'show', file]);
    expect(r.out.trim().split('\n')).toHaveLength(2);
    expect(r.err).toContain('2 of 4 lines are not audit events');
  });

  it('tail -n prints the last events; --follow prints what is appended until stopped', async () => {
    const file = writeLog();
    await vi.waitFor(async () => expect((await run(['audit', 'show', file])).out.trim().split('\n')).toHaveLength(7));
    expect(
      (await run(['audit', 'tail', file, '-n', '2'])).out
        .trim()
        .split('\n')
        .map((l) => l.slice(26, 40)),
    ).toEqual(['ALLOW form fro', 'EXCEPTION form']);
    const abort = new AbortController();
    const out = new PassThrough();
    let seen = '';
    out.on('data', (d: Buffer) => (seen += d.toString()));
    const following = run(
      ['audit', 'tail', file, '-n', '0', '--follow', '--type', 'elicitation.refused'],
      { abort: abort.signal, pollMs: 20 },
      out,
    );
    await new Promise((r) => setTimeout(r, 100));
    appendFileSync(
      file,
      JSON.stringify({ ...EVENTS[3], at: T0 + 9000, requestId: 99 }) +
        '\n' +
        JSON.stringify(EVENTS[0]) +
        '\n' +
        JSON.stringify({ ...EVENTS[4], at: T0 + 9500 }).slice(0, 40),
    );
    await vi.waitFor(() => expect(seen).toContain('E_URL_BLOCKED'), { timeout: 5000 });
    abort.abort();
    expect((await following).code).toBe(0);
    expect(seen.trim().split('\n')).toHaveLength(1);
  });
});
