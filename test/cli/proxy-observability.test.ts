import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { describeEvent } from '../../src/cli/describe-event.js';
import type { GuardEvent } from '../../src/core/events.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const tsx = ['--import', 'tsx'];
const fixtureServer = [process.execPath, ...tsx, 'fixtures/servers/elicitation-server.ts'];

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: { elicitation: { form: {} } }, clientInfo: { name: 'raw', version: '1' } },
});
const initialized = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
const callTool = (id: number, name: string) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });

/** The proxy from source with raw stdio: write lines, read what it prints. */
function proxy(args: string[]) {
  const child = spawn(process.execPath, [...tsx, 'src/cli/main.ts', 'proxy', ...args], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<{ code: number | null }>((resolve) => child.once('exit', (code) => resolve({ code })));
  const messages = () =>
    stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const send = (line: string) => child.stdin.write(line + '\n');
  /** initialize, wait for its answer, initialized, then `lines`. */
  const session = async (lines: string[]) => {
    send(initialize);
    await vi.waitFor(() => expect(messages().some((m) => m.id === 1)).toBe(true), { timeout: 20_000 });
    for (const line of [initialized, ...lines]) send(line);
  };
  return { child, exited, messages, err: () => stderr, send, session };
}

describe('proxy --log-level: one human line per decision on stderr', () => {
  it('at the default level (warn) prints the block with the field and its reason, not the allowed traffic', async () => {
    const run = proxy(['--ledger', 'memory', '--server', 'fixture', '--', ...fixtureServer]);
    await run.session([callTool(2, 'ask-password'), callTool(3, 'ask-api-key-de')]);
    await vi.waitFor(() => expect(run.messages().filter((m) => m.id === 2 || m.id === 3)).toHaveLength(2), { timeout: 20_000 });
    run.child.stdin.end();
    expect((await run.exited).code).toBe(0);
    const lines = run.err().split('\n').filter(Boolean);
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^mcp-elicitation-guard: BLOCK form from fixture: field "password" \(credential: name:password, title:password\) \[schema sha256:[0-9a-f]{64}\]$/u,
      ),
    );
    expect(lines.filter((l) => l.includes('BLOCK form from fixture'))).toHaveLength(2);
    expect(run.err()).not.toContain('server started');
    expect(run.err()).not.toContain('ALLOW');
  }, 30_000);

  it('at info also prints the server start and exit and the allowed decisions; at error nothing of the kind', async () => {
    const info = proxy(['--ledger', 'memory', '--log-level', 'info', '--', ...fixtureServer]);
    await info.session([callTool(2, 'ask-password')]);
    await vi.waitFor(() => expect(info.messages().some((m) => m.id === 2)).toBe(true), { timeout: 20_000 });
    info.child.stdin.end();
    await info.exited;
    expect(info.err()).toMatch(/mcp-elicitation-guard: server started: .*node.* \(pid \d+\)/u);
    expect(info.err()).toContain('mcp-elicitation-guard: SESSION with elicitation-fixture');
    expect(info.err()).toContain('mcp-elicitation-guard: BLOCK form from elicitation-fixture');
    expect(info.err()).toContain('mcp-elicitation-guard: server exited with code 0');

    const quiet = proxy(['--ledger', 'memory', '--log-level', 'error', '--', ...fixtureServer]);
    await quiet.session([callTool(2, 'ask-password')]);
    await vi.waitFor(() => expect(quiet.messages().some((m) => m.id === 2)).toBe(true), { timeout: 20_000 });
    quiet.child.stdin.end();
    await quiet.exited;
    expect(quiet.err()).not.toContain('BLOCK');
    expect(quiet.err()).not.toContain('server');
  }, 40_000);

  it('refuses an unknown level', async () => {
    const run = proxy(['--log-level', 'loud', '--', process.execPath, '-e', '']);
    expect((await run.exited).code).toBe(2);
    expect(run.err()).toContain('--log-level must be one of error, warn, info, debug');
  }, 20_000);
});

describe('proxy: a server that goes away never leaves the host waiting', () => {
  // Reads requests, answers the first tools/call, then exits (or is killed) with two calls pending.
  const crashing = (how: string) => [
    process.execPath,
    '-e',
    `const rl = require('node:readline').createInterface({ input: process.stdin });
     let calls = 0;
     rl.on('line', (line) => {
       const m = JSON.parse(line);
       if (m.method !== 'tools/call') return;
       calls++;
       if (calls === 1) process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { content: [] } }) + '\\n');
       if (calls === 3) ${how};
     });`,
  ];

  it('answers every pending request with -32603 E_SERVER_EXITED when the server exits with a code, and says so', async () => {
    const run = proxy(['--ledger', 'memory', '--', ...crashing('process.exit(5)')]);
    for (const line of [callTool(10, 'a'), callTool('b-11' as unknown as number, 'b'), callTool(12, 'c')]) run.send(line);
    expect((await run.exited).code).toBe(5);
    const byId = new Map(run.messages().map((m) => [m.id, m]));
    expect(byId.get(10)).toMatchObject({ result: { content: [] } });
    for (const id of ['b-11', 12])
      expect(byId.get(id)).toMatchObject({ jsonrpc: '2.0', id, error: { code: -32603, data: { code: 'E_SERVER_EXITED' } } });
    expect(run.messages()).toHaveLength(3);
    expect(run.err()).toContain('mcp-elicitation-guard: server exited with code 5');
    expect(run.err()).toContain('answered 2 pending host requests with -32603 (E_SERVER_EXITED)');
  }, 20_000);

  it('a hostile server cannot clear a pending request with a request of its own that reuses the id', async () => {
    // The server sends a request (the other direction) with id 2 and a response for an id the host
    // never used, then exits: the host's requests 2 and 3 are still answered.
    const hostile = [
      process.execPath,
      '-e',
      `const rl = require('node:readline').createInterface({ input: process.stdin });
       let calls = 0;
       rl.on('line', (line) => {
         const m = JSON.parse(line);
         if (m.method !== 'tools/call') return;
         if (++calls < 2) return;
         process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }) + '\\n');
         process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: 77, result: {} }) + '\\n');
         setTimeout(() => process.exit(9), 50);
       });`,
    ];
    const run = proxy(['--ledger', 'memory', '--', ...hostile]);
    for (const line of [callTool(2, 'a'), callTool(3, 'b')]) run.send(line);
    expect((await run.exited).code).toBe(9);
    const answered = run
      .messages()
      .filter((m) => !('method' in m) && (m.error as { data?: { code?: string } } | undefined)?.data?.code === 'E_SERVER_EXITED');
    expect(answered.map((m) => m.id)).toEqual([2, 3]);
  }, 20_000);

  it('answers a request the host re-sent under one id once, when it is the only one pending', async () => {
    // Call 7 is answered; 8 is sent twice (a host retry), so one request is in flight when the server exits.
    const run = proxy(['--ledger', 'memory', '--', ...crashing('process.exit(4)')]);
    for (const line of [callTool(7, 'a'), callTool(8, 'b'), callTool(8, 'b')]) run.send(line);
    expect((await run.exited).code).toBe(4);
    const exited = run.messages().filter((m) => (m.error as { data?: { code?: string } } | undefined)?.data?.code === 'E_SERVER_EXITED');
    expect(exited.map((m) => m.id)).toEqual([8]);
    expect(run.err()).toContain('answered 1 pending host request with -32603 (E_SERVER_EXITED)');
  }, 20_000);

  it('does the same when the server is killed by a signal', async () => {
    const run = proxy(['--ledger', 'memory', '--', ...crashing("process.kill(process.pid, 'SIGKILL')")]);
    for (const line of [callTool(1, 'a'), callTool(2, 'b'), callTool(3, 'c')]) run.send(line);
    expect((await run.exited).code).toBe(137);
    expect(
      run
        .messages()
        .filter((m) => (m.error as { data?: { code?: string } } | undefined)?.data?.code === 'E_SERVER_EXITED')
        .map((m) => m.id),
    ).toEqual([2, 3]);
    expect(run.err()).toContain('server was stopped by signal SIGKILL');
  }, 20_000);
});

describe('proxy: usage mistakes get the intended hint', () => {
  const dir = mkdtempSync(join(tmpdir(), 'meg-proxy-usage-'));
  const policy = join(dir, 'policy.json');
  writeFileSync(policy, JSON.stringify({ servers: { everything: {}, github: { form: { onSensitive: 'audit' } } } }));

  it('an unknown --server key is an error that lists the policy keys and suggests the nearest', async () => {
    const run = proxy(['--policy', policy, '--server', 'evrything', '--', process.execPath, '-e', '']);
    expect((await run.exited).code).toBe(2);
    expect(run.err()).toContain(
      '--server "evrything" is not a key of the policy\'s "servers" (did you mean "everything"?); its keys: "everything", "github"',
    );
  }, 20_000);

  it('the server command without "--" gets the hint with the corrected command line', async () => {
    const run = proxy(['--ledger', 'memory', 'npx', '-y', '@modelcontextprotocol/server-everything']);
    expect((await run.exited).code).toBe(2);
    expect(run.err()).toContain('put the server command after "--"');
    expect(run.err()).toContain('mcp-elicitation-guard proxy --ledger memory -- npx -y @modelcontextprotocol/server-everything');
  }, 20_000);
});

describe('describeEvent', () => {
  const server = { key: 'everything', name: 'srv', version: '1' };
  it('writes the block line of the README', () => {
    const event: GuardEvent = {
      type: 'form.sensitive',
      at: 0,
      generation: 1,
      server,
      action: 'blocked',
      requestId: 3,
      fields: [{ name: 'api_key', class: 'credential', reasons: ['name:api key'] }],
    };
    expect(describeEvent(event)).toEqual({ level: 'warn', text: 'BLOCK form from everything: field "api_key" (credential: name:api key)' });
  });

  it('keeps server text on one line and without secrets', () => {
    const event: GuardEvent = {
      type: 'guard.error',
      at: 0,
      generation: 1,
      server: { key: null, name: 'evil\nBLOCK fake', version: null },
      code: 'E_X',
      message: 'token ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\u202e',
    };
    const line = describeEvent(event)!;
    expect(line.text).not.toContain('\n');
    expect(line.text).not.toContain('\u202e');
    expect(line.text).not.toContain('ghp_aaaa');
  });
});
