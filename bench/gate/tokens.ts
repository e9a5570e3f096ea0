/**
 * "Third-party tokens outside the secret vault": the server companion's whole connect flow against
 * a real `oidc-provider` (the example server of `examples/oauth-server`, the test provider and the
 * cookie-carrying test browser of the server tests), driven by a guarded SDK host that consents,
 * opens the link, waits for the completion notice and retries. Everything written on the way is
 * collected: the guard's and the connect service's audit logs (the files), their events, every
 * ledger row, every MCP message the client received (before and after the guard), the tool
 * results, and the process's stdout and stderr. The issued tokens are then read from the vault and
 * counted in all of it.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ElicitRequestSchema,
  UrlElicitationRequiredError,
  type JSONRPCMessage,
  type MessageExtraInfo,
} from '@modelcontextprotocol/sdk/types.js';
import { startExample, type RunningExample } from '../../examples/oauth-server/app.js';
import { createElicitationHandler, presentUrlElicitationRequired } from '../../src/adapters/sdk/handler.js';
import type { ConsentUi } from '../../src/adapters/sdk/consent-ui.js';
import { guardTransport } from '../../src/adapters/sdk/transport.js';
import type { GuardEvent } from '../../src/core/events.js';
import { createAuditLog } from '../../src/audit/log.js';
import { createGuard } from '../../src/core/guard.js';
import { MemoryLedger } from '../../src/ledger/memory.js';
import { createConnectAuditLog, type ConnectEvent } from '../../src/server/connect-audit.js';
import { EncryptedFileVault } from '../../src/server/vault.js';
import { TestBrowser } from '../../test/server/helpers/browser.js';
import { startTestProvider, type TestProvider } from '../../test/server/helpers/provider.js';
import { recordingLedger, Sequence } from './recording-ledger.js';
import type { GateLine } from './types.js';

const PROVIDER = 'testhub';
const CLIENT_ID = 'gate-client';
const CLIENT_SECRET = 'gate-client-secret-not-real-0123456789';
const USERS: Readonly<Record<string, { readonly password: string; readonly token: string }>> = {
  alice: { password: 'alice-gate-password', token: 'mcp-gate-token-alice' },
  bob: { password: 'bob-gate-password', token: 'mcp-gate-token-bob' },
};

/** Keeps every message the inner transport delivers, then passes it on unchanged. */
class RecordingTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  setProtocolVersion?: (version: string) => void;

  constructor(
    private readonly inner: Transport,
    private readonly received: unknown[],
  ) {
    const setProtocolVersion = inner.setProtocolVersion;
    if (setProtocolVersion !== undefined) this.setProtocolVersion = (version) => setProtocolVersion.call(inner, version);
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  start(): Promise<void> {
    this.inner.onmessage = (message, extra) => {
      this.received.push(message);
      this.onmessage?.(message, extra);
    };
    this.inner.onerror = (error) => this.onerror?.(error);
    this.inner.onclose = () => this.onclose?.();
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** Captures what the process writes to stdout and stderr while `run` runs (and still writes it). */
async function capturingOutput<T>(sink: string[], run: () => Promise<T>): Promise<T> {
  const streams = [process.stdout, process.stderr];
  const originals = streams.map((s) => s.write);
  streams.forEach((stream, i) => {
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      sink.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
      return (originals[i] as (...args: unknown[]) => boolean).call(stream, chunk, ...rest);
    }) as typeof stream.write;
  });
  try {
    return await run();
  } finally {
    streams.forEach((stream, i) => (stream.write = originals[i]!));
  }
}

async function signIn(example: RunningExample, browser: TestBrowser, user: string): Promise<void> {
  const response = await fetch(`${example.url}/login`, {
    method: 'POST',
    redirect: 'manual',
    body: new URLSearchParams({ username: user, password: USERS[user]!.password, returnTo: '/' }),
  });
  await response.arrayBuffer();
  if (response.status !== 303) throw new Error(`login of ${user} answered ${response.status}`);
  const [pair = ''] = (response.headers.get('set-cookie') ?? '').split(';');
  const at = pair.indexOf('=');
  browser.setCookie(example.url, pair.slice(0, at), pair.slice(at + 1));
}

async function until(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

interface Collected {
  readonly guardEvents: GuardEvent[];
  readonly connectEvents: ConnectEvent[];
  readonly fromServer: unknown[];
  readonly toHost: unknown[];
  readonly results: unknown[];
  readonly output: string[];
}

/** One user's whole flow: -32042, consent, the connect page and provider in the browser, the notice, the retry. */
async function connectAs(user: string, example: RunningExample, collected: Collected, dir: string, ledger: MemoryLedger): Promise<void> {
  const sequence = new Sequence();
  const recorded = recordingLedger(ledger, sequence);
  const guardLog = createAuditLog(join(dir, 'logs', 'guard-audit.jsonl'));
  // The example runs on http://127.0.0.1, which only the development profile lets through.
  const guard = createGuard({
    policy: { profile: 'development' },
    ledger: recorded.ledger,
    subject: user,
    onEvent: (e) => {
      collected.guardEvents.push(e);
      guardLog.write(e);
    },
  });
  const browser = new TestBrowser();
  await signIn(example, browser, user);
  const ui: ConsentUi = { reviewUrl: async () => 'accept', reviewForm: async () => ({ action: 'cancel' }) };
  const opener = async (url: string): Promise<void> => {
    const walk = await browser.follow(url);
    collected.output.push(await walk.response.text());
  };
  const client = new Client({ name: 'gate-guarded-host', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
  client.setRequestHandler(ElicitRequestSchema, createElicitationHandler(guard, ui, { opener, ledger: recorded.ledger }));
  const http = new StreamableHTTPClientTransport(new URL(`${example.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${USERS[user]!.token}` } },
  });
  await client.connect(new RecordingTransport(guardTransport(new RecordingTransport(http, collected.fromServer), guard), collected.toHost));
  try {
    const error = await client.callTool({ name: 'connect_provider', arguments: {} }).then(
      () => null,
      (e: unknown) => e,
    );
    if (!(error instanceof UrlElicitationRequiredError)) throw new Error(`expected -32042 for ${user}, got ${String(error)}`);
    const outcome = await presentUrlElicitationRequired(guard, ui, error, { opener, ledger: recorded.ledger, openGraceMs: 10_000 });
    if (outcome !== 'accepted') throw new Error(`presenting the requirement for ${user} came to ${outcome}`);
    const [entry] = error.elicitations;
    await until(() => guard.flow(entry!.elicitationId)?.state === 'ERROR_RETRY_ELIGIBLE', `the completion notice for ${user}`);
    collected.results.push(await client.callTool({ name: 'connect_provider', arguments: {} }));
    await guard.flush();
    collected.results.push(recorded.writes.map((w) => w.row));
  } finally {
    await client.close();
    await guardLog.close();
  }
}

function occurrences(haystack: string, needle: string): number {
  let count = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) count++;
  return count;
}

export async function tokensLine(): Promise<GateLine> {
  const dir = mkdtempSync(join(tmpdir(), 'meg-gate-tokens-'));
  const collected: Collected = { guardEvents: [], connectEvents: [], fromServer: [], toHost: [], results: [], output: [] };
  const vault = new EncryptedFileVault(join(dir, 'vault.json'), randomBytes(32));
  const connectLog = createConnectAuditLog(join(dir, 'logs', 'connect-audit.jsonl'));
  const ledger = new MemoryLedger();
  let provider: TestProvider | undefined;
  let example: RunningExample | undefined;
  try {
    await capturingOutput(collected.output, async () => {
      const config = {
        host: '127.0.0.1',
        vault,
        verifyMcpToken: (token: string) => Object.entries(USERS).find(([, u]) => u.token === token)?.[0] ?? null,
        verifyLogin: (username: string, password: string) => (USERS[username]?.password === password ? username : null),
        sessionSecret: randomBytes(32),
        allowInsecureRequests: true,
        audit: {
          write: (event: ConnectEvent) => {
            collected.connectEvents.push(event);
            connectLog.write(event);
          },
        },
      };
      // The provider needs the callback URL before the example knows its port: reserve one first.
      const probe = await startExample({ ...config, port: 0, provider: { issuer: 'http://127.0.0.1:1', clientId: 'x', scope: 'openid' } });
      const port = Number(new URL(probe.url).port);
      await probe.close();
      provider = await startTestProvider({
        clientId: CLIENT_ID,
        clientSecret: CLIENT_SECRET,
        redirectUris: [`http://127.0.0.1:${port}/oauth/callback`],
        accountId: 'provider-octocat',
        resourceScope: 'repo',
      });
      example = await startExample({
        ...config,
        port,
        provider: { name: PROVIDER, issuer: provider.issuer, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, scope: 'openid' },
      });
      for (const user of Object.keys(USERS)) await connectAs(user, example, collected, dir, ledger);
    });
  } finally {
    await example?.close();
    await provider?.close();
    await connectLog.close();
  }
  try {
    const tokens: string[] = [];
    for (const user of Object.keys(USERS)) {
      const secret = await vault.get(user, PROVIDER);
      if (secret === null) continue;
      tokens.push(secret.accessToken);
      if (secret.refreshToken !== undefined) tokens.push(secret.refreshToken);
    }
    const sources: Record<string, string> = {
      'audit log files': ['guard-audit.jsonl', 'connect-audit.jsonl'].map((f) => readFileSync(join(dir, 'logs', f), 'utf8')).join('\n'),
      events: JSON.stringify([collected.guardEvents, collected.connectEvents]),
      'ledger rows': JSON.stringify(collected.results.filter(Array.isArray)),
      'MCP messages to the client': JSON.stringify([
        collected.fromServer,
        collected.toHost,
        collected.results.filter((r) => !Array.isArray(r)),
      ]),
      'stdout/stderr and pages': collected.output.join('\n'),
    };
    // A token cut short or re-wrapped still leaks: its tail is counted too.
    const needles = tokens.flatMap((t) => [t, t.slice(-24)]);
    const found = Object.entries(sources).map(
      ([name, text]) => [name, needles.reduce((n, needle) => n + occurrences(text, needle), 0)] as const,
    );
    const total = found.reduce((n, [, count]) => n + count, 0);
    const sizes = Object.entries(sources)
      .map(([name, text]) => `${name} ${text.length} chars`)
      .join(', ');
    const expected = Object.keys(USERS).length * 2;
    return {
      name: 'third-party tokens outside the vault',
      measured: `${total}`,
      threshold: '= 0',
      pass: total === 0 && tokens.length === expected && collected.fromServer.length > 0 && collected.guardEvents.length > 0,
      notes: [
        `${Object.keys(USERS).length} users connected through the example server and a real oidc-provider; ${tokens.length} ` +
          `tokens read back from the vault (${expected} expected: access + refresh each)`,
        `searched: ${sizes}; ${collected.fromServer.length} MCP messages from the server, ${collected.toHost.length} delivered to the host`,
        ...found.filter(([, count]) => count > 0).map(([name, count]) => `found in ${name}: ${count}`),
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
