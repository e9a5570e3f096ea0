/**
 * The proxy's fast path against a hostile peer: a line goes on as the very bytes it came in (a
 * view of the chunk read, or its text as read) only when the guard forwards the parsed message
 * unchanged and the string-based reference calls the line faithful. Every other line goes on as
 * the guard's message serialised again. Checked on raw JSON-RPC in both eras, with the same
 * bytes delivered packed in one chunk, one line per chunk, and one byte per chunk.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import type { Upstream, UpstreamHandlers } from '../../../src/adapters/proxy/child.js';
import { LineWriter, readLines } from '../../../src/adapters/proxy/lines.js';
import { ElicitationProxy } from '../../../src/adapters/proxy/proxy.js';
import { createGuard } from '../../../src/core/guard.js';
import { benignSchema, initializeRequest } from '../../helpers/session.js';
import { referenceFaithful } from './reference-faithful.js';

type Delivery = 'packed' | 'lines' | 'bytes';

/** A line held one character per byte, decoded. */
const utf8 = (latin1: string) => Buffer.from(latin1, 'latin1').toString('utf8');

/** Cuts bytes into the chunks a delivery makes. */
function chunks(bytes: Buffer, delivery: Delivery): Buffer[] {
  if (delivery === 'packed') return [bytes];
  const out: Buffer[] = [];
  if (delivery === 'bytes') for (let i = 0; i < bytes.length; i++) out.push(bytes.subarray(i, i + 1));
  else
    for (let at = 0, nl = bytes.indexOf(0x0a); nl !== -1; at = nl + 1, nl = bytes.indexOf(0x0a, at)) out.push(bytes.subarray(at, nl + 1));
  return out;
}

/**
 * One proxy between a raw host and a raw server, both sides framed as a child process's are.
 * `reference`: the server's lines reach the proxy without their text and the upstream serialises
 * every message, so all that either side gets is the guard's messages serialised again.
 */
function world(reference: boolean) {
  let handlers: UpstreamHandlers | null = null;
  const toServer = new PassThrough();
  const writer = new LineWriter(toServer);
  const upstream: Upstream = {
    start: async (h) => void (handlers = h),
    send: (message, line, bytes) => (line === undefined || reference ? writer.message(message) : writer.line(line, bytes)),
    close: async () => handlers?.onExit(0),
    signal: () => {},
  };
  const serverStdout = new PassThrough();
  readLines(
    serverStdout,
    (line, keys, bytes) => {
      const message = JSON.parse(line) as unknown;
      if (reference) handlers!.onMessage(message);
      else handlers!.onMessage(message, line, keys, bytes);
    },
    () => {},
  );
  const hostIn = new PassThrough();
  const hostOut = new PassThrough();
  const received = { host: [] as Buffer[], server: [] as Buffer[] };
  hostOut.on('data', (d: Buffer) => received.host.push(d));
  toServer.on('data', (d: Buffer) => received.server.push(d));
  const proxy = new ElicitationProxy({ guard: createGuard(), upstream, hostInput: hostIn, hostOutput: hostOut, log: () => {} });
  void proxy.run();
  // One character per byte, so lines compare byte for byte (a byte that is not UTF-8 stays itself).
  const text = (side: 'host' | 'server') => Buffer.concat(received[side]).toString('latin1');
  return {
    host: (bytes: Buffer, delivery: Delivery) => {
      for (const c of chunks(bytes, delivery)) hostIn.write(c);
    },
    server: (bytes: Buffer, delivery: Delivery) => {
      for (const c of chunks(bytes, delivery)) serverStdout.write(c);
    },
    lines: (side: 'host' | 'server') => text(side).split('\n').slice(0, -1),
    waitFor: (side: 'host' | 'server', marker: string) => vi.waitFor(() => expect(text(side)).toContain(marker)),
  };
}

const bytesOf = (lines: readonly (string | Buffer)[]) =>
  Buffer.concat(lines.map((l) => (typeof l === 'string' ? Buffer.from(`${l}\n`) : Buffer.concat([l, Buffer.from('\n')]))));
/** A line with a byte that is not UTF-8 inside a string (decoding puts a U+FFFD there). */
const withBadByte = (line: string) => {
  const at = line.indexOf('BAD');
  return Buffer.concat([Buffer.from(line.slice(0, at)), Buffer.from([0xc3, 0x28]), Buffer.from(line.slice(at + 3))]);
};

const modernMeta = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {}, url: {} } },
};

/** What each era's host and server write: opening messages, then one hostile batch each way, then a marker. */
function script(era: 'legacy' | 'modern') {
  const call = (id: number | string, name = 'echo') =>
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, arguments: { n: 1 }, ...(era === 'modern' ? { _meta: modernMeta } : {}) },
    });
  const result = (id: number | string, text: string) =>
    JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } });
  const form = (id: number, message: string, schema: unknown) =>
    JSON.stringify({ jsonrpc: '2.0', id, method: 'elicitation/create', params: { mode: 'form', message, requestedSchema: schema } });
  const passwordSchema = { type: 'object', properties: { password: { type: 'string' } } };
  const opening =
    era === 'legacy'
      ? {
          host: [JSON.stringify(initializeRequest())],
          server: [
            JSON.stringify({
              jsonrpc: '2.0',
              id: 0,
              result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 's', version: '1' } },
            }),
          ],
          after: [JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })],
        }
      : { host: [], server: [], after: [] };
  const host: (string | Buffer)[] = [
    call(1),
    call(2),
    // The same id again while it is open, a key twice (JSON.parse keeps the last), numbers exact parsers read otherwise.
    call(1),
    '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{}},"params":{"name":"pay","arguments":{}}}',
    '{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}',
    '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"x":1.0,"y":1e2,"z":-0}}}',
    withBadByte('{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"t":"BAD"}}}'),
    '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"écho ✓ 😀","arguments":{"t":"\uFFFD"}}}',
    '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"écho ✓ 😀","arguments":{"t":"déjà"}}}\r',
    call(8, 'écho ✓ 😀 \\ " :'),
    '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"__proto__":{"x":1}}}',
    JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'host-done', progress: 1 } }),
  ];
  const inputRequired = (id: number, schema: unknown) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      result: {
        resultType: 'input_required',
        inputRequests: { a: { method: 'elicitation/create', params: { mode: 'form', message: 'm', requestedSchema: schema } } },
        requestState: 's',
      },
    });
  // A completion notice for an elicitation nobody opened: dropped, between two lines that go on as their bytes.
  const strayNotice = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/elicitation/complete', params: { elicitationId: 'nobody' } });
  const server: (string | Buffer)[] = [
    result(2, 'before'),
    strayNotice,
    result(1, 'é ✓ 😀 ok'),
    // An answer re-sent for an id already answered, and one for an id never asked.
    result(1, 'é ✓ 😀 ok'),
    result(77, 'never asked'),
    era === 'modern' ? inputRequired(8, benignSchema) : form(50, 'Project details?', benignSchema),
    era === 'modern' ? inputRequired(8, passwordSchema) : form(50, 'Project details?', benignSchema),
    era === 'modern' ? form(51, 'pushed', benignSchema) : form(51, 'Your password?', passwordSchema),
    // An elicitation behind a repeated key: JSON.parse keeps the last "method", a first-wins parser the first.
    '{"jsonrpc":"2.0","id":52,"method":"elicitation/create","params":{"mode":"form","message":"pin?","requestedSchema":' +
      '{"type":"object","properties":{"pin":{"type":"string"}}}},"method":"ping"}',
    '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1.5}}',
    '{"jsonrpc":"2.0","id":9007199254740993,"result":{}}',
    withBadByte('{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"BAD"}}'),
    '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"\uFFFD"}}',
    '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"déjà ✓"}}\r',
    '{"jsonrpc":"2.0","id":4,"result":{"content":[],"__proto__":{"isError":true}}}',
    result(6, `long ${'x'.repeat(200)} \\"quoted\\" é ${'y'.repeat(100)}`),
    JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'server-done', progress: 1 } }),
  ];
  return { opening, host, server };
}

async function run(era: 'legacy' | 'modern', delivery: Delivery, reference: boolean) {
  const w = world(reference);
  const { opening, host, server } = script(era);
  if (opening.host.length > 0) {
    w.host(bytesOf(opening.host), 'lines');
    await w.waitFor('server', '"initialize"');
    w.server(bytesOf(opening.server), 'lines');
    await w.waitFor('host', 'serverInfo');
    w.host(bytesOf(opening.after), 'lines');
    await w.waitFor('server', 'notifications/initialized');
  }
  w.host(bytesOf(host), delivery);
  await w.waitFor('server', 'host-done');
  w.server(bytesOf(server), delivery);
  await w.waitFor('host', 'server-done');
  return { w, input: { host: bytesOf(host).toString('latin1').split('\n'), server: bytesOf(server).toString('latin1').split('\n') } };
}

describe.each(['legacy', 'modern'] as const)('the original-bytes fast path against a hostile peer (%s era)', (era) => {
  it('writes the same bytes to both sides however the chunks fall, packed, a line per chunk or a byte per chunk', async () => {
    const packed = await run(era, 'packed', false);
    for (const delivery of ['lines', 'bytes'] as const) {
      const other = await run(era, delivery, false);
      expect(other.w.lines('host'), delivery).toEqual(packed.w.lines('host'));
      expect(other.w.lines('server'), delivery).toEqual(packed.w.lines('server'));
    }
  });

  for (const delivery of ['packed', 'bytes'] as const)
    it(`passes on as bytes only lines the reference calls faithful, meaning what the guard judged (${delivery})`, async () => {
      const fast = await run(era, delivery, false);
      const slow = await run(era, 'lines', true);
      for (const side of ['host', 'server'] as const) {
        // The other side's input: what the server wrote reaches the host, what the host wrote reaches the server.
        const input = side === 'host' ? fast.input.server : fast.input.host;
        const got = fast.w.lines(side);
        const serialised = slow.w.lines(side);
        expect(got).toHaveLength(serialised.length);
        let asBytes = 0;
        for (let i = 0; i < got.length; i++) {
          if (got[i] === serialised[i]) continue;
          // Not the guard's message serialised: then it is an input line, byte for byte, faithful, meaning the same.
          expect(input, got[i]).toContain(got[i]);
          const line = utf8(got[i]!);
          expect(referenceFaithful(line, JSON.parse(line)), line).toBe(true);
          expect(JSON.parse(line)).toEqual(JSON.parse(utf8(serialised[i]!)));
          asBytes++;
        }
        // The fast path was taken (spacing aside, the non-ASCII and long lines differ from JSON.stringify's escapes only in bytes).
        expect(got.filter((l) => input.includes(l)).length, side).toBeGreaterThan(0);
        expect(asBytes + got.filter((l, i) => l === serialised[i]).length).toBe(got.length);
        // The lines another parser may read otherwise never go on as they came (unless serialising them again gives the same bytes).
        const risky = /"method":"ping"}$|1\.5|9007199254740993|__proto__|\uFFFD|\r$|"params":\{"name":"pay"|1\.0/;
        for (const l of input) if (risky.test(utf8(l)) && utf8(l) !== JSON.stringify(JSON.parse(utf8(l)))) expect(got, l).not.toContain(l);
      }
    });
});
