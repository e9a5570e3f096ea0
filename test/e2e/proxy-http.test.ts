/**
 * The proxy in front of a Streamable HTTP server (`--upstream-url`): the host speaks stdio to the
 * proxy, the proxy speaks HTTP to an SDK server in this process, on 127.0.0.1 and a free port.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { PassThrough } from 'node:stream';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ElicitRequestSchema,
  ElicitResultSchema,
  ListToolsRequestSchema,
  LoggingMessageNotificationSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { proxyCommand } from '../../src/cli/proxy.js';
import { GuardMetaKey } from '../../src/protocol/wire.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const OAUTH_URL =
  'https://github.com/login/oauth/authorize?client_id=Iv1.8a61f9b3a7aba766&state=5be0c2a9&' +
  'code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256';

const PASSWORD_FORM = {
  type: 'object' as const,
  properties: { username: { type: 'string' as const, title: 'Username' }, password: { type: 'string' as const, title: 'Password' } },
  required: ['username', 'password'],
};

/** A tools/call handler that reports, as text, what came back from its nested elicitation. */
function mcpServer(): Server {
  const server = new Server({ name: 'http-fixture', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: ['ask-password', 'open-oauth'].map((name) => ({ name, inputSchema: { type: 'object' as const, properties: {} } })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const params =
      request.params.name === 'ask-password'
        ? { mode: 'form' as const, message: 'Sign in to the registry', requestedSchema: PASSWORD_FORM }
        : { mode: 'url' as const, message: 'Connect your GitHub account', url: OAUTH_URL, elicitationId: 'http-oauth-1' };
    let text: string;
    try {
      // Related to the tools/call, so the SDK sends it on that POST's event stream.
      const result = await extra.sendRequest({ method: 'elicitation/create', params }, ElicitResultSchema);
      text = JSON.stringify({ result });
    } catch (error) {
      text = JSON.stringify(
        error instanceof McpError ? { error: { code: error.code, data: error.data } } : { error: { message: (error as Error).message } },
      );
    }
    return { content: [{ type: 'text' as const, text }] };
  });
  return server;
}

interface HttpFixture {
  readonly url: string;
  /** The HTTP methods the server received, in order (DELETE ends a session). */
  readonly methods: string[];
  close(): Promise<void>;
}

/** One MCP server session over Streamable HTTP on 127.0.0.1 and a free port. */
async function httpFixture(): Promise<HttpFixture> {
  const server = mcpServer();
  const serverTransport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
  await server.connect(serverTransport);
  const methods: string[] = [];
  const http = createServer((req, res) => {
    methods.push(req.method ?? '');
    if (req.url !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    serverTransport.handleRequest(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String((error as Error).message));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    methods,
    async close() {
      await server.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

const proxyArgs = (...rest: string[]) => ['--import', 'tsx', 'src/cli/main.ts', 'proxy', ...rest];
const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw-host', version: '1.0.0' } },
});
const audit = join(mkdtempSync(join(tmpdir(), 'meg-http-')), 'audit.jsonl');
const elicitations: Record<string, unknown>[] = [];
const logs: Record<string, unknown>[] = [];
let fixture: HttpFixture;
let client: Client;

async function call(name: string): Promise<Record<string, unknown>> {
  const result = await client.callTool({ name, arguments: {} });
  return JSON.parse((result.content as { text: string }[])[0]!.text) as Record<string, unknown>;
}

beforeAll(async () => {
  fixture = await httpFixture();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: proxyArgs('--ledger', 'memory', '--audit', audit, '--upstream-url', fixture.url),
    cwd: root,
    stderr: 'pipe',
  });
  client = new Client({ name: 'stdio-host', version: '1.0.0' }, { capabilities: { elicitation: { form: {}, url: {} } } });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    elicitations.push(request.params as Record<string, unknown>);
    return request.params.mode === 'url' ? { action: 'accept' } : { action: 'decline' };
  });
  client.setNotificationHandler(LoggingMessageNotificationSchema, async (n) => void logs.push(n.params as Record<string, unknown>));
  await client.connect(transport);
}, 30_000);

afterAll(async () => {
  await client?.close();
  await fixture?.close();
});

describe('the proxy in front of a Streamable HTTP server', () => {
  it('initializes through the proxy with the server over HTTP', () => {
    expect(client.getServerVersion()).toEqual({ name: 'http-fixture', version: '1.0.0' });
    expect(fixture.methods).toContain('POST');
  });

  it('refuses a password form: the HTTP server sees -32602 E_SENSITIVE_FIELD and the host is never asked', async () => {
    expect(await call('ask-password')).toMatchObject({
      error: { code: -32602, data: { code: 'E_SENSITIVE_FIELD', fields: [{ name: 'password', class: 'credential' }] } },
    });
    expect(elicitations).toHaveLength(0);
    await vi.waitFor(() =>
      expect(logs).toContainEqual(
        expect.objectContaining({
          data: expect.objectContaining({ event: 'elicitation.refused', code: 'E_SENSITIVE_FIELD', mode: 'form' }),
        }),
      ),
    );
  });

  it('delivers a legitimate URL elicitation to the host and the accept back to the server', async () => {
    expect(await call('open-oauth')).toEqual({ result: { action: 'accept' } });
    expect(elicitations).toHaveLength(1);
    expect(elicitations[0]).toMatchObject({ mode: 'url', url: OAUTH_URL, elicitationId: 'http-oauth-1' });
    expect((elicitations[0]?._meta as Record<string, { verdict: string }>)[GuardMetaKey.urlAnalysis]?.verdict).toBe('allow');
    await vi.waitFor(() => expect(readFileSync(audit, 'utf8')).toContain('"type":"receipt.business"'));
    expect(readFileSync(audit, 'utf8')).not.toContain('5be0c2a9');
  });
});

describe('the HTTP proxy ends its session and exits', () => {
  it('when the host closes its input: the command resolves (ledger and audit log closed) after DELETE ends the session', async () => {
    const http = await httpFixture();
    const host = new PassThrough();
    const out = new PassThrough();
    const lines: string[] = [];
    out.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
    const file = join(mkdtempSync(join(tmpdir(), 'meg-http-eof-')), 'audit.jsonl');
    onTestFinished(() => http.close());
    const exit = proxyCommand(['--ledger', 'memory', '--audit', file, '--upstream-url', http.url], {
      stdin: host,
      stdout: out,
      stderr: new PassThrough(),
      isTTY: false,
      cwd: root,
      signals: new EventEmitter(),
    });
    host.write(initialize + '\n');
    await vi.waitFor(() => expect(lines).toHaveLength(1), { timeout: 10_000 });
    host.end();
    expect(await exit).toBe(0);
    expect(http.methods).toContain('DELETE');
    expect(readFileSync(file, 'utf8')).toContain('"type":"session.initialized"');
  }, 20_000);

  it('on SIGTERM, which it cannot pass to a remote server: it ends the session and exits 0', async () => {
    const http = await httpFixture();
    const child = spawn(process.execPath, proxyArgs('--ledger', 'memory', '--upstream-url', http.url), {
      cwd: root,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    onTestFinished(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await http.close();
    });
    child.stdin.write(initialize + '\n');
    await vi.waitFor(() => expect(stdout).toContain('"serverInfo"'), { timeout: 10_000 });
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(http.methods).toContain('DELETE');
  }, 20_000);
});
