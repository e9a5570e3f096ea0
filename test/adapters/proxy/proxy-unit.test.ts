import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import type { Upstream, UpstreamHandlers } from '../../../src/adapters/proxy/child.js';
import { readLines } from '../../../src/adapters/proxy/lines.js';
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
    await vi.waitFor(() =>
      expect(host.lines).toEqual([
        { jsonrpc: '2.0', id: 9, error: { code: -32603, message: 'The MCP server could not be reached through the proxy.' } },
      ]),
    );
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
    server().onMessage({
      jsonrpc: '2.0',
      id: 1,
      method: 'elicitation/create',
      params: { mode: 'form', message: 'early', requestedSchema: { type: 'object', properties: {} } },
    });
    expect(sent).toEqual([expect.objectContaining({ id: 1, error: expect.objectContaining({ code: -32602 }) })]);
    // Lines queued outside a chunk read are written in a microtask, all in one write.
    await vi.waitFor(() =>
      expect(host.lines).toEqual([
        expect.objectContaining({
          method: 'notifications/message',
          params: expect.objectContaining({
            logger: 'mcp-elicitation-guard',
            data: expect.objectContaining({ code: 'E_MODE_NOT_NEGOTIATED' }),
          }),
        }),
      ]),
    );
  });
});

/**
 * An upstream that records what it is sent as lines (the original line when the proxy passed one,
 * else the serialised message). `framed`: what the server writes goes
 * through `readLines`, as from a child process, so the proxy gets the keys the framing counted;
 * otherwise the line alone, as a transport that reads lines some other way gives it.
 */
function lineUpstream(framed = false) {
  let handlers: UpstreamHandlers | null = null;
  const sent: string[] = [];
  const upstream: Upstream = {
    start: async (h) => void (handlers = h),
    send: async (message, line) => void sent.push(line ?? JSON.stringify(message)),
    close: async () => handlers?.onExit(0),
    signal: () => {},
  };
  const stdout = new PassThrough();
  readLines(
    stdout,
    (line, keys) => handlers!.onMessage(JSON.parse(line), line, keys),
    () => {},
  );
  /** The server writes `line`: the parsed message reaches the proxy with the line (and its keys when framed). */
  const serverWrites = (line: string) => (framed ? stdout.write(`${line}\n`) : handlers!.onMessage(JSON.parse(line), line));
  return { upstream, sent, serverWrites };
}

/** The host's side as raw text: every write the proxy made, and the lines in it. */
function rawHost() {
  const input = new PassThrough();
  const output = new PassThrough();
  const writes: string[] = [];
  output.on('data', (d: Buffer) => writes.push(d.toString()));
  return {
    input,
    output,
    writes,
    lines: () =>
      writes
        .join('')
        .split('\n')
        .filter((l) => l !== ''),
  };
}

/** The initialize handshake through the proxy, so elicitations are negotiated. */
async function initialized(host: ReturnType<typeof rawHost>, up: ReturnType<typeof lineUpstream>) {
  host.input.write(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: { elicitation: { form: {}, url: {} } },
        clientInfo: { name: 'h', version: '1' },
      },
    }) + '\n',
  );
  await vi.waitFor(() => expect(up.sent).toHaveLength(1));
  up.serverWrites(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 's', version: '1' } },
    }),
  );
  host.input.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
  await vi.waitFor(() => expect(up.sent).toHaveLength(2));
  await vi.waitFor(() => expect(host.lines()).toHaveLength(1));
}

for (const framed of [true, false])
  describe(`ElicitationProxy: original bytes and batched writes (server lines ${framed ? 'framed by readLines' : 'given alone'})`, () => {
    const start = () => {
      const up = lineUpstream(framed);
      const host = rawHost();
      const proxy = new ElicitationProxy({
        guard: createGuard(),
        upstream: up.upstream,
        hostInput: host.input,
        hostOutput: host.output,
        log: () => {},
      });
      void proxy.run();
      return { up, host };
    };

    it('passes a message it forwards unchanged on as the bytes it came in, both ways', async () => {
      const { up, host } = start();
      await initialized(host, up);
      // Spacing and key order JSON.stringify would not produce, so the original bytes are recognisable.
      const request =
        '{ "id": 5, "jsonrpc": "2.0", "method": "tools/call", "params": { "name": "echo", "arguments": { "text": "a ' +
        '\\"quoted\\" : value", "n": -12 } } }';
      host.input.write(request + '\n');
      await vi.waitFor(() => expect(up.sent).toHaveLength(3));
      expect(up.sent[2]).toBe(request);
      const result = '{"result": {"content": [{"type": "text", "text": "ok: {\\"a\\": 1}"}]}, "jsonrpc": "2.0", "id": 5}';
      up.serverWrites(result);
      await vi.waitFor(() => expect(host.lines()).toHaveLength(2));
      expect(host.lines()[1]).toBe(result);
    });

    it('judges every message of one chunk a hostile server packs, however it mixes them', async () => {
      if (!framed) return;
      const { up, host } = start();
      await initialized(host, up);
      const before = host.writes.length;
      const note = (i: number) =>
        JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: i } });
      const elicitation = JSON.stringify({
        jsonrpc: '2.0',
        id: 40,
        method: 'elicitation/create',
        params: { mode: 'url', message: 'open', url: 'https://example.com/x', elicitationId: 'e1' },
      });
      // The same elicitation hidden behind a repeated key, twice, and a duplicate of the first with the same id.
      const hidden =
        '{"jsonrpc":"2.0","id":41,"method":"elicitation/create","params":{"mode":"form","message":"pin?",' +
        '"requestedSchema":{"type":"object","properties":{}}},"method":"ping"}';
      const chunk = [note(0), elicitation, note(1), hidden, note(2), hidden, elicitation, note(3)].join('\n');
      up.serverWrites(chunk);
      await vi.waitFor(() => expect(host.lines().some((l) => l.includes('"progress":3'))).toBe(true));
      const delivered = host.lines().slice(1);
      // The notifications pass in order as their bytes. The URL elicitation reaches the host once, judged (with the
      // guard's analysis, so not as its bytes); sent again with the same id while it is open, it does not. The hidden
      // one reaches the host only as the ping the guard judged, once: its second copy reuses an open id. All in one write.
      expect(delivered.filter((l) => l.includes('notifications/progress'))).toEqual([note(0), note(1), note(2), note(3)]);
      const elicitations = delivered.filter((l) => l.includes('elicitation/create'));
      expect(elicitations).toHaveLength(1);
      expect(elicitations[0]).not.toBe(elicitation);
      expect(JSON.parse(elicitations[0]!)).toMatchObject({ id: 40, params: { _meta: expect.any(Object) } });
      expect(delivered.filter((l) => l.includes('"method":"ping"'))).toEqual([JSON.stringify(JSON.parse(hidden))]);
      expect(host.writes.length - before).toBe(1);
    });

    it('writes every line of one chunk (or one piece of work) to the host in one write, in order', async () => {
      const { up, host } = start();
      await initialized(host, up);
      const before = host.writes.length;
      const lines = Array.from({ length: 50 }, (_, i) =>
        JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: i } }),
      );
      // Framed: one chunk of 50 lines, as a pipe delivers them; given alone: 50 messages in one go of work.
      if (framed) up.serverWrites(lines.join('\n'));
      else for (const line of lines) up.serverWrites(line);
      await vi.waitFor(() => expect(host.lines()).toHaveLength(51));
      expect(host.writes.length - before).toBe(1);
      expect(host.lines().slice(1)).toEqual(lines);
    });

    // Each line parses to something another parser could read differently; the proxy must send what
    // the guard judged (the message serialised again), never the original bytes.
    const differentials: readonly [string, string][] = [
      [
        'a key twice: JSON.parse keeps the last, a first-wins parser the first',
        '{"jsonrpc": "2.0", "id": 7, "method": "elicitation/create", "params": {"mode": "form", "message": "password?", ' +
          '"requestedSchema": {"type": "object", "properties": {"password": {"type": "string"}}}}, "method": "ping"}',
      ],
      ['a key twice through an escape', '{"jsonrpc": "2.0", "id": 7, "method": "elicitation/create", "\\u006dethod": "ping"}'],
      ['a __proto__ key', '{"jsonrpc": "2.0", "id": 7, "method": "ping", "params": {"__proto__": {"mode": "url"}}}'],
      ['a __proto__ key through an escape', '{"jsonrpc": "2.0", "id": 7, "method": "ping", "params": {"\\u005f_proto__": {"x": 1}}}'],
      ['an id beyond 2^53, read as another number by exact parsers', '{"jsonrpc": "2.0", "id": 9007199254740993, "method": "ping"}'],
      ['an id with a fraction', '{"jsonrpc": "2.0", "id": 7.0, "method": "ping"}'],
      ['an id with an exponent', '{"jsonrpc": "2.0", "id": 7e0, "method": "ping"}'],
      ['minus zero', '{"jsonrpc": "2.0", "id": -0, "method": "ping"}'],
      [
        'a replacement character, as decoding leaves for bytes that are not UTF-8',
        '{"jsonrpc": "2.0", "id": 7, "method": "ping", "params": {"x": "\uFFFD"}}',
      ],
    ];

    for (const [what, line] of differentials) {
      it(`re-serialises a server message with ${what}`, async () => {
        const { up, host } = start();
        await initialized(host, up);
        up.serverWrites(line);
        await vi.waitFor(() => expect(host.lines().length).toBeGreaterThan(1));
        const delivered = host.lines().slice(1);
        expect(delivered).not.toContain(line);
        // What reaches the host is what the guard saw: the last "method" wins, so the elicitation never arrives unjudged.
        for (const d of delivered) expect(d).not.toMatch(/elicitation\/create/);
      });

      it(`re-serialises a host message with ${what}`, async () => {
        const { up, host } = start();
        await initialized(host, up);
        host.input.write(line + '\n');
        await vi.waitFor(() => expect(up.sent.length + host.lines().length).toBeGreaterThan(3));
        expect(up.sent).not.toContain(line);
        for (const s of up.sent.slice(2)) expect(s).toBe(JSON.stringify(JSON.parse(line)));
      });
    }
  });
