import { PassThrough } from 'node:stream';
import { ElicitationProxy } from './src/adapters/proxy/proxy.js';
import type { Upstream, UpstreamHandlers } from './src/adapters/proxy/child.js';
import { createGuard } from './src/core/guard.js';
let h: UpstreamHandlers;
const upstream: Upstream = { start: async (x) => void (h = x), send: async (m: any) => { if ('method' in m && 'id' in m) { const line = `{"result":{"content":[{"type":"text","text":"echo {\\"n\\":${m.id}}"}]},"jsonrpc":"2.0","id":${m.id}}`; h.onMessage(JSON.parse(line), line); } }, close: async () => h.onExit(0), signal: () => {} };
const input = new PassThrough(); const output = new PassThrough(); let got = 0; output.on('data', (d: Buffer) => { for (let i = d.indexOf(10); i !== -1; i = d.indexOf(10, i + 1)) got++; });
const proxy = new ElicitationProxy({ guard: createGuard(), upstream, hostInput: input, hostOutput: output, log: () => {} });
void proxy.run();
input.write(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'h', version: '1' } } }) + '\n');
const N = 200000; let chunk = '';
for (let round = 0; round < 3; round++) {
  const t = performance.now();
  for (let i = 1; i <= N; i++) { chunk += `{"method":"tools/call","params":{"name":"echo","arguments":{"n":${i}}},"jsonrpc":"2.0","id":${i}}\n`; if (i % 32 === 0) { input.write(chunk); chunk = ''; await new Promise((r) => setImmediate(r)); } }
  console.log(`${((performance.now() - t) * 1000 / (2 * N)).toFixed(2)} µs/msg`);
}
