/**
 * SDK v2 in the 2026-07-28 era: guarded vs unguarded round trips, in one run, as ratios (target
 * ≤ 1.03×): `tools/call` with 1 KB and 1 MB results, and a two-round input-required call (the
 * server asks for a form, the client's handler answers, the client retries, the server completes).
 * The real v2 Client and McpServer over the in-memory transport (the server behind the SDK's
 * era-selecting entry: the guard's cost against almost nothing), and the input-required call once
 * more with the server as a stdio child process (what a host runs).
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
import { comparePair, printPairs, type PairResult } from './harness.js';

const SERVER = fileURLToPath(new URL('../fixtures/servers/modern-server.ts', import.meta.url));

async function pair(guarded: boolean, overStdio = false): Promise<{ client: Client; close: () => Promise<void> }> {
  let clientSide: Transport;
  let served: { close(): Promise<void> } = { close: async () => undefined };
  if (overStdio)
    clientSide = new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', SERVER] }) as unknown as Transport;
  else {
    const [inner, serverSide] = InMemoryTransport.createLinkedPair();
    clientSide = inner;
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
  const plain = await pair(false);
  const guarded = await pair(true);
  const results: PairResult[] = [];
  const cases = [
    ['v2 tools/call, 1 KB result', { name: 'plain', arguments: { size: 1024 } }, 700],
    ['v2 tools/call, 1 MB result', { name: 'plain', arguments: { size: 1024 * 1024 } }, 1500],
    ['v2 input-required call, two rounds (form, then complete)', { name: 'ordinary_form', arguments: {} }, 1000],
  ] as const;
  for (const [label, args, timeMs] of cases) {
    results.push(
      await comparePair(
        label,
        () => plain.client.callTool(args).then(() => undefined),
        () => guarded.client.callTool(args).then(() => undefined),
        { timeMs },
      ),
    );
  }
  await plain.close();
  await guarded.close();
  const plainStdio = await pair(false, true);
  const guardedStdio = await pair(true, true);
  const args = { name: 'ordinary_form', arguments: {} };
  results.push(
    await comparePair(
      'v2 input-required call, two rounds, server over stdio',
      () => plainStdio.client.callTool(args).then(() => undefined),
      () => guardedStdio.client.callTool(args).then(() => undefined),
      { timeMs: 1500 },
    ),
  );
  await plainStdio.close();
  await guardedStdio.close();
  return results;
}

if (isMainModule(import.meta.url)) {
  printPairs('SDK v2 (2026-07-28) round trips: unguarded (baseline) vs guardTransport (candidate), target ≤ 1.03×', await benchSdkV2());
}
