import { describe, expect, it } from 'vitest';
import type { GuardEvent } from '../../src/core/events.js';
import { createGuard } from '../../src/core/guard.js';
import { MemoryLedger } from '../../src/ledger/memory.js';
import { parsePolicy } from '../../src/policy/policy.js';
import { benignSchema, completion, formRequest, handshake, passwordSchema, urlRequest } from '../helpers/session.js';

const OAUTH_URL =
  'https://accounts.google.com/o/oauth2/v2/auth?client_id=123.apps.googleusercontent.com&response_type=code&scope=openid&' +
  'state=af0ifjsldkj&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256&' +
  'redirect_uri=http%3A%2F%2F127.0.0.1%3A8765%2Fcallback';

function errorData(decision: ReturnType<ReturnType<typeof createGuard>['inbound']>): Record<string, unknown> {
  expect(decision.action).toBe('reply');
  if (decision.action !== 'reply') throw new Error('not a reply');
  const message = decision.message as { error: { code: number; data: Record<string, unknown> } };
  expect(message.error.code).toBe(-32602);
  return message.error.data;
}

describe('negotiation', () => {
  it('treats elicitation: {} as form only and refuses URL mode with E_MODE_NOT_NEGOTIATED', () => {
    const guard = createGuard();
    handshake(guard, {});
    expect(guard.session().modes).toEqual({ form: true, url: false });
    expect(errorData(guard.inbound(urlRequest(7, OAUTH_URL, 'e1'))).code).toBe('E_MODE_NOT_NEGOTIATED');
    expect(guard.inbound(formRequest(8, benignSchema)).action).toBe('forward');
  });

  it('treats a request without mode as form mode', () => {
    const guard = createGuard();
    handshake(guard, { url: {} });
    const request = { jsonrpc: '2.0', id: 3, method: 'elicitation/create', params: { message: 'hi', requestedSchema: benignSchema } };
    expect(errorData(guard.inbound(request)).code).toBe('E_MODE_NOT_NEGOTIATED');
  });

  it('refuses any elicitation before initialization completed', () => {
    const guard = createGuard();
    guard.outbound({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: { elicitation: { form: {} } } },
    });
    expect(errorData(guard.inbound(formRequest(1, benignSchema))).code).toBe('E_MODE_NOT_NEGOTIATED');
    guard.inbound({
      jsonrpc: '2.0',
      id: 0,
      result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 's', version: '1' } },
    });
    expect(errorData(guard.inbound(formRequest(2, benignSchema))).code).toBe('E_MODE_NOT_NEGOTIATED');
    guard.outbound({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(guard.inbound(formRequest(3, benignSchema)).action).toBe('forward');
  });

  it('narrows the declared capabilities when the policy disables a mode, so the server never sees it', () => {
    const guard = createGuard({ policy: parsePolicy({ url: { enabled: false } }) });
    const decision = guard.outbound({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: { elicitation: { form: { applyDefaults: true }, url: {} }, roots: {} } },
    });
    expect(decision.action).toBe('forward');
    if (decision.action !== 'forward') return;
    expect((decision.message as unknown as { params: { capabilities: unknown } }).params.capabilities).toEqual({
      elicitation: { form: { applyDefaults: true } },
      roots: {},
    });
    expect(decision.events.map((e) => e.type)).toEqual(['capabilities.narrowed']);
  });

  it('removes the elicitation capability when no mode is left', () => {
    const guard = createGuard({ policy: { form: { enabled: false } } });
    const decision = guard.outbound({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: { elicitation: {} } },
    });
    if (decision.action !== 'forward') throw new Error('expected forward');
    expect((decision.message as unknown as { params: { capabilities: unknown } }).params.capabilities).toEqual({});
  });

  it('refuses a mode the policy disabled even though the host declared it', () => {
    const guard = createGuard({ policy: { url: { enabled: false } } });
    handshake(guard, { form: {}, url: {} });
    const data = errorData(guard.inbound(urlRequest(4, OAUTH_URL, 'e')));
    expect(data.code).toBe('E_MODE_NOT_NEGOTIATED');
  });

  it('reads the negotiated protocol version and the server identity', () => {
    const guard = createGuard({ server: 'my-server' });
    handshake(guard, { form: {} }, '2025-06-18');
    expect(guard.session()).toMatchObject({
      initialized: true,
      protocolVersion: '2025-06-18',
      server: { key: 'my-server', name: 'test-server', version: '2.3.4' },
    });
  });
});

describe('form mode', () => {
  it('answers a password form to the server with E_SENSITIVE_FIELD naming the field, and tells the host', () => {
    const events: GuardEvent[] = [];
    const guard = createGuard({ onEvent: (e) => events.push(e) });
    handshake(guard, { form: {} });
    const data = errorData(guard.inbound(formRequest(11, passwordSchema)));
    expect(data.code).toBe('E_SENSITIVE_FIELD');
    expect(data.fields).toEqual([{ name: 'password', class: 'credential' }]);
    const sensitive = events.find((e) => e.type === 'form.sensitive');
    expect(sensitive).toMatchObject({
      action: 'blocked',
      server: { name: 'test-server' },
      fields: [{ name: 'password', class: 'credential' }],
    });
    expect(guard.metrics().sensitiveFieldsBlocked).toBe(1);
  });

  it('never echoes a default value of a sensitive field', () => {
    const secret = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
    const guard = createGuard();
    handshake(guard, { form: {} });
    const decision = guard.inbound(formRequest(12, { type: 'object', properties: { github_token: { type: 'string', default: secret } } }));
    expect(JSON.stringify(decision)).not.toContain(secret);
    expect(errorData(decision).code).toBe('E_SENSITIVE_FIELD');
  });

  it('forwards and only logs sensitive fields in audit mode', () => {
    const guard = createGuard({ policy: { form: { onSensitive: 'audit' } } });
    handshake(guard, { form: {} });
    const decision = guard.inbound(formRequest(13, passwordSchema));
    expect(decision.action).toBe('forward');
    expect(decision.events.find((e) => e.type === 'form.sensitive')).toMatchObject({ action: 'audited' });
    expect(guard.metrics().sensitiveFieldsLetThrough).toBe(1);
  });

  it('blocks schemas outside the spec subset with a field-level reason', () => {
    const guard = createGuard();
    handshake(guard, { form: {} });
    const data = errorData(
      guard.inbound(
        formRequest(14, { type: 'object', properties: { address: { type: 'object', properties: { street: { type: 'string' } } } } }),
      ),
    );
    expect(data.code).toBe('E_SCHEMA_NOT_ALLOWED');
    expect(data.fields).toEqual([expect.objectContaining({ name: 'address' })]);
  });

  it('forwards a benign form with the audit in a namespaced _meta key', () => {
    const guard = createGuard();
    handshake(guard, { form: {} });
    const decision = guard.inbound(formRequest(15, benignSchema));
    if (decision.action !== 'forward') throw new Error('expected forward');
    const meta = (decision.message as unknown as { params: { _meta: Record<string, { verdict: string }> } }).params._meta;
    expect(meta['mcp-elicitation-guard/form-audit']?.verdict).toBe('allow');
  });

  it('lets a valid accepted answer through unchanged', () => {
    const guard = createGuard();
    handshake(guard, { form: {} });
    guard.inbound(formRequest(16, benignSchema));
    const answer = { jsonrpc: '2.0', id: 16, result: { action: 'accept', content: { name: 'demo', size: 3, public: true } } };
    const decision = guard.outbound(answer);
    expect(decision).toMatchObject({ action: 'forward', message: answer });
    if (decision.action === 'forward') expect(decision.message).toBe(answer);
  });

  it('sends cancel instead of an answer that carries a secret, and says why to the host', () => {
    const guard = createGuard();
    handshake(guard, { form: {} });
    guard.inbound(formRequest(17, benignSchema));
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';
    const decision = guard.outbound({ jsonrpc: '2.0', id: 17, result: { action: 'accept', content: { name: jwt } } });
    expect(decision).toMatchObject({ action: 'forward', message: { id: 17, result: { action: 'cancel' } } });
    expect(JSON.stringify(decision)).not.toContain(jwt);
    expect(decision.events.find((e) => e.type === 'content.withheld')).toMatchObject({ code: 'E_SECRET_IN_CONTENT', fields: ['name'] });
  });

  it('sends cancel instead of an answer that does not match the requested schema', () => {
    const guard = createGuard();
    handshake(guard, { form: {} });
    guard.inbound(formRequest(18, benignSchema));
    const decision = guard.outbound({ jsonrpc: '2.0', id: 18, result: { action: 'accept', content: { size: 99 } } });
    expect(decision).toMatchObject({ action: 'forward', message: { result: { action: 'cancel' } } });
    expect(decision.events[0]).toMatchObject({ type: 'content.withheld', code: 'E_CONTENT_INVALID' });
  });

  it('answers malformed params with -32602 E_INVALID_PARAMS', () => {
    const guard = createGuard();
    handshake(guard, { form: {}, url: {} });
    expect(errorData(guard.inbound({ jsonrpc: '2.0', id: 1, method: 'elicitation/create', params: 'x' })).code).toBe('E_INVALID_PARAMS');
    expect(
      errorData(guard.inbound({ jsonrpc: '2.0', id: 2, method: 'elicitation/create', params: { mode: 'form', message: 'm' } })).code,
    ).toBe('E_INVALID_PARAMS');
    expect(
      errorData(guard.inbound({ jsonrpc: '2.0', id: 3, method: 'elicitation/create', params: { mode: 'voice', message: 'm' } })).code,
    ).toBe('E_INVALID_PARAMS');
    expect(
      errorData(
        guard.inbound({ jsonrpc: '2.0', id: 4, method: 'elicitation/create', params: { mode: 'url', message: 'm', url: OAUTH_URL } }),
      ).code,
    ).toBe('E_INVALID_PARAMS');
  });
});

describe('URL mode', () => {
  it('answers a blocked URL with E_URL_BLOCKED and its finding codes, echoing no query value', () => {
    const events: GuardEvent[] = [];
    const guard = createGuard({ onEvent: (e) => events.push(e) });
    handshake(guard, { url: {} });
    const value = 'Zk8vQ2pL9xW4rT7yB1nM6cF3hJ5s';
    const data = errorData(guard.inbound(urlRequest(30, `https://example.com/cb?access_token=${value}`, 'e30')));
    expect(data.code).toBe('E_URL_BLOCKED');
    expect(Array.isArray(data.findings) && data.findings.length > 0).toBe(true);
    expect(JSON.stringify(data)).not.toContain(value);
    expect(JSON.stringify(events)).not.toContain(value);
    expect(events.find((e) => e.type === 'elicitation.refused')).toMatchObject({ code: 'E_URL_BLOCKED', mode: 'url' });
  });

  it('refuses a homograph of a protected domain and forwards a legitimate OAuth URL with its analysis', () => {
    const guard = createGuard();
    handshake(guard, { url: {} });
    expect(errorData(guard.inbound(urlRequest(31, 'https://аррӏе.com/signin', 'e31'))).code).toBe('E_URL_BLOCKED');
    const decision = guard.inbound(urlRequest(32, OAUTH_URL, 'e32'));
    if (decision.action !== 'forward') throw new Error('expected forward');
    const meta = (
      decision.message as unknown as { params: { _meta: Record<string, { verdict: string; display: { registrableDomain: string } }> } }
    ).params._meta;
    expect(meta['mcp-elicitation-guard/url-analysis']).toMatchObject({ verdict: 'allow', display: { registrableDomain: 'google.com' } });
  });

  it('declines new URL elicitations with a clear reason while issuing is stopped', () => {
    const guard = createGuard({ policy: { issuing: 'stopped' } });
    handshake(guard, { url: {} });
    const decision = guard.inbound(urlRequest(33, OAUTH_URL, 'e33'));
    expect(decision).toMatchObject({
      action: 'reply',
      message: { id: 33, result: { action: 'decline', _meta: { 'mcp-elicitation-guard/url-analysis': { code: 'E_ISSUING_STOPPED' } } } },
    });
  });

  it('the rollback switch stops and resumes issuing at run time; revoking nonces leaves accepted flows unopenable', async () => {
    const events: GuardEvent[] = [];
    const guard = createGuard({ onEvent: (e) => events.push(e) });
    handshake(guard, { url: {} });
    expect(guard.issuing()).toBe('open');
    guard.inbound(urlRequest(35, OAUTH_URL, 'before'));
    const ticket = await guard.recordConsent('before', 'accept');
    guard.setIssuing('stopped');
    expect(guard.issuing()).toBe('stopped');
    expect(guard.inbound(urlRequest(36, OAUTH_URL, 'during'))).toMatchObject({
      action: 'reply',
      message: { result: { action: 'decline', _meta: { 'mcp-elicitation-guard/url-analysis': { code: 'E_ISSUING_STOPPED' } } } },
    });
    expect(guard.revokeNonces()).toBe(1);
    expect(guard.revokeNonces()).toBe(0);
    await expect(guard.openUrl(ticket!, () => {})).rejects.toMatchObject({ code: 'E_ISSUING_STOPPED' });
    expect(guard.flow('before')?.state).toBe('NAVIGATION_ACCEPTED');
    guard.setIssuing('open');
    expect(guard.inbound(urlRequest(37, OAUTH_URL, 'after')).action).toBe('forward');
    const again = await guard.recordConsent('after', 'accept');
    await guard.openUrl(again!, () => {});
    expect(guard.flow('after')?.state).toBe('OUT_OF_BAND_PENDING');
    expect(() => guard.setIssuing('paused' as 'open')).toThrow(/issuing must be/);
    expect(
      events
        .filter((e) => e.type === 'issuing.changed' || e.type === 'nonces.revoked')
        .map((e) => ('issuing' in e ? e.issuing : e.revoked)),
    ).toEqual(['stopped', 1, 0, 'open']);
  });

  it('a guard started with issuing stopped opens again when switched to open', async () => {
    const guard = createGuard({ policy: { issuing: 'stopped' } });
    handshake(guard, { url: {} });
    guard.setIssuing('open');
    guard.inbound(urlRequest(38, OAUTH_URL, 'reopened'));
    const ticket = await guard.recordConsent('reopened', 'accept');
    expect(ticket).not.toBeNull();
  });

  it('removes blocked entries from a -32042 list and refuses it whole when none is left', () => {
    const guard = createGuard();
    handshake(guard, { url: {} });
    guard.outbound({ jsonrpc: '2.0', id: 34, method: 'tools/call', params: { name: 'pay', arguments: {} } });
    const entries = [
      { mode: 'url', elicitationId: 'bad', url: 'http://192.168.0.1/pay', message: 'Pay' },
      { mode: 'url', elicitationId: 'good', url: OAUTH_URL, message: 'Sign in' },
    ];
    const decision = guard.inbound({
      jsonrpc: '2.0',
      id: 34,
      error: { code: -32042, message: 'required', data: { elicitations: entries } },
    });
    expect(decision).toMatchObject({
      action: 'forward',
      message: { error: { code: -32042, data: { elicitations: [{ elicitationId: 'good' }] } } },
    });
    expect(decision.events.find((e) => e.type === 'url-required.filtered')).toMatchObject({ kept: 1, removed: 1 });
    guard.outbound({ jsonrpc: '2.0', id: 35, method: 'tools/call', params: { name: 'pay', arguments: {} } });
    const none = guard.inbound({
      jsonrpc: '2.0',
      id: 35,
      error: { code: -32042, message: 'required', data: { elicitations: [entries[0]] } },
    });
    expect(none).toMatchObject({ action: 'forward', message: { error: { code: -32603, data: { code: 'E_URL_BLOCKED' } } } });
  });
});

describe('completion hygiene', () => {
  function urlSession() {
    let now = 1_000_000;
    const guard = createGuard({ clock: () => now, policy: { completion: { ttlSeconds: 60 } } });
    handshake(guard, { url: {} });
    return { guard, advance: (ms: number) => (now += ms) };
  }

  it('delivers a completion for a known pending id once and drops duplicates', () => {
    const { guard } = urlSession();
    expect(guard.inbound(urlRequest(1, OAUTH_URL, 'known')).action).toBe('forward');
    guard.outbound({ jsonrpc: '2.0', id: 1, result: { action: 'accept' } });
    expect(guard.inbound(completion('known')).action).toBe('forward');
    const second = guard.inbound(completion('known'));
    expect(second.action).toBe('drop');
    expect(second.events[0]).toMatchObject({ type: 'completion.dropped', reason: 'duplicate' });
  });

  it('drops unknown, expired, declined and malformed completions and counts them', () => {
    const { guard, advance } = urlSession();
    expect(guard.inbound(completion('never-seen'))).toMatchObject({ action: 'drop', events: [{ reason: 'unknown' }] });
    guard.inbound(urlRequest(2, OAUTH_URL, 'slow'));
    advance(61_000);
    expect(guard.inbound(completion('slow'))).toMatchObject({ action: 'drop', events: [{ reason: 'expired' }] });
    guard.inbound(urlRequest(3, OAUTH_URL, 'declined'));
    guard.outbound({ jsonrpc: '2.0', id: 3, result: { action: 'decline' } });
    expect(guard.inbound(completion('declined'))).toMatchObject({ action: 'drop', events: [{ reason: 'finished' }] });
    expect(guard.inbound({ jsonrpc: '2.0', method: 'notifications/elicitation/complete', params: {} })).toMatchObject({
      action: 'drop',
      events: [{ reason: 'invalid' }],
    });
    expect(guard.metrics().completionsDropped).toBe(4);
  });

  it('drops a completion whose id belongs to an older session generation', () => {
    const { guard } = urlSession();
    guard.inbound(urlRequest(4, OAUTH_URL, 'old'));
    handshake(guard, { url: {} });
    expect(guard.session().generation).toBe(2);
    expect(guard.inbound(completion('old'))).toMatchObject({ action: 'drop', events: [{ reason: 'stale' }] });
  });

  it('accepts a reused id in a new session generation and delivers its notice', () => {
    const { guard } = urlSession();
    guard.inbound(urlRequest(4, OAUTH_URL, 'connect-1'));
    handshake(guard, { url: {} });
    guard.inbound(urlRequest(5, OAUTH_URL, 'connect-1'));
    guard.outbound({ jsonrpc: '2.0', id: 5, result: { action: 'accept' } });
    expect(guard.inbound(completion('connect-1')).action).toBe('forward');
  });

  it('keeps the id table bounded under a flood of distinct ids', () => {
    const guard = createGuard({ policy: { completion: { maxPending: 100 } } });
    handshake(guard, { url: {} });
    for (let i = 0; i < 5000; i++) guard.inbound(urlRequest(i + 10, OAUTH_URL, `flood-${i}`));
    guard.outbound({ jsonrpc: '2.0', id: 10, result: { action: 'accept' } });
    guard.outbound({ jsonrpc: '2.0', id: 5009, result: { action: 'accept' } });
    expect(guard.inbound(completion('flood-0')).action).toBe('drop');
    expect(guard.pendingFlows().length).toBeLessThanOrEqual(100);
    expect(guard.inbound(completion('flood-4999')).action).toBe('forward');
  });
});

describe('URL-mode lifecycle in the core', () => {
  it('drops a completion that arrives before the user accepted, and delivers it after', () => {
    const guard = createGuard();
    handshake(guard, { url: {} });
    guard.inbound(urlRequest(40, OAUTH_URL, 'early'));
    expect(guard.inbound(completion('early'))).toMatchObject({
      action: 'drop',
      events: [{ type: 'completion.dropped', reason: 'before-consent' }],
    });
    guard.outbound({ jsonrpc: '2.0', id: 40, result: { action: 'accept' } });
    expect(guard.flow('early')?.state).toBe('OUT_OF_BAND_PENDING');
    expect(guard.inbound(completion('early')).action).toBe('forward');
    expect(guard.flow('early')?.state).toBe('REQUIREMENT_VERIFIED');
  });

  it('refuses URL mode without a verified subject when the policy requires one, and records the subject otherwise', async () => {
    const strict = createGuard({ policy: { subject: { required: true } } });
    handshake(strict, { url: {} });
    expect(errorData(strict.inbound(urlRequest(41, OAUTH_URL, 's1'))).code).toBe('E_SUBJECT_REQUIRED');
    const ledger = new MemoryLedger();
    const withSubject = createGuard({ policy: { subject: { required: true } }, subject: 'user-123', ledger });
    handshake(withSubject, { url: {} });
    expect(withSubject.inbound(urlRequest(42, OAUTH_URL, 's2')).action).toBe('forward');
    await withSubject.flush();
    const [stored] = await ledger.listNavigations();
    expect(stored?.record).toMatchObject({
      subject: 'user-123',
      elicitationId: 's2',
      target: { scheme: 'https', host: 'accounts.google.com' },
    });
    expect(JSON.stringify(stored)).not.toContain('code_challenge');
  });

  it('binds a URL elicitation to the task its related-task _meta names, whatever else is in flight', () => {
    const events: GuardEvent[] = [];
    const guard = createGuard({ onEvent: (e) => events.push(e) });
    handshake(guard, { url: {} });
    const call = { jsonrpc: '2.0', id: 80, method: 'tools/call', params: { name: 'connect', arguments: { a: 1 }, task: { ttl: 60000 } } };
    guard.outbound(call);
    guard.inbound({
      jsonrpc: '2.0',
      id: 80,
      result: { task: { taskId: 't1', status: 'working', ttl: 60000, createdAt: '2026-11-29T00:00:00Z' } },
    });
    guard.outbound({ jsonrpc: '2.0', id: 81, method: 'tools/list' });
    guard.outbound({ jsonrpc: '2.0', id: 82, method: 'resources/list' });
    const related = { 'io.modelcontextprotocol/related-task': { taskId: 't1' } };
    guard.inbound({
      jsonrpc: '2.0',
      id: 83,
      method: 'elicitation/create',
      params: { mode: 'url', message: 'Connect', url: OAUTH_URL, elicitationId: 'task-e', _meta: related },
    });
    guard.inbound({
      jsonrpc: '2.0',
      id: 84,
      method: 'elicitation/create',
      params: {
        mode: 'url',
        message: 'Other',
        url: OAUTH_URL,
        elicitationId: 'ambiguous',
        _meta: { 'io.modelcontextprotocol/related-task': { taskId: 'unknown' } },
      },
    });
    expect(guard.flow('task-e')?.lineage).toBe('nested');
    expect(guard.flow('ambiguous')?.lineage).toBeNull();
    guard.outbound({ jsonrpc: '2.0', id: 83, result: { action: 'accept' } });
    expect(guard.outbound({ ...call, id: 85 })).toMatchObject({
      action: 'reply',
      message: { id: 85, error: { data: { code: 'E_RETRY_WHILE_IN_FLIGHT' } } },
    });
    guard.inbound({
      jsonrpc: '2.0',
      method: 'notifications/tasks/status',
      params: { taskId: 't1', status: 'completed', ttl: 60000, createdAt: '2026-11-29T00:00:00Z' },
    });
    guard.outbound({ jsonrpc: '2.0', id: 86, method: 'tasks/result', params: { taskId: 't1' } });
    const final = { jsonrpc: '2.0', id: 86, result: { content: [{ type: 'text', text: 'connected' }] } };
    expect(guard.inbound(final)).toMatchObject({ action: 'forward', message: final });
    expect(guard.flow('task-e')?.state).toBe('ORIGINAL_RESPONSE_ACCEPTED');
    expect(events.filter((e) => e.type === 'receipt.business')).toHaveLength(1);
  });

  it('withholds a second answer to an operation whose final answer was accepted', () => {
    const guard = createGuard();
    handshake(guard, { url: {} });
    guard.outbound({ jsonrpc: '2.0', id: 50, method: 'tools/call', params: { name: 'connect', arguments: {} } });
    guard.inbound(urlRequest(51, OAUTH_URL, 'n1'));
    guard.outbound({ jsonrpc: '2.0', id: 51, result: { action: 'accept' } });
    const answer = { jsonrpc: '2.0', id: 50, result: { content: [] } };
    expect(guard.inbound(answer)).toMatchObject({ action: 'forward', message: answer });
    expect(guard.inbound({ ...answer })).toMatchObject({
      action: 'drop',
      events: [{ type: 'response.withheld', code: 'E_ALREADY_ACCEPTED' }],
    });
  });

  it('opens nothing without a durable accept receipt and a matching ticket, and only once', async () => {
    const ledger = new MemoryLedger();
    const guard = createGuard({ ledger });
    handshake(guard, { url: {} });
    guard.inbound(urlRequest(60, OAUTH_URL, 'o1'));
    const opened: string[] = [];
    const ticket = await guard.recordConsent('o1', 'accept');
    expect(ticket).not.toBeNull();
    await expect(guard.openUrl({ ...ticket!, nonce: 'forged' }, (u) => void opened.push(u))).rejects.toMatchObject({
      code: 'E_ILLEGAL_TRANSITION',
    });
    await guard.openUrl(ticket!, async (u) => {
      const navigation = guard.flow('o1')!.navigationId;
      expect((await ledger.listConsentReceipts(navigation)).map((r) => r.decision)).toEqual(['accept']);
      opened.push(u);
    });
    await expect(guard.openUrl(ticket!, (u) => void opened.push(u))).rejects.toMatchObject({ code: 'E_ILLEGAL_TRANSITION' });
    expect(opened).toEqual([OAUTH_URL]);
    guard.inbound(urlRequest(61, OAUTH_URL, 'o2'));
    expect(await guard.recordConsent('o2', 'decline')).toBeNull();
  });

  it('ends a flow whose opener fails in CANCELLED, and one the server withdraws during review', async () => {
    const guard = createGuard();
    handshake(guard, { url: {} });
    guard.inbound(urlRequest(62, OAUTH_URL, 'broken'));
    const ticket = await guard.recordConsent('broken', 'accept');
    await expect(
      guard.openUrl(ticket!, () => {
        throw new Error('no browser');
      }),
    ).rejects.toThrow('no browser');
    expect(guard.flow('broken')?.state).toBe('CANCELLED');
    guard.inbound(urlRequest(63, OAUTH_URL, 'withdrawn'));
    guard.inbound({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 63, reason: 'timeout' } });
    expect(guard.flow('withdrawn')?.state).toBe('CANCELLED');
    expect(guard.pendingFlows()).toEqual([]);
  });

  it('refuses to hand out a ticket when the consent receipt could not be written', async () => {
    const ledger = new MemoryLedger();
    ledger.putConsentReceipt = async () => {
      throw new Error('disk full');
    };
    const guard = createGuard({ ledger });
    handshake(guard, { url: {} });
    guard.inbound(urlRequest(64, OAUTH_URL, 'lost'));
    await expect(guard.recordConsent('lost', 'accept')).rejects.toMatchObject({ code: 'E_LEDGER_UNAVAILABLE' });
  });

  it('stops listing a standalone flow once the user confirmed it', async () => {
    const guard = createGuard();
    handshake(guard, { url: {} });
    guard.inbound(urlRequest(65, OAUTH_URL, 'alone'));
    const ticket = await guard.recordConsent('alone', 'accept');
    await guard.openUrl(ticket!, () => {});
    expect(guard.pendingFlows().map((f) => f.state)).toEqual(['OUT_OF_BAND_PENDING']);
    expect(guard.confirmFlow('alone').state).toBe('REQUIREMENT_VERIFIED');
    expect(guard.pendingFlows()).toEqual([]);
  });

  it('revokes pending navigations in rollback mode and keeps the flows', async () => {
    const guard = createGuard({ policy: { issuing: 'stopped' } });
    handshake(guard, { url: {} });
    guard.outbound({ jsonrpc: '2.0', id: 70, method: 'tools/call', params: { name: 'pay' } });
    const decision = guard.inbound({
      jsonrpc: '2.0',
      id: 70,
      error: {
        code: -32042,
        message: 'required',
        data: { elicitations: [{ mode: 'url', elicitationId: 'r1', url: OAUTH_URL, message: 'm' }] },
      },
    });
    expect(decision).toMatchObject({ action: 'forward', message: { error: { code: -32603, data: { code: 'E_ISSUING_STOPPED' } } } });
  });
});

describe('-32042 URL elicitation required', () => {
  const required = (id: number, elicitations: unknown[]) => ({
    jsonrpc: '2.0',
    id,
    error: { code: -32042, message: 'URL elicitation required', data: { elicitations } },
  });

  it('gives a host without URL mode a plain error, not the elicitation list', () => {
    const guard = createGuard();
    handshake(guard, { form: {} });
    guard.outbound({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'pay', arguments: {} } });
    const decision = guard.inbound(required(5, [{ mode: 'url', elicitationId: 'x', url: OAUTH_URL, message: 'm' }]));
    expect(decision).toMatchObject({
      action: 'forward',
      message: { id: 5, error: { code: -32603, data: { code: 'E_MODE_NOT_NEGOTIATED' } } },
    });
    expect(JSON.stringify(decision)).not.toContain('elicitations');
  });

  it('registers the listed ids so their completion is delivered, and removes malformed entries', () => {
    const guard = createGuard();
    handshake(guard, { url: {} });
    guard.outbound({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'pay', arguments: {} } });
    const decision = guard.inbound(
      required(6, [
        { mode: 'url', elicitationId: 'pay-1', url: OAUTH_URL, message: 'Pay' },
        { mode: 'form', message: 'bad' },
      ]),
    );
    if (decision.action !== 'forward') throw new Error('expected forward');
    const error = (decision.message as { error: { code: number; data: { elicitations: { elicitationId: string }[] } } }).error;
    expect(error.code).toBe(-32042);
    expect(error.data.elicitations.map((e) => e.elicitationId)).toEqual(['pay-1']);
    expect(guard.inbound(completion('pay-1')).action).toBe('forward');
  });
});

describe('staying out of the way', () => {
  it('passes other messages through as the same object with no events', () => {
    const guard = createGuard();
    handshake(guard, { form: {} });
    const call = { jsonrpc: '2.0', id: 20, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } };
    const result = { jsonrpc: '2.0', id: 20, result: { content: [{ type: 'text', text: 'hi' }] } };
    const log = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } };
    for (const [direction, message] of [
      ['outbound', call],
      ['inbound', result],
      ['inbound', log],
    ] as const) {
      const decision = direction === 'outbound' ? guard.outbound(message) : guard.inbound(message);
      expect(decision.action).toBe('forward');
      if (decision.action === 'forward') expect(decision.message).toBe(message);
      expect(decision.events).toHaveLength(0);
    }
  });

  it('fails closed when judging an elicitation throws, and never lets an observer change a decision', () => {
    const guard = createGuard({
      onEvent: () => {
        throw new Error('observer bug');
      },
    });
    handshake(guard, { form: {} });
    const hostile = formRequest(21, benignSchema);
    Object.defineProperty(hostile.params as Record<string, unknown>, 'requestedSchema', {
      get: () => {
        throw new Error('boom');
      },
      enumerable: true,
    });
    const decision = guard.inbound(hostile);
    expect(decision).toMatchObject({ action: 'reply', message: { id: 21, error: { code: -32603, data: { code: 'E_GUARD_INTERNAL' } } } });
    expect(guard.metrics().internalErrors).toBe(1);
  });
});

describe('what fuzzing found', () => {
  it('drops an elicitation/create without an id and a -32042 that answers nothing in flight', () => {
    const guard = createGuard();
    handshake(guard, { form: {}, url: {} });
    expect(guard.inbound({ jsonrpc: '2.0', method: 'elicitation/create', params: null }).action).toBe('drop');
    const stray = {
      jsonrpc: '2.0',
      id: 404,
      error: {
        code: -32042,
        message: 'required',
        data: { elicitations: [{ mode: 'url', elicitationId: 'x', url: 'https://evil.example/', message: 'm' }] },
      },
    };
    expect(guard.inbound(stray).action).toBe('drop');
  });

  it('turns a late wire accept into the decision already recorded through the guard', async () => {
    const guard = createGuard();
    handshake(guard, { url: {} });
    guard.inbound(urlRequest('s1', OAUTH_URL, 'e1'));
    guard.cancelFlow('e1');
    const decision = guard.outbound({ jsonrpc: '2.0', id: 's1', result: { action: 'accept' } });
    expect(decision).toMatchObject({ action: 'forward', message: { id: 's1', result: { action: 'cancel' } } });
    expect(guard.metrics().internalErrors).toBe(0);
    expect(guard.inbound(completion('e1')).action).toBe('drop');
    guard.inbound(urlRequest('s2', OAUTH_URL, 'e2'));
    await guard.recordConsent('e2', 'decline');
    expect(guard.outbound({ jsonrpc: '2.0', id: 's2', result: { action: 'accept' } })).toMatchObject({
      message: { result: { action: 'decline' } },
    });
    expect(guard.inbound(completion('e2')).action).toBe('drop');
  });
});
