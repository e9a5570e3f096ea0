import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitationCompleteNotificationSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { guardTransport } from '../../src/adapters/sdk/transport.js';
import type { GuardEvent } from '../../src/core/events.js';
import { createGuard } from '../../src/core/guard.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const events: GuardEvent[] = [];
const onElicit = vi.fn(async (request: { params: Record<string, unknown> }) =>
  request.params.mode === 'url' ? { action: 'accept' as const } : { action: 'accept' as const, content: { project: 'demo', replicas: 2 } },
);
const onComplete = vi.fn(async (_notification: unknown) => {});
let client: Client;

async function call(name: string, args: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as { type: string; text: string }[];
  return JSON.parse(content[0]!.text) as Record<string, unknown>;
}

beforeAll(async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', 'fixtures/servers/elicitation-server.ts'],
    cwd: root,
    stderr: 'pipe',
  });
  client = new Client({ name: 'e2e-host', version: '1.0.0' }, { capabilities: { elicitation: { form: {}, url: {} } } });
  client.setRequestHandler(ElicitRequestSchema, onElicit);
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, onComplete);
  await client.connect(guardTransport(transport, createGuard({ server: 'fixture', onEvent: (e) => events.push(e) })));
}, 30_000);

afterAll(async () => {
  await client?.close();
});

describe('the guard in front of a real server process over stdio', () => {
  it('refuses a password form; the server sees -32602 E_SENSITIVE_FIELD and the host handler is never called', async () => {
    const before = onElicit.mock.calls.length;
    expect(await call('ask-password')).toMatchObject({
      error: { code: -32602, data: { code: 'E_SENSITIVE_FIELD', fields: [{ name: 'password', class: 'credential' }] } },
    });
    expect(await call('ask-api-key-de')).toMatchObject({ error: { code: -32602, data: { code: 'E_SENSITIVE_FIELD' } } });
    expect(onElicit.mock.calls.length).toBe(before);
    expect(
      events.filter((e) => e.type === 'form.sensitive').every((e) => e.server.name === 'elicitation-fixture' && e.server.key === 'fixture'),
    ).toBe(true);
  });

  it('delivers a benign form and returns the checked answer', async () => {
    expect(await call('ask-benign')).toEqual({ result: { action: 'accept', content: { project: 'demo', replicas: 2 } } });
  });

  it('refuses a homograph URL and delivers a legitimate OAuth URL', async () => {
    expect(await call('open-homograph')).toMatchObject({ error: { code: -32602, data: { code: 'E_URL_BLOCKED' } } });
    expect(await call('open-oauth')).toEqual({ result: { action: 'accept' } });
  });

  it('delivers the completion of a known id once and drops unknown and repeated ones', async () => {
    await call('complete', { ids: ['nobody-asked', 'oauth-1', 'oauth-1', 'phish-1'] });
    await vi.waitFor(() => expect(onComplete).toHaveBeenCalledTimes(1));
    expect(onComplete.mock.calls[0]?.[0]).toMatchObject({ params: { elicitationId: 'oauth-1' } });
    expect(events.filter((e) => e.type === 'completion.dropped').map((e) => (e.type === 'completion.dropped' ? e.reason : null))).toEqual([
      'unknown',
      'duplicate',
      'unknown',
    ]);
  });
});
