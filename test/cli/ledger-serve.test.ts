/**
 * `ledger serve` as a command: what it prints, what it refuses, how it stops. The pages themselves
 * are tested in test/ui/ (raw HTTP) and test/e2e/query-page.test.ts (Chromium).
 */
import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ledgerServeCommand } from '../../src/cli/ledger-serve.js';
import { main } from '../../src/cli/main.js';
import { SqliteLedger } from '../../src/ledger/sqlite.js';
import { tempDir } from '../ledger/support.js';
import { memoryIo } from './memory-io.js';

describe('mcp-elicitation-guard ledger serve', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => {
    tmp = tempDir('mcp-eg-serve-');
  });
  afterEach(() => tmp.remove());

  async function serving(args: string[], extra: { openUrl?: (url: string) => Promise<void> } = {}) {
    const mem = memoryIo({ cwd: tmp.dir });
    const signals = new EventEmitter();
    const exit = ledgerServeCommand(args, { ...mem.io, signals, env: { XDG_STATE_HOME: tmp.dir }, ...extra });
    await vi.waitFor(() => expect(mem.stdout()).toMatch(/^query page: http:\/\/127\.0\.0\.1:\d+\/login\?key=[A-Za-z0-9_-]{43}\n$/), {
      timeout: 15_000,
      interval: 20,
    });
    const accessUrl = /query page: (\S+)/.exec(mem.stdout())![1]!;
    return { mem, signals, exit, accessUrl };
  }

  it('prints the access link once on stdout, serves the ledger file, and stops on SIGINT with exit 0', async () => {
    const file = join(tmp.dir, 'ledger.sqlite');
    await (await SqliteLedger.open(file)).close();
    const { mem, signals, exit, accessUrl } = await serving(['--ledger', 'ledger.sqlite']);
    expect(mem.stderr()).toMatch(/serving the ledger \S+ledger\.sqlite at http:\/\/127\.0\.0\.1:\d+\/ \(Ctrl-C stops it\)/);
    expect(mem.stderr()).not.toContain(new URL(accessUrl).searchParams.get('key')!);
    const login = await fetch(accessUrl, { redirect: 'manual' });
    expect(login.status).toBe(303);
    signals.emit('SIGINT');
    expect(await exit).toBe(0);
    await expect(fetch(accessUrl)).rejects.toThrow();
  });

  it('serves an in-memory ledger, and opens the link with --open', async () => {
    const opened: string[] = [];
    const { signals, exit, accessUrl } = await serving(['--ledger', 'memory', '--open'], { openUrl: async (url) => void opened.push(url) });
    expect(opened).toEqual([accessUrl]);
    signals.emit('SIGTERM');
    expect(await exit).toBe(0);
  });

  it('warns when it listens on every address', async () => {
    const { mem, signals, exit } = await serving(['--ledger', 'memory', '--listen-anywhere']);
    expect(mem.stderr()).toContain('WARNING: listening on every address');
    signals.emit('SIGINT');
    expect(await exit).toBe(0);
  });

  it('refuses a missing ledger file without creating it, a bad port, a port in use, and stray arguments', async () => {
    const missing = join(tmp.dir, 'absent.sqlite');
    const a = memoryIo({ cwd: tmp.dir });
    expect(await ledgerServeCommand(['--ledger', missing], a.io)).toBe(2);
    expect(a.stderr()).toContain(`no ledger at ${missing}`);
    expect(existsSync(missing)).toBe(false);

    for (const args of [
      ['ledger', 'serve', '--port', 'http'],
      ['ledger', 'serve', '--port', '70000'],
      ['ledger', 'serve', 'extra'],
    ]) {
      const b = memoryIo({ cwd: tmp.dir });
      expect(await main(args, b.io)).toBe(2);
      expect(b.stderr()).toMatch(/mcp-elicitation-guard ledger: /);
    }

    const { signals, exit, accessUrl } = await serving(['--ledger', 'memory']);
    const c = memoryIo({ cwd: tmp.dir });
    expect(await ledgerServeCommand(['--ledger', 'memory', '--port', new URL(accessUrl).port], c.io)).toBe(2);
    expect(c.stderr()).toContain('cannot listen');
    signals.emit('SIGINT');
    expect(await exit).toBe(0);
  });

  it('prints its help', async () => {
    const mem = memoryIo();
    expect(await main(['ledger', 'serve', '--help'], mem.io)).toBe(0);
    expect(mem.stdout()).toContain('ledger serve [--ledger FILE|URL|memory] [--port N] [--open] [--listen-anywhere]');
  });
});
