/**
 * The stdio proxy against a plain pipe, both in one run: an SDK client drives `tools/call` round
 * trips over stdio to a trivial server (`fixtures/servers/echo-server.mjs`) through
 *
 * - the baseline: `fixtures/servers/pipe.mjs`, a process that copies bytes both ways unchanged;
 * - the candidate: the built CLI, `node dist/cli/main.js proxy --ledger memory -- <server>`.
 *
 * Both paths have the same three processes (client, middle, server), so the ratio is the cost of
 * what the proxy does with each message: framing, parsing, judging, re-serialising. Latency comes
 * from sequential round trips (one in flight); throughput from a pipelined run with 64 in flight
 * (messages = 2 per round trip). Each round measures both sides in small alternating blocks; the
 * figures are medians over the rounds, each ratio also given as min / median / max over the rounds.
 * The main figure is the middle process's CPU time per message (all its threads, from /proc): what
 * the proxy costs the machine. Both middles get the host's whole environment. Before the first
 * round each side runs unmeasured pipelined round trips, so every round measures compiled code.
 * Targets: middle CPU ≤ 1.3× the pipe's, p50 latency ≤ 1.06×.
 *
 * A last row, after the rounds above (so their figures are not changed by it), measures large
 * results: sequential `tools/call` round trips of the server's `document` tool, a 64 KiB text
 * (markdown and code, full of JSON escapes and multi-byte UTF-8; about 70 KB of JSON, more than
 * one pipe read), in the same alternating blocks, with the middle's CPU per round trip. It shows
 * what the proxy costs where parsing dominates; the targets are for the rows above.
 *
 * Uses the built CLI so tsx's loader is not measured: run `npm run build` first.
 * Run: npx tsx bench/proxy.bench.ts
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { isMainModule } from '../src/cli/io.js';
import { formatSpread, spread } from './harness.js';

export interface ProxyBenchOptions {
  /** Round trips per measured run (each side, each of the two runs, each round). Default 10,000. */
  readonly roundTrips?: number;
  /** Requests in flight in the pipelined run. Default 64. */
  readonly inFlight?: number;
  /** Default 5. */
  readonly rounds?: number;
  /** The large row: the `document` tool's text in bytes (default 65,536), and round trips per side per round (default 1,000; 0 skips it). */
  readonly largeBytes?: number;
  readonly largeRoundTrips?: number;
}

/** The large row (see the file's comment): each figure the median over the rounds, each ratio proxy / pipe. */
export interface ProxyLargeFigures {
  readonly bytes: number;
  /** Bytes of one result line as the server writes it. */
  readonly lineBytes: number;
  readonly roundTrips: number;
  readonly pipe: { readonly latencyP50Us: number; readonly middleCpuUsPerRoundTrip: number | null };
  readonly proxy: { readonly latencyP50Us: number; readonly middleCpuUsPerRoundTrip: number | null };
  readonly roundRatios: readonly { readonly latency: number; readonly cpu: number | null }[];
}

/** One side's figures, each the median over the rounds. */
export interface ProxySideFigures {
  /** Sequential round trips: the median and the 99th percentile of one round trip, and the mean (elapsed / count). */
  readonly latencyP50Us: number;
  readonly latencyP99Us: number;
  readonly latencyMeanUs: number;
  /** Pipelined round trips per second, and messages per second (2 per round trip). */
  readonly roundTripsPerSecond: number;
  readonly messagesPerSecond: number;
  /** CPU time of the middle process (pipe or proxy, all its threads) per message in the pipelined runs, over all rounds; null where /proc is not available. */
  readonly middleCpuUsPerMessage: number | null;
  /** The same in the sequential runs (one message in flight: every message its own wake-up). */
  readonly middleCpuUsPerMessageSequential: number | null;
}

export interface ProxyBenchResult {
  readonly roundTrips: number;
  readonly inFlight: number;
  readonly rounds: number;
  readonly pipe: ProxySideFigures;
  readonly proxy: ProxySideFigures;
  /** proxy / pipe of the middle process's CPU time per message (pipelined), median over the rounds: the main figure (target ≤ 1.3). */
  readonly cpuRatio: number | null;
  /** proxy / pipe of the sequential p50 latency, median over the rounds (target ≤ 1.06). */
  readonly latencyRatio: number;
  /** proxy − pipe of the sequential p50 latency, in microseconds (median over the rounds). */
  readonly addedLatencyUs: number;
  /** proxy / pipe of pipelined messages per second, median over the rounds (1 = no loss). */
  readonly throughputRatio: number;
  /** The large-result row, or null when skipped. */
  readonly large: ProxyLargeFigures | null;
  /** Every round's ratios, to show the spread. */
  readonly roundRatios: readonly {
    readonly cpu: number | null;
    readonly cpuSequential: number | null;
    readonly latency: number;
    readonly latencyMean: number;
    readonly latencyP99: number;
    readonly throughput: number;
  }[];
}

const root = fileURLToPath(new URL('../', import.meta.url));
const cli = join(root, 'dist', 'cli', 'main.js');
const server = [process.execPath, join(root, 'fixtures', 'servers', 'echo-server.mjs')];
const WARMUP = 500;
/**
 * Pipelined round trips each side runs once before the first round, unmeasured, so that round
 * measures compiled code like the others instead of the proxy's JIT warming up (the pipe has
 * almost no JavaScript to compile, so a cold first round charged the proxy alone).
 */
const WARMUP_PIPELINED = 5000;
const SEQUENTIAL_BLOCK = 250;
const PIPELINED_BLOCK = 2500;

type SideName = 'pipe' | 'proxy';

interface Side {
  readonly name: SideName;
  readonly client: Client;
  /** The pid of the middle process (the one the client spawned). */
  readonly pid: number | null;
}

interface RunFigures {
  readonly p50Us: number;
  readonly p99Us: number;
  readonly meanUs: number;
  readonly roundTripsPerSecond: number;
  /** CPU time of the middle process during the pipelined runs. */
  readonly cpuUs: number | null;
  readonly messages: number;
  /** CPU time of the middle process during the sequential runs, and their messages. */
  readonly sequentialCpuUs: number | null;
  readonly sequentialMessages: number;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

/** Fails early when the CLI was not built, and says so when `src/` changed after the last build. */
function checkBuild(): void {
  if (!existsSync(cli)) throw new Error(`${cli} does not exist: run "npm run build" first`);
  const built = statSync(cli).mtimeMs;
  const newer = (dir: string): boolean =>
    readdirSync(dir, { withFileTypes: true }).some((e) =>
      e.isDirectory() ? newer(join(dir, e.name)) : e.name.endsWith('.ts') && statSync(join(dir, e.name)).mtimeMs > built,
    );
  if (newer(join(root, 'src')))
    console.warn('proxy bench: src/ changed after the last build; the figures are for the built dist/ (run "npm run build")');
}

async function connect(name: SideName): Promise<Side> {
  const args =
    name === 'pipe' ? [join(root, 'fixtures', 'servers', 'pipe.mjs'), ...server] : [cli, 'proxy', '--ledger', 'memory', '--', ...server];
  // The whole environment, as a host passes it: the SDK's default keeps only a few variables.
  const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
  const transport = new StdioClientTransport({ command: process.execPath, args, cwd: root, env, stderr: 'inherit' });
  const client = new Client({ name: `bench-host-${name}`, version: '1.0.0' }, { capabilities: { elicitation: { form: {}, url: {} } } });
  await client.connect(transport);
  return { name, client, pid: transport.pid };
}

/**
 * CPU time of a process in microseconds (Linux /proc): the nanosecond run time of all its threads
 * from schedstat, else utime + stime in 10 ms ticks; null elsewhere.
 */
function cpuUs(pid: number | null): number | null {
  if (pid === null) return null;
  try {
    let ns = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // A thread that ended between the listing and the read.
      }
    }
    if (Number.isFinite(ns) && ns > 0) return ns / 1000;
  } catch {
    // No schedstat: fall back to the tick counters.
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return (ticks * 1_000_000) / 100;
  } catch {
    return null;
  }
}

const call = (client: Client, n: number) => client.callTool({ name: 'echo', arguments: { n } });
const LARGE_BLOCK = 50;
const LARGE_WARMUP = 200;

/** Per-round accumulators of one side, filled block by block. */
class Tally {
  readonly times: number[] = [];
  sequentialUs = 0;
  pipelinedUs = 0;
  pipelinedRoundTrips = 0;
  cpuUs: number | null = 0;
  sequentialCpuUs: number | null = 0;

  figures(): RunFigures {
    const sorted = [...this.times].sort((a, b) => a - b);
    return {
      p50Us: percentile(sorted, 0.5),
      p99Us: percentile(sorted, 0.99),
      meanUs: this.sequentialUs / sorted.length,
      roundTripsPerSecond: this.pipelinedRoundTrips / (this.pipelinedUs / 1_000_000),
      cpuUs: this.cpuUs,
      messages: this.pipelinedRoundTrips * 2,
      sequentialCpuUs: this.sequentialCpuUs,
      sequentialMessages: sorted.length * 2,
    };
  }
}

async function sequentialBlock(side: Side, count: number, tally: Tally): Promise<void> {
  const cpuBefore = cpuUs(side.pid);
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    await call(side.client, i);
    tally.times.push((performance.now() - t) * 1000);
  }
  tally.sequentialUs += (performance.now() - start) * 1000;
  const cpuAfter = cpuUs(side.pid);
  tally.sequentialCpuUs =
    tally.sequentialCpuUs === null || cpuBefore === null || cpuAfter === null ? null : tally.sequentialCpuUs + cpuAfter - cpuBefore;
}

async function pipelinedBlock(side: Side, count: number, inFlight: number, tally: Tally): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await call(side.client, next++);
  };
  const cpuBefore = cpuUs(side.pid);
  const start = performance.now();
  await Promise.all(Array.from({ length: inFlight }, worker));
  tally.pipelinedUs += (performance.now() - start) * 1000;
  tally.pipelinedRoundTrips += count;
  const cpuAfter = cpuUs(side.pid);
  tally.cpuUs = tally.cpuUs === null || cpuBefore === null || cpuAfter === null ? null : tally.cpuUs + cpuAfter - cpuBefore;
}

/**
 * One round: `count` sequential and `count` pipelined round trips per side, in small blocks that
 * alternate between the sides (and which side goes first), so a neighbour's load on this shared
 * 2-core machine falls on both sides alike instead of on whichever ran during it.
 */
async function measureRound(pipe: Side, proxy: Side, count: number, inFlight: number): Promise<Record<SideName, RunFigures>> {
  for (const side of [pipe, proxy]) for (let i = 0; i < WARMUP; i++) await call(side.client, i);
  const tallies: Record<SideName, Tally> = { pipe: new Tally(), proxy: new Tally() };
  const blocks = async (size: number, run: (side: Side, n: number) => Promise<void>) => {
    for (let done = 0, block = 0; done < count; done += size, block++) {
      const n = Math.min(size, count - done);
      for (const side of block % 2 === 0 ? [pipe, proxy] : [proxy, pipe]) await run(side, n);
    }
  };
  await blocks(SEQUENTIAL_BLOCK, (side, n) => sequentialBlock(side, n, tallies[side.name]));
  await blocks(PIPELINED_BLOCK, (side, n) => pipelinedBlock(side, n, inFlight, tallies[side.name]));
  return { pipe: tallies.pipe.figures(), proxy: tallies.proxy.figures() };
}

/** One round of the large row: sequential `document` round trips in alternating blocks; p50 and middle CPU per round trip per side. */
async function measureLargeRound(
  pipe: Side,
  proxy: Side,
  count: number,
  bytes: number,
): Promise<Record<SideName, { p50Us: number; cpuUs: number | null }>> {
  const times: Record<SideName, number[]> = { pipe: [], proxy: [] };
  const cpu: Record<SideName, number | null> = { pipe: 0, proxy: 0 };
  for (let done = 0, block = 0; done < count; done += LARGE_BLOCK, block++) {
    const n = Math.min(LARGE_BLOCK, count - done);
    for (const side of block % 2 === 0 ? [pipe, proxy] : [proxy, pipe]) {
      const before = cpuUs(side.pid);
      for (let i = 0; i < n; i++) {
        const t = performance.now();
        await side.client.callTool({ name: 'document', arguments: { bytes } });
        times[side.name].push((performance.now() - t) * 1000);
      }
      const after = cpuUs(side.pid);
      const sum = cpu[side.name];
      cpu[side.name] = sum === null || before === null || after === null ? null : sum + after - before;
    }
  }
  const p50 = (name: SideName) =>
    percentile(
      [...times[name]].sort((a, b) => a - b),
      0.5,
    );
  const perTrip = (name: SideName) => (cpu[name] === null ? null : cpu[name]! / count);
  return { pipe: { p50Us: p50('pipe'), cpuUs: perTrip('pipe') }, proxy: { p50Us: p50('proxy'), cpuUs: perTrip('proxy') } };
}

async function benchLarge(pipe: Side, proxy: Side, rounds: number, count: number, bytes: number): Promise<ProxyLargeFigures> {
  const probe = await pipe.client.callTool({ name: 'document', arguments: { bytes } });
  const lineBytes = Buffer.byteLength(JSON.stringify({ result: probe, jsonrpc: '2.0', id: 1 }));
  for (const side of [pipe, proxy])
    for (let i = 0; i < LARGE_WARMUP; i++) await side.client.callTool({ name: 'document', arguments: { bytes } });
  const runs: Record<SideName, { p50Us: number; cpuUs: number | null }>[] = [];
  for (let round = 0; round < rounds; round++) runs.push(await measureLargeRound(pipe, proxy, count, bytes));
  const side = (name: SideName) => {
    const cpu = runs.map((r) => r[name].cpuUs);
    return {
      latencyP50Us: median(runs.map((r) => r[name].p50Us)),
      middleCpuUsPerRoundTrip: cpu.every((c): c is number => c !== null) ? median(cpu) : null,
    };
  };
  return {
    bytes,
    lineBytes,
    roundTrips: count,
    pipe: side('pipe'),
    proxy: side('proxy'),
    roundRatios: runs.map((r) => ({
      latency: r.proxy.p50Us / r.pipe.p50Us,
      cpu: r.proxy.cpuUs === null || r.pipe.cpuUs === null ? null : r.proxy.cpuUs / r.pipe.cpuUs,
    })),
  };
}

function summarize(runs: readonly RunFigures[]): ProxySideFigures {
  const cpu = runs.map((r) => r.cpuUs);
  const messages = runs.reduce((sum, r) => sum + r.messages, 0);
  const sequentialCpu = runs.map((r) => r.sequentialCpuUs);
  const sequentialMessages = runs.reduce((sum, r) => sum + r.sequentialMessages, 0);
  const roundTripsPerSecond = median(runs.map((r) => r.roundTripsPerSecond));
  return {
    latencyP50Us: median(runs.map((r) => r.p50Us)),
    latencyP99Us: median(runs.map((r) => r.p99Us)),
    latencyMeanUs: median(runs.map((r) => r.meanUs)),
    roundTripsPerSecond,
    messagesPerSecond: roundTripsPerSecond * 2,
    middleCpuUsPerMessage: cpu.every((c): c is number => c !== null) ? cpu.reduce((sum, c) => sum + c, 0) / messages : null,
    middleCpuUsPerMessageSequential: sequentialCpu.every((c): c is number => c !== null)
      ? sequentialCpu.reduce((sum, c) => sum + c, 0) / sequentialMessages
      : null,
  };
}

/** Runs the comparison; both sides' processes live for the whole run and are closed at the end. */
export async function benchProxy(options: ProxyBenchOptions = {}): Promise<ProxyBenchResult> {
  const roundTrips = options.roundTrips ?? 10_000;
  const inFlight = options.inFlight ?? 64;
  const rounds = options.rounds ?? 3;
  const largeBytes = options.largeBytes ?? 65_536;
  const largeRoundTrips = options.largeRoundTrips ?? 1000;
  checkBuild();
  const pipe = await connect('pipe');
  const proxy = await connect('proxy');
  try {
    for (const side of [pipe, proxy]) await pipelinedBlock(side, WARMUP_PIPELINED, inFlight, new Tally());
    const runs: Record<SideName, RunFigures[]> = { pipe: [], proxy: [] };
    for (let round = 0; round < rounds; round++) {
      const figures = await measureRound(pipe, proxy, roundTrips, inFlight);
      runs.pipe.push(figures.pipe);
      runs.proxy.push(figures.proxy);
    }
    const large = largeRoundTrips > 0 ? await benchLarge(pipe, proxy, rounds, largeRoundTrips, largeBytes) : null;
    const roundRatios = runs.pipe.map((p, i) => {
      const c = runs.proxy[i]!;
      const cpu = c.cpuUs === null || p.cpuUs === null ? null : c.cpuUs / c.messages / (p.cpuUs / p.messages);
      const cpuSequential =
        c.sequentialCpuUs === null || p.sequentialCpuUs === null
          ? null
          : c.sequentialCpuUs / c.sequentialMessages / (p.sequentialCpuUs / p.sequentialMessages);
      return {
        cpu,
        cpuSequential,
        latency: c.p50Us / p.p50Us,
        latencyMean: c.meanUs / p.meanUs,
        latencyP99: c.p99Us / p.p99Us,
        throughput: c.roundTripsPerSecond / p.roundTripsPerSecond,
      };
    });
    const cpuRatios = roundRatios.map((r) => r.cpu);
    return {
      roundTrips,
      inFlight,
      rounds,
      pipe: summarize(runs.pipe),
      proxy: summarize(runs.proxy),
      cpuRatio: cpuRatios.every((c): c is number => c !== null) ? median(cpuRatios) : null,
      latencyRatio: median(roundRatios.map((r) => r.latency)),
      addedLatencyUs: median(runs.pipe.map((p, i) => runs.proxy[i]!.p50Us - p.p50Us)),
      throughputRatio: median(roundRatios.map((r) => r.throughput)),
      large,
      roundRatios,
    };
  } finally {
    await pipe.client.close();
    await proxy.client.close();
  }
}

export function printProxy(result: ProxyBenchResult): void {
  console.log(
    `\nstdio proxy (built CLI, --ledger memory) vs a plain pipe process (baseline), echo server, ${result.roundTrips} ` +
      `sequential + ${result.roundTrips} pipelined tools/call round trips per round, ${result.rounds} rounds; targets: middle ` +
      `CPU ≤ 1.3×, p50 latency ≤ 1.06×`,
  );
  const row = (label: string, s: ProxySideFigures) => ({
    path: label,
    'middle CPU µs/msg': s.middleCpuUsPerMessage === null ? 'n/a' : s.middleCpuUsPerMessage.toFixed(2),
    sequential: s.middleCpuUsPerMessageSequential === null ? 'n/a' : s.middleCpuUsPerMessageSequential.toFixed(2),
    'p50 µs': s.latencyP50Us.toFixed(1),
    'p99 µs': s.latencyP99Us.toFixed(1),
    'mean µs': s.latencyMeanUs.toFixed(1),
    [`round trips/s (${result.inFlight} in flight)`]: Math.round(s.roundTripsPerSecond),
    'messages/s': Math.round(s.messagesPerSecond),
  });
  console.table([row('pipe (baseline)', result.pipe), row('proxy', result.proxy)]);
  const r = result.roundRatios;
  const cpu = r.map((x) => x.cpu);
  console.table([
    {
      figure: 'middle CPU per message (main figure)',
      'ratio min / median / max': cpu.every((c): c is number => c !== null) ? formatSpread(spread(cpu)) : 'n/a',
    },
    {
      figure: 'middle CPU per message, sequential',
      'ratio min / median / max': r.every((x) => x.cpuSequential !== null)
        ? formatSpread(spread(r.map((x) => x.cpuSequential as number)))
        : 'n/a',
    },
    { figure: 'latency p50 (sequential)', 'ratio min / median / max': formatSpread(spread(r.map((x) => x.latency))) },
    { figure: 'latency mean (sequential)', 'ratio min / median / max': formatSpread(spread(r.map((x) => x.latencyMean))) },
    { figure: 'latency p99 (sequential)', 'ratio min / median / max': formatSpread(spread(r.map((x) => x.latencyP99))) },
    { figure: `throughput (${result.inFlight} in flight)`, 'ratio min / median / max': formatSpread(spread(r.map((x) => x.throughput))) },
  ]);
  console.log(`added p50 latency: +${result.addedLatencyUs.toFixed(1)} µs`);
  const each = (pick: (x: (typeof r)[number]) => number | null) => r.map((x) => pick(x)?.toFixed(3) ?? 'n/a').join(', ');
  console.log(`each round: middle CPU ${each((x) => x.cpu)}; p50 ${each((x) => x.latency)}; p99 ${each((x) => x.latencyP99)}`);
  const large = result.large;
  if (large === null) return;
  console.log(
    `\nlarge results: the document tool's ${large.bytes}-byte text (${large.lineBytes} bytes of JSON per result line), ` +
      `${large.roundTrips} sequential round trips per side per round (no target)`,
  );
  const us = (c: number | null) => (c === null ? 'n/a' : c.toFixed(1));
  console.table([
    {
      path: 'pipe (baseline)',
      'p50 µs': large.pipe.latencyP50Us.toFixed(1),
      'middle CPU µs/round trip': us(large.pipe.middleCpuUsPerRoundTrip),
    },
    { path: 'proxy', 'p50 µs': large.proxy.latencyP50Us.toFixed(1), 'middle CPU µs/round trip': us(large.proxy.middleCpuUsPerRoundTrip) },
  ]);
  const lr = large.roundRatios;
  console.log(
    `large: p50 ratio ${formatSpread(spread(lr.map((x) => x.latency)))}; middle CPU ratio ${
      lr.every((x) => x.cpu !== null) ? formatSpread(spread(lr.map((x) => x.cpu as number))) : 'n/a'
    } (min / median / max over the rounds)`,
  );
}

if (isMainModule(import.meta.url)) {
  printProxy(await benchProxy());
}
