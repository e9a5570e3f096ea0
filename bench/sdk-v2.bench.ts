/**
 * SDK v2 in the 2026-07-28 era: guarded vs unguarded round trips, in one run, as ratios (targets
 * ≤ 1.02× for tools/call, ≤ 1.03× for the input-required call): `tools/call` with 1 KB and 1 MB
 * results, and a two-round input-required call (the server asks for a form, the client's handler
 * answers, the client retries, the server completes). The real v2 Client and McpServer (behind the
 * SDK's era-selecting entry), over a linked pair of transports that serialise every message as
 * stdio and HTTP do (`JSON.stringify` on send, `JSON.parse` one turn later: what a result's size
 * costs is in both sides); then the same calls over the SDK's in-memory transport, which hands
 * objects over by reference (the guard's cost against almost nothing, and no 1 MB row: nothing
 * there depends on size); and the input-required call with the server as a stdio child process.
 * Each row: three runs, each timing every call of both sides in small alternating blocks; the ratios
 * of the p50, the mean and the p99 latency, each as min / median / max over the runs.
 * Then the guard alone on 2026-07-28 messages, per plain pair (the requests and results SDK v2 really
 * sends and receives, captured from a real Client and server) and per input-required round.
 *
 * Run: npx tsx bench/sdk-v2.bench.ts
 */
import { fileURLToPath } from 'node:url';
import { Client, InMemoryTransport, type Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { isMainModule } from '../src/cli/io.js';
import { guardTransport } from '../src/adapters/sdk/transport.js';
import { createGuard } from '../src/core/guard.js';
import { createModernServer } from '../fixtures/servers/modern-server.js';
import { compareAlternating, comparePair, printPairs, type PairResult } from './harness.js';
import { SerialisingTransport } from './sdk.bench.js';

const SERVER = fileURLToPath(new URL('../fixtures/servers/modern-server.ts', import.meta.url));

type Carrier = 'serialising' | 'memory' | 'stdio';

async function pair(guarded: boolean, carrier: Carrier): Promise<{ client: Client; close: () => Promise<void> }> {
  let clientSide: Transport;
  let served: { close(): Promise<void> } = { close: async () => undefined };
  if (carrier === 'stdio')
    clientSide = new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', SERVER] }) as unknown as Transport;
  else {
    const [inner, serverSide] = carrier === 'memory' ? InMemoryTransport.createLinkedPair() : SerialisingTransport.pair();
    clientSide = inner as unknown as Transport;
    served = serveStdio(() => createModernServer(), { transport: serverSide as unknown as Transport });
  }
  const client = new Client(
    { name: 'bench-host', version: '1.0.0' },
    { capabilities: { elicitation: { form: {}, url: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { project: 'bench', replicas: 2 } }));
  await client.connect(guarded ? guardTransport(clientSide, createGuard()) : clientSide);
  return {
    client,
    close: async () => {
      await client.close();
      await served.close();
    },
  };
}

export async function benchSdkV2(): Promise<PairResult[]> {
  const results: PairResult[] = [];
  const form = { name: 'ordinary_form', arguments: {} };
  const kb = { name: 'plain', arguments: { size: 1024 } };
  const mb = { name: 'plain', arguments: { size: 1024 * 1024 } };
  // Every call of both sides timed, in small blocks that alternate (a neighbour's load falls on both alike).
  const many = { rounds: 3, callsPerRound: 3000, block: 100, warmup: 300 };
  const few = { rounds: 3, callsPerRound: 300, block: 10, warmup: 30 };
  const rows: readonly [Carrier, string, { name: string; arguments: Record<string, unknown> }, typeof many][] = [
    ['serialising', 'v2 tools/call, 1 KB result', kb, many],
    ['serialising', 'v2 tools/call, 1 MB result', mb, few],
    ['serialising', 'v2 input-required call, two rounds (form, then complete)', form, many],
    ['memory', 'in memory (by reference): v2 tools/call, 1 KB result', kb, many],
    ['memory', 'in memory (by reference): v2 input-required call, two rounds', form, many],
    ['stdio', 'v2 input-required call, two rounds, server over stdio', form, { ...many, callsPerRound: 1000, warmup: 200 }],
  ];
  for (const carrier of ['serialising', 'memory', 'stdio'] as const) {
    const plain = await pair(false, carrier);
    const guarded = await pair(true, carrier);
    for (const [on, label, args, options] of rows) {
      if (on !== carrier) continue;
      results.push(
        await compareAlternating(
          label,
          () => plain.client.callTool(args),
          () => guarded.client.callTool(args),
          options,
        ),
      );
    }
    await plain.close();
    await guarded.close();
  }
  return results;
}

export const SDK_V2_TITLE =
  'SDK v2 (2026-07-28) round trips: unguarded (baseline) vs guardTransport (candidate), ' +
  'targets ≤ 1.02× (tools/call), ≤ 1.03× (input-required)';

export const GUARD_V2_TITLE =
  'The guard alone on 2026-07-28 messages (plain pairs as SDK v2 sends and receives them): ' +
  'a bare Map set + delete per request (baseline) vs guard.outbound + guard.inbound (candidate)';

/** `n` tools/call requests exactly as SDK v2's Client hands them to its transport, and their results as delivered. */
async function sdkV2Messages(n: number): Promise<{ requests: Record<string, unknown>[]; results: Record<string, unknown>[] }> {
  const requests: Record<string, unknown>[] = [];
  const results: Record<string, unknown>[] = [];
  const [inner, serverSide] = SerialisingTransport.pair();
  const served = serveStdio(() => createModernServer(), { transport: serverSide as unknown as Transport });
  const send = inner.send.bind(inner);
  inner.send = (message) => {
    if ((message as { method?: unknown }).method === 'tools/call') requests.push(message as unknown as Record<string, unknown>);
    return send(message);
  };
  const client = new Client(
    { name: 'bench-host', version: '1.0.0' },
    { capabilities: { elicitation: { form: {}, url: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(inner as unknown as Transport);
  const deliver = inner.onmessage;
  inner.onmessage = (message) => {
    if ('result' in message) results.push(message as unknown as Record<string, unknown>);
    deliver?.(message);
  };
  results.length = 0;
  for (let i = 0; i < n; i++) await client.callTool({ name: 'plain', arguments: { size: 1024 } });
  await client.close();
  await served.close();
  return { requests, results: results.slice(-n) };
}

/** The guard's own cost on 2026-07-28 traffic: a plain tools/call pair, and a two-round input-required call (4 messages). */
export async function benchGuardV2(): Promise<PairResult[]> {
  const guard = createGuard();
  const capabilities = { elicitation: { form: {}, url: {} } };
  const clientInfo = { name: 'bench-host', version: '1.0.0' };
  // As SDK v2 sends them: the same capabilities object on every request, the server's info on every result.
  const meta = () => ({
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': clientInfo,
    'io.modelcontextprotocol/clientCapabilities': capabilities,
  });
  const serverMeta = () => ({ 'io.modelcontextprotocol/serverInfo': { name: 'modern-fixture', version: '2.0.0' } });
  const schema = {
    type: 'object',
    properties: {
      project: { type: 'string', title: 'Project name', minLength: 1, maxLength: 40 },
      replicas: { type: 'integer', title: 'Replicas', minimum: 1, maximum: 5, default: 1 },
    },
    required: ['project'],
  };
  // Fresh objects for every message, as a transport delivers them (the parse is not the guard's cost).
  const wire = (value: unknown) => JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
  const pool = 1024;
  // The plain pairs as SDK v2 really sends and receives them (its requests' params each have a hidden
  // class of their own, which decides what reading them costs): captured from a real Client and server.
  const { requests: plainRequests, results: plainResults } = await sdkV2Messages(pool);
  const state = 'flow=ordinary_form;round=1';
  const rounds = Array.from({ length: pool }, (_, i) => {
    const first = 1_000_000 + 2 * i;
    return [
      { jsonrpc: '2.0', id: first, method: 'tools/call', params: { name: 'ordinary_form', arguments: {}, _meta: meta() } },
      wire({
        jsonrpc: '2.0',
        id: first,
        result: {
          resultType: 'input_required',
          inputRequests: {
            project: { method: 'elicitation/create', params: { message: 'Name the new project.', requestedSchema: schema, mode: 'form' } },
          },
          requestState: state,
          _meta: serverMeta(),
        },
      }),
      {
        jsonrpc: '2.0',
        id: first + 1,
        method: 'tools/call',
        params: {
          name: 'ordinary_form',
          arguments: {},
          inputResponses: { project: { action: 'accept', content: { project: 'bench', replicas: 2 } } },
          requestState: state,
          _meta: meta(),
        },
      },
      wire({
        jsonrpc: '2.0',
        id: first + 1,
        result: { content: [{ type: 'text', text: 'done' }], resultType: 'complete', _meta: serverMeta() },
      }),
    ] as const;
  });
  const inFlight = new Map<number | string, unknown>([['never-removed', null]]);
  let a = 0;
  let b = 0;
  const floorPair = () => {
    for (let n = 0; n < 256; n++) {
      const k = a++ & (pool - 1);
      // Read as cheaply as a message with a hidden class of its own can be (see `field` in protocol/jsonrpc.ts).
      inFlight.set(Reflect.get(plainRequests[k]!, 'id') as number, plainRequests[k]);
      inFlight.delete(plainResults[k]!.id as number);
    }
  };
  const guardPair = () => {
    for (let n = 0; n < 256; n++) {
      const k = b++ & (pool - 1);
      guard.outbound(plainRequests[k]);
      guard.inbound(plainResults[k]);
    }
  };
  let c = 0;
  let d = 0;
  // Each pool entry is used once per pass: a pass re-sends ids the guard finished long ago (new operations to it).
  const floorRound = () => {
    for (let n = 0; n < 16; n++) {
      const r = rounds[c++ & (pool - 1)]!;
      inFlight.set(r[0].id, r[0]);
      inFlight.delete(r[1].id as number);
      inFlight.set(r[2].id, r[2]);
      inFlight.delete(r[3].id as number);
    }
  };
  const guardRound = () => {
    for (let n = 0; n < 16; n++) {
      const r = rounds[d++ & (pool - 1)]!;
      guard.outbound(r[0]);
      guard.inbound(r[1]);
      guard.outbound(r[2]);
      guard.inbound(r[3]);
    }
  };
  return [
    await comparePair('256 × (tools/call + result)', floorPair, guardPair, { rounds: 3, timeMs: 1000 }),
    await comparePair('16 × input-required call (request, form round, retry, result)', floorRound, guardRound, { rounds: 3, timeMs: 1000 }),
  ];
}

if (isMainModule(import.meta.url)) {
  printPairs(SDK_V2_TITLE, await benchSdkV2());
  printPairs(GUARD_V2_TITLE, await benchGuardV2());
}
