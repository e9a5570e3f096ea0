/**
 * Floods one guard with a million completion notices for ids it never issued and a million
 * distinct URL elicitation ids, and measures whether its memory stays bounded: heap used after a
 * full GC, before and after each flood, and the throughput.
 *
 * Run: npx tsx bench/flood.bench.ts   (or node --expose-gc --import tsx bench/flood.bench.ts)
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { isMainModule } from '../src/cli/io.js';
import { createGuard } from '../src/core/guard.js';

const URL = 'https://accounts.google.com/o/oauth2/v2/auth?client_id=123.apps.googleusercontent.com&response_type=code&scope=openid';

export interface FloodPhase {
  readonly name: string;
  readonly messages: number;
  readonly seconds: number;
  readonly messagesPerSecond: number;
  readonly heapBeforeMb: number;
  readonly heapAfterMb: number;
  readonly heapGrowthMb: number;
  /** What the guard still holds afterwards (forwarded, dropped, flows it lists). */
  readonly outcome: string;
}

export interface FloodResult {
  /** How the heap was measured: after a forced full GC, or without one (then growth includes garbage). */
  readonly gc: 'global.gc' | 'v8 flag + vm context' | 'none';
  readonly maxPending: number;
  readonly phases: readonly FloodPhase[];
}

/** A full-GC function: the one `--expose-gc` gives, else one obtained by setting the flag at run time. */
function findGc(): { gc: (() => void) | null; how: FloodResult['gc'] } {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (typeof exposed === 'function') return { gc: exposed, how: 'global.gc' };
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as unknown;
    if (typeof gc === 'function') return { gc: gc as () => void, how: 'v8 flag + vm context' };
  } catch {
    // Fall through: measured without a forced collection, and labelled so.
  }
  return { gc: null, how: 'none' };
}

function heapMb(gc: (() => void) | null): number {
  if (gc !== null) {
    gc();
    gc();
  }
  return process.memoryUsage().heapUsed / (1024 * 1024);
}

export async function benchFlood(options: { notices?: number; elicitations?: number } = {}): Promise<FloodResult> {
  const notices = options.notices ?? 1_000_000;
  const elicitations = options.elicitations ?? 1_000_000;
  const { gc, how } = findGc();
  const guard = createGuard();
  guard.outbound({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: {
      protocolVersion: '2025-11-25',
      capabilities: { elicitation: { form: {}, url: {} } },
      clientInfo: { name: 'bench', version: '1' },
    },
  });
  guard.inbound({
    jsonrpc: '2.0',
    id: 0,
    result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'flood', version: '1' } },
  });
  guard.outbound({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const maxPending = guard.policy.completion.maxPending;
  const phases: FloodPhase[] = [];

  const run = (name: string, count: number, send: (i: number) => string): void => {
    const before = heapMb(gc);
    const tally = new Map<string, number>();
    const start = process.hrtime.bigint();
    for (let i = 0; i < count; i++) {
      const action = send(i);
      tally.set(action, (tally.get(action) ?? 0) + 1);
    }
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    const after = heapMb(gc);
    const outcome = `${[...tally].map(([action, n]) => `${action} ${n}`).join(', ')}; pending flows ${guard.pendingFlows().length}`;
    phases.push({
      name,
      messages: count,
      seconds,
      messagesPerSecond: count / seconds,
      heapBeforeMb: before,
      heapAfterMb: after,
      heapGrowthMb: after - before,
      outcome,
    });
  };

  run(
    'unknown completion notices',
    notices,
    (i) =>
      guard.inbound({ jsonrpc: '2.0', method: 'notifications/elicitation/complete', params: { elicitationId: `unknown-${i}` } }).action,
  );
  run('distinct URL elicitation ids', elicitations, (i) => {
    const decision = guard.inbound({
      jsonrpc: '2.0',
      id: `s${i}`,
      method: 'elicitation/create',
      params: { mode: 'url', message: 'Sign in', url: URL, elicitationId: `flood-${i}` },
    });
    return decision.action;
  });
  return { gc: how, maxPending, phases };
}

export function printFlood(result: FloodResult): void {
  const label =
    result.gc === 'none' ? 'heap used WITHOUT a forced GC (growth includes garbage)' : `heap used after a full GC (${result.gc})`;
  console.log(`\nFlood: one guard, ${label}; completion.maxPending = ${result.maxPending}`);
  console.table(
    result.phases.map((p) => ({
      flood: p.name,
      messages: p.messages,
      'messages/s': Math.round(p.messagesPerSecond),
      seconds: p.seconds.toFixed(1),
      'heap before MB': p.heapBeforeMb.toFixed(1),
      'heap after MB': p.heapAfterMb.toFixed(1),
      'growth MB': p.heapGrowthMb.toFixed(1),
      outcome: p.outcome,
    })),
  );
}

if (isMainModule(import.meta.url)) {
  printFlood(await benchFlood());
}
