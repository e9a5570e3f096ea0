import { describe, expect, it } from 'vitest';
import { FlowBook, type FlowNote, type PresentedEvent } from '../../src/flow/book.js';
import { parsePolicy } from '../../src/policy/policy.js';

const SERVER = { key: null, name: 'srv', version: '1' };
const URL = 'https://accounts.google.com/o/oauth2/v2/auth?client_id=1';

function book(policy: unknown = {}) {
  let now = 1_000_000;
  let counter = 0;
  const notes: FlowNote[] = [];
  const b = new FlowBook<{ display: null; findings: [] }>({
    policy: parsePolicy(policy).base,
    deps: { clock: () => now, random: (n) => new Uint8Array(n).fill(++counter % 256) },
    store: null,
    sessionId: 'sess',
    onWriteError: (error) => {
      throw error;
    },
    onNote: (note) => notes.push(note),
  });
  b.restart();
  return { b, notes, advance: (ms: number) => (now += ms) };
}

const shown = { display: null, findings: [] as [] };
const presented = (elicitationId: string, extra: Partial<PresentedEvent<typeof shown>> = {}): PresentedEvent<typeof shown> => ({
  elicitationId,
  url: URL,
  message: 'Sign in',
  analysis: shown,
  server: SERVER,
  subject: null,
  ...extra,
});
const call = (id: number, name = 'connect') => ({ id, method: 'tools/call', params: { name, arguments: {} } });
const transitions = (notes: FlowNote[]) => notes.flatMap((n) => ('navigationId' in n ? [`${n.from}→${n.to}`] : []));

describe('FlowBook: host requests and nested lineages', () => {
  it('binds a URL elicitation to the one eliciting request in flight and refuses its repeat until it is answered', () => {
    const { b } = book();
    expect(b.hostRequest(call(1))).toEqual({ ruling: 'pass' });
    b.hostRequest({ id: 2, method: 'ping' });
    expect(b.presented('s1', presented('e1'))).toBe('nested');
    expect(b.hostRequest(call(3))).toMatchObject({ ruling: 'refuse', code: 'E_RETRY_WHILE_IN_FLIGHT' });
    expect(b.serverResponse(1, 'result', { jsonrpc: '2.0', id: 1, result: {} })).toEqual({ ruling: 'pass' });
    expect(b.hostRequest(call(4))).toEqual({ ruling: 'pass' });
  });

  it('accepts the nested original once, after consent, and remembers the accepted answer', async () => {
    const { b, notes } = book();
    b.hostRequest(call(1));
    b.presented('s1', presented('e1'));
    expect(b.answer('s1', 'result', 'accept')).toEqual({ ruling: 'url' });
    const answer = { jsonrpc: '2.0', id: 1, result: { content: [] } };
    expect(b.serverResponse(1, 'result', answer)).toEqual({ ruling: 'accept', until: null });
    expect(b.serverResponse(1, 'result', answer)).toEqual({ ruling: 'unmatched', repeat: true });
    expect(b.view('e1')?.state).toBe('ORIGINAL_RESPONSE_ACCEPTED');
    expect(b.counters).toEqual({ completionNoticesAdvancingUnknown: 0, originalOperationsAccepted: 1, maxAcceptancesPerLineage: 1 });
    expect(notes.filter((n) => 'receipt' in n && n.receipt.schema === 'businessReceipt.v1')).toHaveLength(1);
  });

  it('leaves an ambiguous elicitation unbound but refuses a repeat of any candidate in flight', () => {
    const { b } = book();
    b.hostRequest(call(1, 'a'));
    b.hostRequest({ id: 2, method: 'resources/read', params: { uri: 'x' } });
    expect(b.presented('s1', presented('e1'))).toBeNull();
    expect(b.hostRequest(call(3, 'a'))).toMatchObject({ ruling: 'refuse', code: 'E_RETRY_WHILE_IN_FLIGHT' });
    expect(b.hostRequest({ id: 4, method: 'resources/read', params: { uri: 'x' } })).toMatchObject({ ruling: 'refuse' });
    expect(b.hostRequest(call(5, 'b'))).toEqual({ ruling: 'pass' });
  });

  it('binds by the related task first, and treats the tasks/result answer as the final answer', () => {
    const { b } = book();
    b.hostRequest(call(1));
    expect(b.serverResponse(1, 'task', {}, 't1')).toEqual({ ruling: 'pass' });
    b.hostRequest(call(2, 'other'));
    expect(b.presented('s1', presented('e1', { relatedTaskId: 't1' }))).toBe('nested');
    b.answer('s1', 'result', 'accept');
    expect(b.hostRequest(call(3))).toMatchObject({ ruling: 'refuse' });
    b.taskStatus('t1', 'completed');
    b.hostRequest({ id: 4, method: 'tasks/result', params: { taskId: 't1' } });
    expect(b.serverResponse(4, 'result', { jsonrpc: '2.0', id: 4, result: {} })).toMatchObject({ ruling: 'accept' });
  });
});

describe('FlowBook: the -32042 lineage', () => {
  it('lets maxRetries retries through once the requirement is verified, accepts one answer, then refuses', () => {
    const { b } = book({ retry: { maxRetries: 1 } });
    b.hostRequest(call(1));
    expect(b.serverResponse(1, 'url-required', {})).toEqual({ ruling: 'url-required', original: call(1) });
    b.urlRequired(call(1), 1, [presented('r1')]);
    expect(b.view('r1')).toMatchObject({ state: 'USER_REVIEW', lineage: 'error-retry' });
    // The host draws its own UI: its retry is the user's manual retry.
    expect(b.hostRequest(call(2))).toEqual({ ruling: 'pass' });
    expect(b.hostRequest(call(3))).toMatchObject({ ruling: 'refuse', code: 'E_RETRY_EXHAUSTED' });
    expect(b.serverResponse(2, 'result', { jsonrpc: '2.0', id: 2, result: {} })).toMatchObject({ ruling: 'accept' });
    expect(b.hostRequest(call(4))).toMatchObject({ ruling: 'refuse', code: 'E_RETRY_EXHAUSTED' });
  });

  it('holds a retry while a requirement the host consented to is pending, and never retries after a decline', async () => {
    const { b } = book();
    b.hostRequest(call(1));
    b.serverResponse(1, 'url-required', {});
    b.urlRequired(call(1), 1, [presented('r1'), presented('r2')]);
    const ticket = await b.consent('r1', 'accept');
    await b.opened(ticket!, () => {});
    expect(b.hostRequest(call(2))).toMatchObject({ ruling: 'refuse', code: 'E_RETRY_NOT_ELIGIBLE' });
    await b.consent('r2', 'decline');
    expect(b.hostRequest(call(3))).toMatchObject({ ruling: 'refuse', code: 'E_RETRY_NOT_ELIGIBLE' });
  });

  it('judges a -32042 to tasks/result as a requirement of the task’s original', () => {
    const { b } = book();
    b.hostRequest(call(1));
    b.serverResponse(1, 'task', {}, 't1');
    b.hostRequest({ id: 2, method: 'tasks/result', params: { taskId: 't1' } });
    expect(b.serverResponse(2, 'url-required', {})).toEqual({ ruling: 'url-required', original: call(1) });
  });
});

describe('FlowBook: pending answers, per direction', () => {
  it('never lets a later server request replace or clear a pending elicitation', () => {
    const { b } = book();
    const pending = { mode: 'form' as const, requestedSchema: { type: 'object' }, elicitationId: null };
    expect(b.serverRequest({ id: 5, method: 'elicitation/create' }, pending)).toBe('recorded');
    expect(b.serverRequest({ id: 5, method: 'ping' }, null)).toBe('id-in-use');
    b.serverCancelled(5);
    // The other direction's table is another namespace.
    b.hostRequest({ id: 5, method: 'tools/list' });
    b.serverResponse(5, 'result', {});
    expect(b.answer(5, 'result', 'accept')).toEqual({ ruling: 'form', requestedSchema: { type: 'object' } });
    expect(b.answer(5, 'result', 'accept')).toEqual({ ruling: 'unmatched', repeat: true });
  });

  it('checks a task-augmented elicitation’s answer when it leaves as the result of tasks/result', () => {
    const { b } = book();
    b.serverRequest({ id: 7, method: 'elicitation/create' }, { mode: 'form', requestedSchema: { s: 1 }, elicitationId: null });
    expect(b.answer(7, 'task', undefined, 'ht')).toEqual({ ruling: 'pass' });
    b.serverRequest({ id: 8, method: 'tasks/result' }, null, 'ht');
    expect(b.answer(8, 'result', 'accept')).toEqual({ ruling: 'form', requestedSchema: { s: 1 } });
  });
});

describe('FlowBook: flows and completion notices', () => {
  it('delivers a notice once, after consent, for a known pending id of this generation', async () => {
    const { b, notes } = book();
    b.presented('s1', presented('e1'));
    expect(b.notice('e1')).toEqual({ deliver: false, reason: 'before-consent' });
    b.answer('s1', 'result', 'accept');
    expect(b.notice('e1')).toEqual({ deliver: true });
    expect(b.notice('e1')).toEqual({ deliver: false, reason: 'duplicate' });
    expect(b.notice('nobody')).toEqual({ deliver: false, reason: 'unknown' });
    expect(transitions(notes)).toEqual([
      'CREATED→USER_REVIEW',
      'USER_REVIEW→NAVIGATION_ACCEPTED',
      'NAVIGATION_ACCEPTED→OUT_OF_BAND_PENDING',
      'OUT_OF_BAND_PENDING→COMPLETION_NOTIFIED',
      'COMPLETION_NOTIFIED→REQUIREMENT_VERIFIED',
    ]);
    b.restart();
    b.presented('s2', presented('e2'));
    b.restart();
    expect(b.notice('e2')).toEqual({ deliver: false, reason: 'stale' });
  });

  it('keeps one table with one eviction order', () => {
    const { b } = book({ completion: { maxPending: 3 } });
    for (const id of ['a', 'b', 'a', 'c', 'd']) b.presented(`s-${id}-${Math.random()}`, presented(id));
    expect(b.view('b')).toBeNull();
    expect(b.pending().map((f) => f.elicitationId)).toEqual(['a', 'c', 'd']);
    expect(b.notice('b')).toEqual({ deliver: false, reason: 'unknown' });
  });

  it('expires a pending flow, lets the user recover it by hand, and refuses an illegal move', async () => {
    const { b, advance } = book({ completion: { ttlSeconds: 60 } });
    b.presented('s1', presented('e1'));
    const ticket = await b.consent('e1', 'accept');
    await b.opened(ticket!, () => {});
    advance(61_000);
    b.expired();
    expect(b.view('e1')?.state).toBe('EXPIRED');
    expect(b.notice('e1')).toEqual({ deliver: false, reason: 'expired' });
    expect(b.retry('e1').state).toBe('USER_RETRY');
    expect(b.confirm('e1').state).toBe('REQUIREMENT_VERIFIED');
    expect(() => b.retry('e1')).toThrow(expect.objectContaining({ code: 'E_ILLEGAL_TRANSITION' }));
    expect(() => b.cancel('nobody')).toThrow(expect.objectContaining({ code: 'E_UNKNOWN_NAVIGATION' }));
  });

  it('turns a late wire accept of a flow cancelled through the guard into the decision made', () => {
    const { b } = book();
    b.presented('s1', presented('e1'));
    b.cancel('e1');
    expect(b.answer('s1', 'result', 'accept')).toMatchObject({ ruling: 'override', action: 'cancel' });
    expect(b.notice('e1')).toEqual({ deliver: false, reason: 'finished' });
  });
});
