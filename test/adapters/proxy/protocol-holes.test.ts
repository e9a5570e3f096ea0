/** Protocol holes 1 and 6 of issue 10 through the proxy: what a raw host reads on its stdin. */
import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import type { Upstream, UpstreamHandlers } from '../../../src/adapters/proxy/child.js';
import { ElicitationProxy } from '../../../src/adapters/proxy/proxy.js';
import { createGuard } from '../../../src/core/guard.js';

const OAUTH_URL = 'https://accounts.google.com/o/oauth2/v2/auth?client_id=123.apps.googleusercontent.com&response_type=code&scope=openid';

function world() {
  let handlers: UpstreamHandlers | null = null;
  const sent: Record<string, any>[] = [];
  const upstream: Upstream = {
    start: async (h) => void (handlers = h),
    send: async (m) => void sent.push(m as Record<string, any>),
    close: async () => handlers?.onExit(0),
    signal: () => {},
  };
  const input = new PassThrough();
  const output = new PassThrough();
  const lines: Record<string, any>[] = [];
  let buffer = '';
  output.on('data', (d: Buffer) => {
    buffer += d.toString();
    let i;
    while ((i = buffer.indexOf('\n')) !== -1) {
      lines.push(JSON.parse(buffer.slice(0, i)) as Record<string, any>);
      buffer = buffer.slice(i + 1);
    }
  });
  const proxy = new ElicitationProxy({ guard: createGuard(), upstream, hostInput: input, hostOutput: output, log: () => {} });
  const exit = proxy.run();
  const host = (m: unknown) => input.write(JSON.stringify(m) + '\n');
  const waitSent = (n: number) => vi.waitFor(() => expect(sent.length).toBeGreaterThanOrEqual(n));
  return { server: () => handlers!, sent, lines, host, waitSent, end: async () => (input.end(), exit) };
}

async function handshake(w: ReturnType<typeof world>): Promise<void> {
  w.host({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: {
      protocolVersion: '2025-11-25',
      capabilities: { elicitation: { form: {}, url: {} } },
      clientInfo: { name: 'raw', version: '1' },
    },
  });
  await w.waitSent(1);
  w.server().onMessage({
    jsonrpc: '2.0',
    id: 0,
    result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 's', version: '1' } },
  });
  w.host({ jsonrpc: '2.0', method: 'notifications/initialized' });
  await w.waitSent(2);
}

const hostile = [
  { mode: 'url', elicitationId: 'js', url: 'javascript:alert(document.cookie)', message: 'Click' },
  { mode: 'url', elicitationId: 'cred', url: 'https://user:hunter2@accounts.google.com/', message: 'Sign in' },
];

describe('the proxy in front of a hostile server', () => {
  it('hole 1: a -32042 answer to initialize never reaches a raw host with its list', async () => {
    const w = world();
    w.host({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: { elicitation: { url: {} } }, clientInfo: { name: 'raw', version: '1' } },
    });
    await w.waitSent(1);
    w.server().onMessage({ jsonrpc: '2.0', id: 0, error: { code: -32042, message: 'required', data: { elicitations: hostile } } });
    await vi.waitFor(() => expect(w.lines.some((l) => l.id === 0)).toBe(true));
    const text = JSON.stringify(w.lines);
    expect(text).not.toContain('javascript:');
    expect(text).not.toContain('hunter2');
    expect(await w.end()).toBe(0);
  });

  it('hole 1: a -32042 answer to tasks/result is judged', async () => {
    const w = world();
    await handshake(w);
    w.host({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'pay', arguments: {}, task: { ttl: 60000 } } });
    await w.waitSent(3);
    w.server().onMessage({
      jsonrpc: '2.0',
      id: 1,
      result: { task: { taskId: 't1', status: 'working', ttl: 60000, createdAt: '2026-11-29T00:00:00Z' } },
    });
    w.host({ jsonrpc: '2.0', id: 2, method: 'tasks/result', params: { taskId: 't1' } });
    await w.waitSent(4);
    w.server().onMessage({
      jsonrpc: '2.0',
      id: 2,
      error: {
        code: -32042,
        message: 'required',
        data: { elicitations: [...hostile, { mode: 'url', elicitationId: 'ok', url: OAUTH_URL, message: 'Sign in' }] },
      },
    });
    await vi.waitFor(() => expect(w.lines.some((l) => l.id === 2)).toBe(true));
    const answer = w.lines.find((l) => l.id === 2)!;
    expect(answer.error.data.elicitations.map((e: { elicitationId: string }) => e.elicitationId)).toEqual(['ok']);
    expect(JSON.stringify(w.lines)).not.toContain('javascript:');
    expect(await w.end()).toBe(0);
  });

  it('hole 6: a url-mode request reaches a raw host without a requestedSchema', async () => {
    const w = world();
    await handshake(w);
    const schema = { type: 'object', properties: { password: { type: 'string', title: 'Password' } } };
    w.server().onMessage({
      jsonrpc: '2.0',
      id: 'u1',
      method: 'elicitation/create',
      params: { mode: 'url', message: 'Sign in', url: OAUTH_URL, elicitationId: 'u1', requestedSchema: schema },
    });
    await vi.waitFor(() => expect(w.lines.some((l) => l.method === 'elicitation/create')).toBe(true));
    const request = w.lines.find((l) => l.method === 'elicitation/create')!;
    expect(request.params).not.toHaveProperty('requestedSchema');
    expect(request.params.url).toBe(OAUTH_URL);
    expect(await w.end()).toBe(0);
  });
});
