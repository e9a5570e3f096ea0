import { McpError, UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GuardCode, GuardError } from '../../src/protocol/errors.js';
import {
  createCompletionRegistry,
  revalidateFormContent,
  urlElicitationRequired,
  type UrlElicitationEntry,
} from '../../src/server/completion.js';
import { openSession, settle, type SdkSession } from './sdk-session.js';
import { ServerCode } from '../../src/server/errors.js';

const sessions: SdkSession[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
});

function manualClock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

function codeOf(work: () => unknown): string {
  try {
    work();
  } catch (error) {
    if (GuardError.is(error)) return error.code;
    throw error;
  }
  throw new Error('expected a GuardError');
}

describe('createCompletionRegistry with real SDK sessions', () => {
  it('sends the completion only to the session that started the elicitation', async () => {
    const alice = await openSession();
    const bob = await openSession();
    sessions.push(alice, bob);
    const registry = createCompletionRegistry();
    registry.register({
      elicitationId: 'el-a',
      sessionId: 's-alice',
      subject: 'alice',
      notify: alice.server.createElicitationCompletionNotifier('el-a'),
    });
    registry.register({
      elicitationId: 'el-b',
      sessionId: 's-bob',
      subject: 'bob',
      notify: bob.server.createElicitationCompletionNotifier('el-b'),
    });

    expect(await registry.completeUrlElicitation('el-a')).toBe(true);
    await settle();
    expect(alice.completions).toEqual(['el-a']);
    expect(bob.completions).toEqual([]);
    expect(registry.lookup('el-b')).toMatchObject({ sessionId: 's-bob', subject: 'bob' });
  });

  it('sends nothing for unknown or already completed ids', async () => {
    const alice = await openSession();
    sessions.push(alice);
    const registry = createCompletionRegistry();
    registry.register({
      elicitationId: 'el-a',
      sessionId: 's-alice',
      subject: 'alice',
      notify: alice.server.createElicitationCompletionNotifier('el-a'),
    });
    expect(await registry.completeUrlElicitation('el-unknown')).toBe(false);
    expect(await registry.completeUrlElicitation('el-a')).toBe(true);
    expect(await registry.completeUrlElicitation('el-a')).toBe(false);
    await settle();
    expect(alice.completions).toEqual(['el-a']);
  });
});

describe('createCompletionRegistry', () => {
  it('sends once even when two completions race', async () => {
    const notify = vi.fn(async () => undefined);
    const registry = createCompletionRegistry();
    registry.register({ elicitationId: 'el-1', sessionId: 's1', subject: 'alice', notify });
    const results = await Promise.all([registry.completeUrlElicitation('el-1'), registry.completeUrlElicitation('el-1')]);
    expect(results.sort()).toEqual([false, true]);
    expect(notify).toHaveBeenCalledTimes(1);
  });

  it('does not complete for a different verified subject, and keeps the elicitation open for its owner', async () => {
    const notify = vi.fn(async () => undefined);
    const registry = createCompletionRegistry();
    registry.register({ elicitationId: 'el-1', sessionId: 's1', subject: 'attacker', notify });
    expect(await registry.completeUrlElicitation('el-1', { subject: 'victim' })).toBe(false);
    expect(notify).not.toHaveBeenCalled();
    expect(registry.lookup('el-1')?.subject).toBe('attacker');
    expect(await registry.completeUrlElicitation('el-1', { subject: 'attacker' })).toBe(true);
    expect(notify).toHaveBeenCalledTimes(1);
  });

  it('expires elicitations after the TTL', async () => {
    const clock = manualClock();
    const notify = vi.fn(async () => undefined);
    const registry = createCompletionRegistry({ clock: clock.now, ttlMs: 1_000 });
    registry.register({ elicitationId: 'el-1', sessionId: 's1', subject: 'alice', notify });
    clock.advance(999);
    expect(registry.lookup('el-1')).not.toBeNull();
    clock.advance(1);
    expect(registry.lookup('el-1')).toBeNull();
    expect(await registry.completeUrlElicitation('el-1')).toBe(false);
    expect(notify).not.toHaveBeenCalled();
  });

  it('refuses to reopen an id that is open or was just completed', async () => {
    const registry = createCompletionRegistry();
    const entry = { elicitationId: 'el-1', sessionId: 's1', subject: 'alice', notify: async () => undefined };
    registry.register(entry);
    expect(codeOf(() => registry.register(entry))).toBe(ServerCode.duplicateElicitation);
    await registry.completeUrlElicitation('el-1');
    expect(codeOf(() => registry.register(entry))).toBe(ServerCode.duplicateElicitation);
  });

  it('stays within its cap by dropping the oldest open elicitation', () => {
    const registry = createCompletionRegistry({ maxOpen: 3 });
    for (let i = 0; i < 5; i++)
      registry.register({ elicitationId: `el-${i}`, sessionId: 's1', subject: 'alice', notify: async () => undefined });
    expect(registry.size).toBe(3);
    expect(registry.lookup('el-0')).toBeNull();
    expect(registry.lookup('el-4')).not.toBeNull();
  });

  it('forgets a closed session without notifying it', async () => {
    const notify = vi.fn(async () => undefined);
    const registry = createCompletionRegistry();
    registry.register({ elicitationId: 'el-1', sessionId: 's1', subject: 'alice', notify });
    registry.register({ elicitationId: 'el-2', sessionId: 's1', subject: 'alice', notify });
    registry.register({ elicitationId: 'el-3', sessionId: 's2', subject: 'alice', notify });
    expect(registry.forgetSession('s1')).toBe(2);
    expect(registry.forget('el-3')).toBe(true);
    expect(registry.forget('el-3')).toBe(false);
    expect(await registry.completeUrlElicitation('el-1')).toBe(false);
    expect(notify).not.toHaveBeenCalled();
  });

  it('needs a verified subject, a session and a notifier', () => {
    const registry = createCompletionRegistry();
    expect(codeOf(() => registry.register({ elicitationId: 'el-1', sessionId: 's1', subject: '', notify: async () => undefined }))).toBe(
      GuardCode.input,
    );
    expect(codeOf(() => registry.register({ elicitationId: 'el-1', sessionId: '', subject: 'alice', notify: async () => undefined }))).toBe(
      GuardCode.input,
    );
    expect(codeOf(() => registry.register({ elicitationId: 'el-1', sessionId: 's1', subject: 'alice', notify: undefined as never }))).toBe(
      GuardCode.input,
    );
  });

  it('spends the id and surfaces the error when the notifier fails', async () => {
    const registry = createCompletionRegistry();
    registry.register({
      elicitationId: 'el-1',
      sessionId: 's1',
      subject: 'alice',
      notify: async () => Promise.reject(new Error('transport closed')),
    });
    await expect(registry.completeUrlElicitation('el-1')).rejects.toThrow('transport closed');
    expect(await registry.completeUrlElicitation('el-1')).toBe(false);
  });
});

describe('urlElicitationRequired', () => {
  const entry: UrlElicitationEntry = {
    elicitationId: 'el-1',
    url: 'https://mcp.example.com/connect?elicitationId=el-1',
    message: 'Connect your GitHub account',
  };

  it('builds the SDK -32042 error with url-mode entries', () => {
    const error = urlElicitationRequired([entry]);
    expect(error).toBeInstanceOf(UrlElicitationRequiredError);
    expect(error.code).toBe(-32042);
    expect(error.elicitations).toEqual([{ mode: 'url', ...entry }]);
    // What a client rebuilds from the wire is the same typed error.
    const rebuilt = McpError.fromError(error.code, 'URL elicitation(s) required', error.data);
    expect(rebuilt).toBeInstanceOf(UrlElicitationRequiredError);
    expect(urlElicitationRequired([entry], { message: 'Connect first' }).message).toContain('Connect first');
  });

  it.each([
    ['an empty list', []],
    ['a form-mode entry', [{ ...entry, mode: 'form' }]],
    ['an entry without an id', [{ ...entry, elicitationId: '' }]],
    ['an entry without a message', [{ ...entry, message: '  ' }]],
    ['an http URL', [{ ...entry, url: 'http://mcp.example.com/connect' }]],
    ['a relative URL', [{ ...entry, url: '/connect' }]],
    ['a URL with credentials', [{ ...entry, url: 'https://user:pw@mcp.example.com/connect' }]],
    [
      'a pre-authenticated URL',
      [{ ...entry, url: 'https://mcp.example.com/connect?token=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ0ZXN0LXVzZXIifQ.c2lnbmF0dXJlLWZha2U' }],
    ],
    [
      'a secret in the fragment',
      [{ ...entry, url: 'https://mcp.example.com/connect#access_token=gho_FAKEvaultTESTaccessTOKEN0123456789ab' }],
    ],
    ['a repeated id', [entry, { ...entry, url: 'https://mcp.example.com/other' }]],
  ])('rejects %s', (_name, list) => {
    expect(codeOf(() => urlElicitationRequired(list as UrlElicitationEntry[]))).toBe(ServerCode.urlElicitationInvalid);
  });

  it('never puts the URL or its query values in the error message', () => {
    const token = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ0ZXN0LXVzZXIifQ.c2lnbmF0dXJlLWZha2U';
    try {
      urlElicitationRequired([{ ...entry, url: `https://mcp.example.com/connect?token=${token}` }]);
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).not.toContain(token);
      expect((error as Error).message).not.toContain('mcp.example.com');
    }
  });

  it('allows http only for loopback, and only when asked', () => {
    const local = { ...entry, url: 'http://localhost:3000/connect?elicitationId=el-1' };
    expect(codeOf(() => urlElicitationRequired([local]))).toBe(ServerCode.urlElicitationInvalid);
    expect(urlElicitationRequired([local], { allowHttpLoopback: true }).elicitations[0]?.url).toBe(local.url);
    expect(codeOf(() => urlElicitationRequired([{ ...entry, url: 'http://mcp.example.com/connect' }], { allowHttpLoopback: true }))).toBe(
      ServerCode.urlElicitationInvalid,
    );
  });
});

describe('revalidateFormContent', () => {
  const schema = {
    type: 'object',
    properties: { name: { type: 'string', maxLength: 20 }, seats: { type: 'integer', minimum: 1, maximum: 5 } },
    required: ['name'],
  };

  it('accepts content that matches the requested schema', () => {
    expect(revalidateFormContent({ name: 'Team A', seats: 3 }, schema)).toEqual({ ok: true, findings: [] });
  });

  it('names the offending fields, never their values', () => {
    const key = 'sk-proj-FAKEformTESTkey0123456789abcdef';
    const check = revalidateFormContent({ seats: 9, extra: 'x', nickname: key }, schema);
    expect(check.ok).toBe(false);
    const fields = check.findings.map((f) => f.field).sort();
    expect(fields).toEqual(expect.arrayContaining(['extra', 'name', 'nickname', 'seats']));
    expect(check.findings.some((f) => f.code === GuardCode.secretInContent && f.field === 'nickname')).toBe(true);
    for (const f of check.findings) expect(f.message).not.toContain(key);
  });

  it('does not trust a non-object answer', () => {
    expect(revalidateFormContent('name=Team', schema).ok).toBe(false);
  });
});
