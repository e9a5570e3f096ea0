import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { GuardEvent } from '../../src/core/events.js';
import { createGuard } from '../../src/core/guard.js';
import { RollbackFile, fileRollback, followRollback } from '../../src/ui/rollback.js';
import { benignSchema, handshake, urlRequest } from '../helpers/session.js';
import { tempDir } from '../ledger/support.js';

const OAUTH_URL = 'https://accounts.google.com/o/oauth2/v2/auth?client_id=1&state=2';

describe('the rollback switch file', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => (tmp = tempDir('mcp-eg-rollback-')));
  afterEach(() => tmp.remove());

  it('reads as open when missing, and writes atomically, readable by its user only', () => {
    let now = 1_000;
    const file = new RollbackFile(tmp.dir, () => now);
    expect(file.read()).toEqual({ issuing: 'open', revokedAt: null, updatedAt: null });
    expect(file.write({ issuing: 'stopped' })).toEqual({ issuing: 'stopped', revokedAt: null, updatedAt: 1_000 });
    expect(statSync(file.path).mode & 0o777).toBe(0o600);
    expect(file.write({ revoke: true })).toEqual({ issuing: 'stopped', revokedAt: 1_000, updatedAt: 1_000 });
    // Two revocations in one millisecond are still two.
    expect(file.write({ revoke: true }).revokedAt).toBe(1_001);
    now = 5_000;
    expect(file.write({ issuing: 'open' })).toEqual({ issuing: 'open', revokedAt: 1_001, updatedAt: 5_000 });
    expect(JSON.parse(readFileSync(file.path, 'utf8'))).toEqual(file.read());
  });

  it('refuses a file that is not a rollback file with E_INPUT naming it', () => {
    const file = new RollbackFile(tmp.dir);
    writeFileSync(file.path, 'not json');
    expect(() => file.read()).toThrow(expect.objectContaining({ code: 'E_INPUT', message: expect.stringContaining(file.path) }));
    writeFileSync(file.path, JSON.stringify({ issuing: 'paused', revokedAt: null, updatedAt: null }));
    expect(() => file.read()).toThrow(/not a rollback file/);
  });

  it('a following guard starts stopped after a rollback, then takes every change and revocation', { timeout: 30_000 }, async () => {
    const file = new RollbackFile(tmp.dir);
    file.write({ issuing: 'stopped' });
    const events: GuardEvent[] = [];
    const guard = createGuard({ onEvent: (e) => events.push(e) });
    handshake(guard, { url: {} });
    const logs: string[] = [];
    const stop = followRollback(file, guard, (l) => logs.push(l), 20);
    try {
      expect(guard.issuing()).toBe('stopped');
      file.write({ issuing: 'open' });
      await vi.waitFor(() => expect(guard.issuing()).toBe('open'), { timeout: 5_000, interval: 10 });
      guard.inbound(urlRequest(1, OAUTH_URL, 'el-1'));
      const ticket = await guard.recordConsent('el-1', 'accept');
      file.write({ revoke: true });
      await vi.waitFor(() => expect(events.some((e) => e.type === 'nonces.revoked' && e.revoked === 1)).toBe(true), {
        timeout: 5_000,
        interval: 10,
      });
      await expect(guard.openUrl(ticket!, () => {})).rejects.toMatchObject({ code: 'E_ISSUING_STOPPED' });
      // A broken file changes nothing and is reported once.
      writeFileSync(file.path, '{');
      await vi.waitFor(() => expect(logs).toHaveLength(1), { timeout: 5_000, interval: 10 });
      expect(logs[0]).toMatch(/is not JSON; the rollback switch is left as it was/);
      expect(guard.issuing()).toBe('open');
      // Mended by hand, it is read again and applied.
      writeFileSync(file.path, JSON.stringify({ issuing: 'stopped', revokedAt: null, updatedAt: null }));
      await vi.waitFor(() => expect(guard.issuing()).toBe('stopped'), { timeout: 5_000, interval: 10 });
      expect(logs).toHaveLength(1);
    } finally {
      stop();
    }
  });

  it('a stopped file always stops the guard, also when the follower missed the page opening it in between', async () => {
    const file = new RollbackFile(tmp.dir);
    file.write({ issuing: 'stopped' });
    const guard = createGuard();
    handshake(guard, { url: {} });
    const stop = followRollback(file, guard, () => {}, 20);
    try {
      expect(guard.issuing()).toBe('stopped');
      // The page beside this proxy opens (file and guard at once), and another process stops it
      // again before the follower's next look: the follower sees "stopped" twice in a row.
      fileRollback(file, guard).setIssuing('open');
      expect(guard.issuing()).toBe('open');
      new RollbackFile(tmp.dir).write({ issuing: 'stopped' });
      await vi.waitFor(() => expect(guard.issuing()).toBe('stopped'), { timeout: 5_000, interval: 10 });
    } finally {
      stop();
    }
  });

  describe('a hostile server after another process stops the switch', () => {
    const MODERN_META = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {}, url: {} } },
    };
    const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 't', arguments: {}, _meta: MODERN_META } });
    const inputRequired = (id: number, inputRequests: Record<string, unknown>) => ({
      jsonrpc: '2.0',
      id,
      result: { resultType: 'input_required', requestState: 's1', inputRequests },
    });
    const urlInput = { method: 'elicitation/create', params: { mode: 'url', message: 'Sign in', url: OAUTH_URL } };
    const formInput = { method: 'elicitation/create', params: { mode: 'form', message: 'Name it', requestedSchema: benignSchema } };

    /** A guard following the switch, opened by the page beside it, then stopped by another process before the follower looks again. */
    async function stoppedBehindThePage(era: '2025-11-25' | '2026-07-28') {
      const file = new RollbackFile(tmp.dir);
      file.write({ issuing: 'stopped' });
      const guard = createGuard();
      if (era === '2025-11-25') handshake(guard, { form: {}, url: {} });
      const stop = followRollback(file, guard, () => {}, 20);
      fileRollback(file, guard).setIssuing('open');
      new RollbackFile(tmp.dir).write({ issuing: 'stopped' });
      await vi.waitFor(() => expect(guard.issuing()).toBe('stopped'), { timeout: 5_000, interval: 10 });
      return { guard, stop };
    }

    it('2025-11-25: every URL elicitation is declined to the server, re-sent ids and ids the host also uses included', async () => {
      const { guard, stop } = await stoppedBehindThePage('2025-11-25');
      try {
        // The host's own request 7 is in flight: the server reuses its id for an elicitation, then
        // re-sends the same elicitation under the same id and under a fresh one.
        guard.outbound({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 't', arguments: {} } });
        for (const id of [7, 7, 8, 'x-8']) {
          const decision = guard.inbound(urlRequest(id, OAUTH_URL, 'el-stopped'));
          expect(decision).toMatchObject({
            action: 'reply',
            message: { id, result: { action: 'decline', _meta: { 'mcp-elicitation-guard/url-analysis': { code: 'E_ISSUING_STOPPED' } } } },
          });
        }
        // A form elicitation is not a URL flow: it still reaches the host.
        expect(guard.inbound({ jsonrpc: '2.0', id: 9, method: 'elicitation/create', params: formInput.params }).action).toBe('forward');
      } finally {
        stop();
      }
    });

    it('2026-07-28: a URL input request is refused in every input_required result, the same payload on a response to another request too', async () => {
      const { guard, stop } = await stoppedBehindThePage('2026-07-28');
      try {
        guard.outbound(call(1));
        guard.outbound(call(2));
        for (const id of [1, 2]) {
          const decision = guard.inbound(inputRequired(id, { sign: urlInput, name: formInput })) as unknown as {
            action: string;
            message: { result: { inputRequests: Record<string, unknown>; _meta: Record<string, unknown> } };
          };
          expect(decision.action).toBe('forward');
          expect(Object.keys(decision.message.result.inputRequests)).toEqual(['name']);
          expect(decision.message.result._meta['mcp-elicitation-guard/refused-inputs']).toEqual([
            expect.objectContaining({ key: 'sign', code: 'E_ISSUING_STOPPED' }),
          ]);
        }
      } finally {
        stop();
      }
    });
  });

  it('fileRollback writes the file and switches the guard of this process at once', () => {
    const file = new RollbackFile(tmp.dir);
    const guard = createGuard();
    const control = fileRollback(file, guard);
    expect(control.scope).toContain(file.path);
    expect(control.setIssuing('stopped').issuing).toBe('stopped');
    expect(guard.issuing()).toBe('stopped');
    expect(file.read().issuing).toBe('stopped');
    expect(control.revoke()).toMatchObject({ revokedHere: 0, state: { revokedAt: expect.any(Number) } });
    expect(fileRollback(file, null).revoke().revokedHere).toBeNull();
  });
});
