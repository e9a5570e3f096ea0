/**
 * Guarded vs unguarded SDK round trips: `tools/call` with 1 KB and 1 MB results over the in-memory
 * transport, in one run, reported as a ratio (target ≤ 1.03×).
 *
 * Run: npx tsx bench/sdk.bench.ts
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { isMainModule } from '../src/cli/io.js';
import { guardTransport } from '../src/adapters/sdk/transport.js';
import { createGuard } from '../src/core/guard.js';
import { comparePair, printPairs, type PairResult } from './harness.js';

async function pair(guarded: boolean, payloadBytes: number): Promise<Client> {
  const text = 'x'.repeat(payloadBytes);
  const server = new Server({ name: 'bench', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(CallToolRequestSchema, async () => ({ content: [{ type: 'text' as const, text }] }));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'bench-host', version: '1.0.0' }, { capabilities: { elicitation: { form: {}, url: {} } } });
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'decline' as const }));
  await client.connect(guarded ? guardTransport(clientSide, createGuard()) : clientSide);
  return client;
}

export async function benchSdk(): Promise<PairResult[]> {
  const results: PairResult[] = [];
  for (const [label, bytes] of [['tools/call, 1 KB result', 1024], ['tools/call, 1 MB result', 1024 * 1024]] as const) {
    const plain = await pair(false, bytes);
    const guarded = await pair(true, bytes);
    const args = { name: 'echo', arguments: { q: 1 } };
    results.push(await comparePair(label, () => plain.callTool(args).then(() => undefined), () => guarded.callTool(args).then(() => undefined), { timeMs: bytes > 100_000 ? 1500 : 700 }));
    await plain.close();
    await guarded.close();
  }
  return results;
}

if (isMainModule(import.meta.url)) {
  printPairs('SDK round trips: unguarded (baseline) vs guardTransport (candidate), target ≤ 1.03×', await benchSdk());
}
