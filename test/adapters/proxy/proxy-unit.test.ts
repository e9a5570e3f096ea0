import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import type { Upstream, UpstreamHandlers } from '../../../src/adapters/proxy/child.js';
import { ElicitationProxy } from '../../../src/adapters/proxy/proxy.js';
import { createGuard } from '../../../src/core/guard.js';

/** An upstream that is reachable until `down` is set. */
function fakeUpstream() {
  let handlers: UpstreamHandlers | null = null;
  const sent: unknown[] = [];
  const state = { down: false };
  const upstream: Upstream = {
    start: async (h) => void (handlers = h),
    send: async (message) => {
      if (state.down) throw new Error('connection refused');
      sent.push(message);
    },
    close: async () => handlers?.onExit(0),
    signal: () => {},
  };
  return { upstream, sent, state, server: () => handlers! };
}

function hostSide() {
  const input = new PassThrough();
  const output = new PassThrough();
  const lines: Record<string, unknown>[] = [];
  let buffer = '';
  output.on('data', (d: Buffer) => {
    buffer += d.toString();
    let i;
    while ((i = buffer.indexOf('\n')) !== -1) {
      lines.push(JSON.parse(buffer.slice(0, i)) as Record<string, unknown>);
      buffer = buffer.slice(i + 1);
    }
  });
  return { input, output, lines, send: (m: unknown) => input.write(JSON.stringify(m) + '\n') };
}

describe('ElicitationProxy', () => {
  it('answers a host request the server could not receive instead of leaving it hanging', async () => {
    const { upstream, state } = fakeUpstream();
    const host = hostSide();
    const proxy = new ElicitationProxy({ guard: createGuard(), upstream, hostInput: host.input, hostOutput: host.output, log: () => {} });
    const exit = proxy.run();
    state.down = true;
    host.send({ jsonrpc: '2.0', id: 9, method: 'tools/list' });
    host.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await vi.waitFor(() => expect(host.lines).toEqual([{ jsonrpc: '2.0', id: 9, error: { code: -32603, message: 'The MCP server could not be reached through the proxy.' } }]));
    host.input.end();
    expect(await exit).toBe(0);
  });

  it('tells the host about a refused elicitation in a log message and answers the server', async () => {
    const { upstream, sent, server } = fakeUpstream();
    const host = hostSide();
    let proxy: ElicitationProxy | null = null;
    const guard = createGuard({ onEvent: (e) => proxy?.tellHost(e) });
    proxy = new ElicitationProxy({ guard, upstream, hostInput: host.input, hostOutput: host.output, log: () => {} });
    void proxy.run();
    server().onMessage({ jsonrpc: '2.0', id: 1, method: 'elicitation/create', params: { mode: 'form', message: 'early', requestedSchema: { type: 'object', properties: {} } } });
    expect(sent).toEqual([expect.objectContaining({ id: 1, error: expect.objectContaining({ code: -32602 }) })]);
    expect(host.lines).toEqual([expect.objectContaining({ method: 'notifications/message', params: expect.objectContaining({ logger: 'mcp-elicitation-guard', data: expect.objectContaining({ code: 'E_MODE_NOT_NEGOTIATED' }) }) })]);
  });
});
