/**
 * `proxy --ui`: the real proxy process between a real SDK host and the fixture server, with the
 * query page beside it. The access link goes to a private file (never to stderr, which hosts keep
 * in their logs); a URL flow prints a one-line hint with its address; the page's actions and the
 * rollback switch act on the proxy's live guard.
 */
import { readFileSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RollbackFile } from '../../src/ui/rollback.js';
import { tempDir } from '../ledger/support.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const tsx = ['--import', 'tsx'];

describe('proxy --ui', { timeout: 60_000 }, () => {
  const tmp = tempDir('mcp-eg-proxy-ui-');
  const ledgerFile = join(tmp.dir, 'ledger.sqlite');
  let client: Client;
  let stderr = '';
  let base: string;
  let accessFile: string;
  let cookie: string;

  async function call(name: string): Promise<Record<string, unknown>> {
    const result = await client.callTool({ name, arguments: {} });
    return JSON.parse((result.content as { text: string }[])[0]!.text) as Record<string, unknown>;
  }

  async function page(path: string, init: RequestInit = {}): Promise<Response> {
    return fetch(base + path, {
      redirect: 'manual',
      ...init,
      headers: { cookie, ...(init.headers as Record<string, string> | undefined) },
    });
  }

  async function post(path: string, form: Record<string, string>, from: string): Promise<Response> {
    const csrf = /name="csrf" value="([^"]+)"/.exec(await (await page(from)).text())![1]!;
    return page(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ ...form, csrf }).toString(),
    });
  }

  beforeAll(async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        ...tsx,
        'src/cli/main.ts',
        'proxy',
        '--ledger',
        ledgerFile,
        '--ui',
        '--',
        process.execPath,
        ...tsx,
        'fixtures/servers/elicitation-server.ts',
      ],
      cwd: root,
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    client = new Client({ name: 'host-without-ui', version: '1.0.0' }, { capabilities: { elicitation: { form: {}, url: {} } } });
    client.setRequestHandler(ElicitRequestSchema, async (request) =>
      request.params.mode === 'url' ? { action: 'accept' } : { action: 'decline' },
    );
    await client.connect(transport);
    await vi.waitFor(() => expect(stderr).toMatch(/query page at http:\/\/127\.0\.0\.1:\d+\/ \(open the access link in .+\)\n/), {
      timeout: 30_000,
      interval: 50,
    });
    const m = /query page at (http:\/\/127\.0\.0\.1:\d+)\/ \(open the access link in (.+)\)\n/.exec(stderr)!;
    base = m[1]!;
    accessFile = m[2]!;
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    tmp.remove();
  });

  it('writes the access link to a file only its user can read, and never prints the key', async () => {
    expect(accessFile).toBe(join(tmp.dir, `query-page-${new URL(base).port}.url`));
    expect(statSync(accessFile).mode & 0o777).toBe(0o600);
    const link = readFileSync(accessFile, 'utf8').trim();
    const key = new URL(link).searchParams.get('key')!;
    expect(key.length).toBeGreaterThanOrEqual(43);
    expect(stderr).not.toContain(key);
    const exchanged = await fetch(link, { redirect: 'manual' });
    expect(exchanged.status).toBe(303);
    cookie = exchanged.headers.get('set-cookie')!.split(';')[0]!;
  });

  it('prints a one-line hint with the address when a URL flow starts; the page acts on the flow through the live guard', async () => {
    expect(await call('open-oauth')).toEqual({ result: { action: 'accept' } });
    await vi.waitFor(() =>
      expect(stderr).toMatch(/URL flow nav_[0-9a-f]+ started; query page http:\/\/127\.0\.0\.1:\d+\/flows\/nav_[0-9a-f]+\n/),
    );
    const oauth = /URL flow (nav_[0-9a-f]+) started/.exec(stderr)![1]!;
    expect(stderr).toContain(`${base}/flows/${oauth}`);
    const detail = await (await page(`/flows/${oauth}`)).text();
    expect(detail).toContain('The full URL, held in memory by the running guard');
    // The nested original was answered at once: the flow is over, and the guard says so.
    expect(await (await post(`/flows/${oauth}/confirm`, {}, `/flows/${oauth}`)).json()).toMatchObject({
      ok: false,
      code: 'E_ILLEGAL_TRANSITION',
      message: expect.stringContaining('ORIGINAL_RESPONSE_ACCEPTED is terminal'),
    });

    // A -32042 requirement the host has not acted on yet: the user gives it up on the page.
    await expect(client.callTool({ name: 'pay', arguments: {} })).rejects.toMatchObject({ code: -32042 });
    await vi.waitFor(() => expect(stderr.match(/URL flow nav_[0-9a-f]+ started/g)).toHaveLength(2));
    const pay = [...stderr.matchAll(/URL flow (nav_[0-9a-f]+) started/g)][1]![1]!;
    expect(await (await post(`/flows/${pay}/cancel`, {}, `/flows/${pay}`)).json()).toEqual({
      ok: true,
      from: 'USER_REVIEW',
      state: 'CANCELLED',
      via: 'guard',
    });
  });

  it('the rollback switch stops the proxy issuing URL elicitations, and resumes it', async () => {
    expect(await (await post('/rollback/issuing', { issuing: 'stopped' }, '/rollback')).json()).toEqual({ ok: true, issuing: 'stopped' });
    // The guard answers the server itself: the host is never asked.
    expect(await call('open-oauth')).toEqual({ result: { action: 'decline', _meta: expect.objectContaining({}) } });
    expect(await (await post('/rollback/revoke', { confirm: 'yes' }, '/rollback')).json()).toEqual({ ok: true, revoked: 0 });
    expect(await (await post('/rollback/issuing', { issuing: 'open' }, '/rollback')).json()).toEqual({ ok: true, issuing: 'open' });
    expect((await page('/')).status).toBe(200);
  });

  it('follows the switch file another process writes (ledger serve over the same ledger)', async () => {
    const file = new RollbackFile(tmp.dir);
    expect(file.read().issuing).toBe('open');
    file.write({ issuing: 'stopped' });
    await vi.waitFor(
      async () =>
        expect({ answer: await call('open-oauth'), file: file.read(), stderr }).toMatchObject({
          answer: { result: { action: 'decline' } },
        }),
      { timeout: 20_000, interval: 200 },
    );
    file.write({ issuing: 'open' });
    await vi.waitFor(async () => expect(await call('open-oauth')).toEqual({ result: { action: 'accept' } }), {
      timeout: 15_000,
      interval: 200,
    });
  });

  it('removes the access link file when the proxy exits', async () => {
    await client.close();
    await vi.waitFor(() => expect(existsSync(accessFile)).toBe(false), { timeout: 20_000, interval: 50 });
  });
});

describe('proxy --ui when the page cannot start', { timeout: 60_000 }, () => {
  it('runs without the page when the port is taken, and says so', async () => {
    const tmp = tempDir('mcp-eg-proxy-ui-busy-');
    const { createServer } = await import('node:net');
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    let stderr = '';
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        ...tsx,
        'src/cli/main.ts',
        'proxy',
        '--ledger',
        join(tmp.dir, 'ledger.sqlite'),
        `--ui=${port}`,
        '--',
        process.execPath,
        ...tsx,
        'fixtures/servers/elicitation-server.ts',
      ],
      cwd: root,
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: 'host', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept' }));
    try {
      await client.connect(transport);
      const result = await client.callTool({ name: 'open-oauth', arguments: {} });
      expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toEqual({ result: { action: 'accept' } });
      expect(stderr).toMatch(/the query page could not start \(.*\); running without it/);
      expect(stderr).not.toContain('URL flow');
    } finally {
      await client.close();
      blocker.close();
      tmp.remove();
    }
  });

  it('refuses --ui given twice, or a port that is not one', async () => {
    const { spawnSync } = await import('node:child_process');
    for (const args of [['--ui', '--ui'], ['--ui=70000'], ['--ui=abc']]) {
      const run = spawnSync(process.execPath, [...tsx, 'src/cli/main.ts', 'proxy', '--ledger', 'memory', ...args, '--', 'true'], {
        cwd: root,
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(/mcp-elicitation-guard proxy: (--ui given twice|--ui must be a port number)/);
    }
  });
});
