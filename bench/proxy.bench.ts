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
}

if (isMainModule(import.meta.url)) {
  printProxy(await benchProxy());
}
