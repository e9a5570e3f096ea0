/**
 * Guarded vs unguarded SDK round trips, in one run, as ratios (target ≤ 1.02×): an SDK client calls
 * `tools/call` on an SDK server over a linked pair of transports that serialise every message
 * (`JSON.stringify` on send, `JSON.parse` on delivery, one event-loop turn later), as stdio or
 * HTTP does; so the cost a result's size puts on the host is in both sides, and the guard's cost is
 * measured against a realistic round trip, not against passing an object by reference. Results of
 * 1 KB, 64 KB and 1 MB, and two references: an A/A pair (what the benchmark can tell apart) and
 * a decorator that only reads one property of each message (what any judgement costs at least).
 * Each case: three runs, each timing every call of both sides in small alternating blocks; the
 * ratios of the p50, the mean and the p99 latency, each as min / median / max over the runs.
 *
 * Run: npx tsx bench/sdk.bench.ts
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolRequestSchema, ElicitRequestSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { isMainModule } from '../src/cli/io.js';
import { guardTransport } from '../src/adapters/sdk/transport.js';
import { createGuard, judgeInbound, judgeOutbound } from '../src/core/guard.js';
import { compareAlternating, comparePair, printPairs, type PairResult } from './harness.js';

/** One end of an in-process pair that carries messages as JSON text, delivered on the next turn (also used by sdk-v2.bench.ts). */
export class SerialisingTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  other: SerialisingTransport | null = null;
  #closed = false;

  static pair(): [SerialisingTransport, SerialisingTransport] {
    const a = new SerialisingTransport();
    const b = new SerialisingTransport();
    a.other = b;
    b.other = a;
    return [a, b];
  }

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    const other = this.other;
    if (other === null || this.#closed) throw new Error('Not connected');
    const text = JSON.stringify(message);
    setImmediate(() => other.#receive(text));
  }

  #receive(text: string): void {
    if (!this.#closed) this.onmessage?.(JSON.parse(text) as JSONRPCMessage);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const other = this.other;
    this.other = null;
    await other?.close();
    this.onclose?.();
  }
}

/**
 * The reference a guard cannot beat: a decorator that passes every message on and reads one
 * property of each (what any judgement must do at least), read as the guard reads a host's
 * messages (`Reflect.get`: SDK v1 gives each request a hidden class of its own, on which a plain
 * `message.method` misses V8's caches and costs more than the rest of the decorator).
 */
class PeekingTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  peeked = 0;
  constructor(readonly inner: Transport) {}
  start(): Promise<void> {
    this.inner.onmessage = (message) => {
      if ((message as { method?: unknown }).method === 'peek') this.peeked++;
      this.onmessage?.(message);
    };
    return this.inner.start();
  }
  send(message: JSONRPCMessage): Promise<void> {
    if (Reflect.get(message, 'method') === 'peek') this.peeked++;
    return this.inner.send(message);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

type Wrap = 'none' | 'guard' | 'peek';

async function pair(wrap: Wrap | boolean, payloadBytes: number): Promise<Client> {
  const text = 'x'.repeat(payloadBytes);
  const server = new Server({ name: 'bench', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(CallToolRequestSchema, async () => ({ content: [{ type: 'text' as const, text }] }));
  const [clientSide, serverSide] = SerialisingTransport.pair();
  await server.connect(serverSide);
  const client = new Client({ name: 'bench-host', version: '1.0.0' }, { capabilities: { elicitation: { form: {}, url: {} } } });
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'decline' as const }));
  const kind = wrap === true ? 'guard' : wrap === false ? 'none' : wrap;
  await client.connect(
    kind === 'guard' ? guardTransport(clientSide, createGuard()) : kind === 'peek' ? new PeekingTransport(clientSide) : clientSide,
  );
  return client;
}

export const SDK_TITLE =
  'SDK round trips over a serialising transport: unguarded (baseline) vs guardTransport (candidate), 3 runs, target ≤ 1.02×';

export async function benchSdk(): Promise<PairResult[]> {
  const results: PairResult[] = [];
  for (const [label, bytes] of [
    ['tools/call, 1 KB result', 1024],
    ['tools/call, 64 KB result', 64 * 1024],
    ['tools/call, 1 MB result', 1024 * 1024],
  ] as const) {
    const plain = await pair(false, bytes);
    const guarded = await pair(true, bytes);
    const args = { name: 'echo', arguments: { q: 1 } };
    const calls = bytes > 100_000 ? 600 : 6000;
    results.push(
      await compareAlternating(
        label,
        () => plain.callTool(args),
        () => guarded.callTool(args),
        { rounds: 3, callsPerRound: calls, block: bytes > 100_000 ? 20 : 200, warmup: calls / 10 },
      ),
    );
    await plain.close();
    await guarded.close();
  }
  // References for the 1 KB case: two unguarded clients (A/A: what the benchmark itself can tell
  // apart), and a decorator that only looks at each message.
  const args = { name: 'echo', arguments: { q: 1 } };
  const [a, b, peek] = [await pair('none', 1024), await pair('none', 1024), await pair('peek', 1024)];
  results.push(
    await compareAlternating(
      'reference: unguarded vs unguarded (A/A), 1 KB',
      () => a.callTool(args),
      () => b.callTool(args),
      { rounds: 3, callsPerRound: 6000, block: 200, warmup: 600 },
    ),
  );
  results.push(
    await compareAlternating(
      'reference: a decorator reading one property per message, 1 KB',
      () => a.callTool(args),
      () => peek.callTool(args),
      { rounds: 3, callsPerRound: 6000, block: 200, warmup: 600 },
    ),
  );
  for (const c of [a, b, peek]) await c.close();
  return results;
}

/** `n` tools/call requests exactly as SDK v1's Client hands them to its transport. */
async function sdkRequests(n: number): Promise<{ id: number }[]> {
  const sent: { id: number }[] = [];
  const transport: Transport = {
    start: async () => undefined,
    close: async () => undefined,
    send: async (message) => {
      if (!('method' in message) || !('id' in message)) return;
      const result =
        message.method === 'initialize'
          ? { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } }
          : { content: [] };
      if (message.method === 'tools/call') sent.push(message as unknown as { id: number });
      queueMicrotask(() => transport.onmessage?.({ jsonrpc: '2.0', id: message.id, result }));
    },
  };
  const client = new Client({ name: 'bench-host', version: '1.0.0' }, { capabilities: { elicitation: { form: {}, url: {} } } });
  await client.connect(transport);
  for (let i = 0; i < n; i++) await client.callTool({ name: 'echo', arguments: { n: i } });
  await client.close();
  return sent;
}

export const GUARD_PAIR_TITLE =
  'The guard alone, per request/result pair (guard.outbound + guard.inbound of a tools/call and its result): one Map set + ' +
  'delete per pair (baseline, the floor of tracking a request) vs the guard (candidate)';

/** The guard's own cost per plain request/result pair, against the least any tracking of requests in flight costs. */
export async function benchGuardPairs(): Promise<PairResult[]> {
  const guard = createGuard();
  const handshake = {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: {
      protocolVersion: '2025-11-25',
      capabilities: { elicitation: { form: {}, url: {} } },
      clientInfo: { name: 'h', version: '1' },
    },
  };
  const handshakeAnswer = {
    jsonrpc: '2.0',
    id: 0,
    result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 's', version: '1' } },
  };
  const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
  guard.outbound(handshake);
  guard.inbound(handshakeAnswer);
  guard.outbound(initialized);
  // The requests SDK v1's Client really sends (each built as `{ ...request, jsonrpc, id }`, with a
  // hidden class of its own, which decides what reading it costs), from a pool large enough not to
  // stay in one cache line; the results as a transport delivers them (parsed JSON).
  const requests = await sdkRequests(4096);
  const results = requests.map((r) =>
    JSON.parse(JSON.stringify({ jsonrpc: '2.0', id: r.id, result: { content: [{ type: 'text', text: `echo ${r.id}` }] } })),
  );
  // The floor done as well as it can be: a table that never empties (V8 reallocates an emptied one).
  const inFlight = new Map<number | string, unknown>([['never-removed', null]]);
  let i = 0;
  let j = 0;
  // 256 pairs per timed call: one pair is shorter than the timer's resolution.
  const baseline = () => {
    for (let n = 0; n < 256; n++) {
      const k = i++ & 4095;
      // Read as cheaply as a message with a hidden class of its own can be (see `field` in protocol/jsonrpc.ts).
      inFlight.set(Reflect.get(requests[k]!, 'id') as number, requests[k]);
      inFlight.delete(results[k]!.id);
    }
  };
  const candidate = () => {
    for (let n = 0; n < 256; n++) {
      const k = j++ & 4095;
      guard.outbound(requests[k]);
      guard.inbound(results[k]);
    }
  };
  // What guardTransport calls: the same judgement, with no Decision made for a message passed untouched.
  const passGuard = createGuard();
  for (const message of [handshake, handshakeAnswer, initialized]) {
    if ('method' in message) judgeOutbound(passGuard, message);
    else judgeInbound(passGuard, message);
  }
  let p = 0;
  const passed = () => {
    for (let n = 0; n < 256; n++) {
      const k = p++ & 4095;
      judgeOutbound(passGuard, requests[k]);
      judgeInbound(passGuard, results[k]);
    }
  };
  return [
    await comparePair('256 × (tools/call + result)', baseline, candidate, { rounds: 3, timeMs: 1000 }),
    await comparePair('the same through judgeOutbound + judgeInbound (what guardTransport calls)', baseline, passed, {
      rounds: 3,
      timeMs: 1000,
    }),
  ];
}

if (isMainModule(import.meta.url)) {
  printPairs(SDK_TITLE, await benchSdk());
  printPairs(GUARD_PAIR_TITLE, await benchGuardPairs());
}
