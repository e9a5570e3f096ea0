/**
 * The proxy with SDK v2 on both sides: a real v2 host speaks stdio to the proxy process, the v2
 * fixture server runs upstream as a child process or behind Streamable HTTP, in the 2026-07-28 era
 * and in the 2025-11-25 era (the server's legacy shim).
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MODERN_URLS } from '../../fixtures/servers/modern-server.js';
import { Client, clientOptions, FIXTURE_SERVER, serveHttp, StdioClientTransport, type Era } from '../helpers/modern.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const TOKEN = 'ghp_R2d2C3poR2d2C3poR2d2C3poR2d2C3po1234';

type Report = {
  got: Record<string, { action: string; content?: unknown; _meta?: Record<string, unknown> }> | null;
  runs: number;
  rounds: number;
};

interface Host {
  readonly client: Client;
  readonly seen: Record<string, unknown>[];
  readonly logs: Record<string, unknown>[];
  call(tool: string): Promise<{ isError?: boolean; structuredContent?: Report; content?: unknown }>;
}

async function host(era: Era, upstream: string[]): Promise<Host> {
  const seen: Record<string, unknown>[] = [];
  const logs: Record<string, unknown>[] = [];
  const client = new Client({ name: 'unchangeable-v2-host', version: '1.0.0' }, clientOptions(era));
  client.setRequestHandler('elicitation/create', async (request) => {
    seen.push(request.params as Record<string, unknown>);
    if (request.params.mode === 'url') return { action: 'accept' };
    return { action: 'accept', content: { project: 'demo', note: `ship it with ${TOKEN}` } };
  });
  client.setNotificationHandler('notifications/message', async (n) => void logs.push(n.params as Record<string, unknown>));
  const args = ['--import', 'tsx', 'src/cli/main.ts', 'proxy', '--ledger', 'memory', ...upstream];
  await client.connect(new StdioClientTransport({ command: process.execPath, args, cwd: root, stderr: 'pipe' }));
  return { client, seen, logs, call: (tool) => client.callTool({ name: tool, arguments: {} }) as never };
}

const child = ['--', process.execPath, '--import', 'tsx', FIXTURE_SERVER];

describe.each([
  ['stdio child', 'modern'],
  ['Streamable HTTP', 'modern'],
  ['stdio child', 'legacy'],
] as const)('the proxy between a v2 host and a v2 server (%s upstream, %s era)', (upstreamKind, era) => {
  let h: Host;
  let closeHttp: (() => Promise<void>) | null = null;

  beforeAll(async () => {
    let upstream = child;
    if (upstreamKind === 'Streamable HTTP') {
      const http = await serveHttp();
      closeHttp = http.close;
      upstream = ['--upstream-url', http.url.href];
    }
    h = await host(era, upstream);
  }, 60_000);

  afterAll(async () => {
    await h?.client.close();
    await closeHttp?.();
  });

  it('keeps a password form from the host and tells it why in a log message', async () => {
    const result = await h.call('login_form');
    expect(h.seen).toEqual([]);
    if (era === 'modern')
      expect(result.structuredContent?.got?.login).toMatchObject({
        action: 'decline',
        _meta: { 'mcp-elicitation-guard/refusal': { code: 'E_SENSITIVE_FIELD' } },
      });
    else expect(result.isError).toBe(true);
    await vi.waitFor(() =>
      expect(h.logs).toContainEqual(
        expect.objectContaining({
          logger: 'mcp-elicitation-guard',
          data: expect.objectContaining({ event: 'elicitation.refused', code: 'E_SENSITIVE_FIELD' }),
        }),
      ),
    );
  }, 30_000);

  it('refuses a homograph URL and delivers the legitimate OAuth URL', async () => {
    await h.call('homograph_url');
    expect(h.seen).toEqual([]);
    const oauth = await h.call('oauth_url');
    expect(oauth.structuredContent?.got).toEqual({ github: { action: 'accept' } });
    expect(h.seen.map((p) => p.url)).toEqual([MODERN_URLS.oauth]);
  }, 30_000);

  it('withholds a secret typed into an ordinary field', async () => {
    const note = await h.call('note_form');
    expect(note.structuredContent?.got).toEqual({ note: { action: 'cancel' } });
    expect(JSON.stringify(note)).not.toContain(TOKEN);
  }, 30_000);
});
