import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  type McpError,
  UrlElicitationRequiredError,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const tsx = ['--import', 'tsx'];
const proxyArgs = (...rest: string[]) => [...tsx, 'src/cli/main.ts', 'proxy', ...rest];
const fixtureServer = [process.execPath, ...tsx, 'fixtures/servers/elicitation-server.ts'];

describe('the proxy between a real SDK host and a real server process', () => {
  const audit = join(mkdtempSync(join(tmpdir(), 'meg-proxy-')), 'audit.jsonl');
  const elicitations: Record<string, unknown>[] = [];
  const logs: Record<string, unknown>[] = [];
  const completions: string[] = [];
  let client: Client;

  async function call(name: string, args: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const result = await client.callTool({ name, arguments: args });
    return JSON.parse((result.content as { text: string }[])[0]!.text) as Record<string, unknown>;
  }

  beforeAll(async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: proxyArgs('--ledger', 'memory', '--audit', audit, '--', ...fixtureServer),
      cwd: root,
      stderr: 'pipe',
    });
    client = new Client({ name: 'unchangeable-host', version: '1.0.0' }, { capabilities: { elicitation: { form: {}, url: {} } } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      elicitations.push(request.params as Record<string, unknown>);
      return request.params.mode === 'url' ? { action: 'accept' } : { action: 'accept', content: { project: 'demo', replicas: 2 } };
    });
    client.setNotificationHandler(LoggingMessageNotificationSchema, async (n) => void logs.push(n.params as Record<string, unknown>));
    client.setNotificationHandler(ElicitationCompleteNotificationSchema, async (n) => void completions.push(n.params.elicitationId));
    await client.connect(transport);
  }, 30_000);

  afterAll(async () => {
    await client?.close();
  });

  it('answers a password form to the server and tells the host in a log message', async () => {
    expect(await call('ask-password')).toMatchObject({ error: { code: -32602, data: { code: 'E_SENSITIVE_FIELD' } } });
    expect(elicitations).toHaveLength(0);
    await vi.waitFor(() =>
      expect(logs).toContainEqual(
        expect.objectContaining({
          level: 'warning',
          logger: 'mcp-elicitation-guard',
          data: expect.objectContaining({ event: 'elicitation.refused', code: 'E_SENSITIVE_FIELD' }),
        }),
      ),
    );
  });

  it('delivers a benign form and a legitimate URL, refuses a homograph', async () => {
    expect(await call('ask-benign')).toEqual({ result: { action: 'accept', content: { project: 'demo', replicas: 2 } } });
    expect(await call('open-homograph')).toMatchObject({ error: { data: { code: 'E_URL_BLOCKED' } } });
    expect(await call('open-oauth')).toEqual({ result: { action: 'accept' } });
  });

  it('puts the warning of a suspicious URL in front of the message the host shows', async () => {
    expect(await call('open-suspicious')).toEqual({ result: { action: 'accept' } });
    const shown = elicitations.find((e) => e.elicitationId === 'odd-1');
    expect(String(shown?.message)).toMatch(/^⚠ Check this link before you open it \(xn--/);
    expect(String(shown?.message)).toContain('Connect your account');
    expect((shown?._meta as Record<string, { verdict: string }>)['mcp-elicitation-guard/url-analysis']?.verdict).toBe('warn');
  });

  it('carries the -32042 lineage through: the list reaches the host judged, one retry goes through, the next is refused', async () => {
    const required = await client.callTool({ name: 'pay', arguments: { invoice: 'INV-1' } }).then(
      () => null,
      (e: unknown) => e as UrlElicitationRequiredError,
    );
    expect(required).toBeInstanceOf(UrlElicitationRequiredError);
    expect(required!.elicitations[0]).toMatchObject({
      elicitationId: 'pay-1',
      _meta: { 'mcp-elicitation-guard/url-analysis': { verdict: 'allow' } },
    });
    expect(await call('pay', { invoice: 'INV-1' })).toEqual({ paid: 1 });
    const again = await client.callTool({ name: 'pay', arguments: { invoice: 'INV-1' } }).then(
      () => null,
      (e: unknown) => e as McpError,
    );
    expect(again?.data).toMatchObject({ code: 'E_RETRY_EXHAUSTED' });
  });

  it('drops unknown and repeated completions and writes a redacted audit log', async () => {
    await call('complete', { ids: ['nobody-asked', 'oauth-1', 'oauth-1'] });
    await vi.waitFor(() => expect(completions).toEqual(['oauth-1']));
    await vi.waitFor(() => expect(readFileSync(audit, 'utf8')).toContain('completion.dropped'));
    const text = readFileSync(audit, 'utf8');
    expect(text).toContain('"type":"receipt.consent"');
    expect(text).not.toContain('code_challenge=');
  });
});

/** Runs the proxy with raw stdio, writes `lines`, collects what it prints until it exits. */
function rawProxy(
  serverCommand: string[],
  lines: string[],
  options: { closeInput?: boolean; signal?: NodeJS.Signals; args?: string[] } = {},
) {
  const child = spawn(process.execPath, proxyArgs('--ledger', 'memory', ...(options.args ?? []), '--', ...serverCommand), {
    cwd: root,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  for (const line of lines) child.stdin.write(line + '\n');
  if (options.closeInput !== false) child.stdin.end();
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, out: () => stdout, err: () => stderr };
}

describe('the proxy never breaks the pipe', () => {
  it('answers a malformed host line with -32700 and forwards the next message', async () => {
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    const run = rawProxy(fixtureServer, ['{ not json', JSON.stringify({ jsonrpc: '2.0', id: 7, params: {} }), initialize], {
      closeInput: false,
    });
    await vi.waitFor(() => expect(run.out().split('\n').filter(Boolean).length).toBeGreaterThanOrEqual(3), { timeout: 15_000 });
    const [parse, invalid, init] = run
      .out()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(parse).toMatchObject({ id: null, error: { code: -32700 } });
    expect(invalid).toMatchObject({ id: 7, error: { code: -32600 } });
    expect(init).toMatchObject({ id: 1, result: { serverInfo: { name: 'elicitation-fixture' } } });
    expect(run.err()).toContain('not JSON');
    run.child.stdin.end();
    expect(await run.exited).toBe(0);
  }, 30_000);

  it('passes unchanged lines on as their bytes and re-serialises lines another parser could read differently, both ways', async () => {
    // The server logs every line it receives (its stderr comes through the proxy's) and, after the
    // handshake, writes one spaced line and one with "method" twice (JSON.parse keeps the last).
    const server =
      `
      const rl = require('readline').createInterface({ input: process.stdin });
      rl.on('line', (l) => {
        process.stderr.write('GOT ' + l + '\\n');
        const m = JSON.parse(l);
        if (m.method === 'initialize') process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { ` +
      `protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'raw', version: '1' } } }) + '\\n');
        if (m.method === 'notifications/initialized') {
          process.stdout.write('{"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "spaced"}}\\n');
          process.stdout.write('{"jsonrpc":"2.0","id":5,"method":"elicitation/create","params":{"mode":"form","message":"pw",` +
      `"requestedSchema":{"type":"object","properties":{"password":{"type":"string"}}}},"method":"ping"}\\n');
        }
      });`;
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: { elicitation: { form: {} } }, clientInfo: { name: 'raw', version: '1' } },
    });
    const spacedRequest = '{ "jsonrpc": "2.0", "id": 9, "method": "tools/list" }';
    const doubledRequest = '{"jsonrpc":"2.0","id":10,"method":"tools/call","method":"tools/list"}';
    const run = rawProxy(
      [process.execPath, '-e', server],
      [initialize, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), spacedRequest, doubledRequest],
      { closeInput: false },
    );
    await vi.waitFor(() => expect(run.out().split('\n').filter(Boolean)).toHaveLength(3), { timeout: 15_000 });
    await vi.waitFor(() => expect(run.err()).toContain('"id":10'), { timeout: 15_000 });
    const [, spaced, doubled] = run.out().split('\n').filter(Boolean);
    expect(spaced).toBe('{"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "spaced"}}');
    // The host gets what the guard judged, a ping; a first-wins parser never sees an elicitation.
    expect(doubled).not.toContain('elicitation/create');
    expect(JSON.parse(doubled!)).toMatchObject({ id: 5, method: 'ping' });
    expect(run.err()).toContain(`GOT ${spacedRequest}\n`);
    expect(run.err()).toContain('GOT {"jsonrpc":"2.0","id":10,"method":"tools/list"}\n');
    expect(run.err()).not.toContain('tools/call');
    run.child.stdin.end();
    expect(await run.exited).toBe(0);
  }, 30_000);

  it("exits with the server's exit code", async () => {
    const run = rawProxy([process.execPath, '-e', 'process.exit(3)'], [], { closeInput: false });
    expect(await run.exited).toBe(3);
    expect(run.out()).toBe('');
  }, 30_000);

  it('passes SIGTERM on to the server', async () => {
    // The server says when it runs (its stderr passes through the proxy): by then the proxy, which
    // installs its signal handlers before starting the server, forwards the signal.
    const server = [
      process.execPath,
      '-e',
      "process.on('SIGTERM', () => process.exit(42)); setInterval(() => {}, 1000); process.stderr.write('server up\\n')",
    ];
    const run = rawProxy(server, [], { closeInput: false });
    await vi.waitFor(() => expect(run.err()).toContain('server up'), { timeout: 20_000 });
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(42);
  }, 30_000);

  it('exits 2 with a clear message when the server cannot be started', async () => {
    const run = rawProxy(['/nonexistent/mcp-server'], [], { closeInput: false });
    expect(await run.exited).toBe(2);
    expect(run.err()).toContain('cannot start the server');
  }, 30_000);
});
