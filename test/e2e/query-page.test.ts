/**
 * The query page in a real headless Chromium: a SQLite ledger seeded through the guard by a real
 * SDK client and server, served by `ledger serve` (the CLI command, in process), then used the way
 * a person would: open the access link, filter, open a flow, confirm one, retry another; and
 * attacked the way a page on the web would (no CSRF token, a rebound host name, markup in a message).
 */
import { EventEmitter } from 'node:events';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Page } from 'playwright-core';
import { ledgerServeCommand } from '../../src/cli/ledger-serve.js';
import { SqliteLedger } from '../../src/ledger/sqlite.js';
import { RollbackFile } from '../../src/ui/rollback.js';
import { tempDir } from '../ledger/support.js';
import { browserRequired, hasChromium, launchChromium, type Browser } from '../ui/support/chromium.js';
import { HOSTILE_MESSAGE, seedLedger } from '../ui/support/seed.js';

const IMAGES = fileURLToPath(new URL('../../docs/images/', import.meta.url));
const run = hasChromium || browserRequired;
const START = Date.UTC(2026, 10, 30, 14, 0, 0);

describe.runIf(run)('query page in headless Chromium', { timeout: 60_000 }, () => {
  const tmp = tempDir('mcp-eg-ui-');
  const file = join(tmp.dir, 'ledger.sqlite');
  const signals = new EventEmitter();
  let ids: { expired: string; completed: string; pending: string; hostile: string };
  let served: Promise<number>;
  let accessUrl: string;
  let origin: string;
  let port: string;
  let browser: Browser;
  let page: Page;
  const dialogs: string[] = [];
  const consoleErrors: string[] = [];

  /** The ledger as another reader sees it (a fresh connection to the file). */
  async function stateOf(id: string): Promise<{ state: string; triggers: (string | null)[] }> {
    const ledger = await SqliteLedger.open(file);
    try {
      const stored = await ledger.getNavigation(id);
      return { state: stored!.flow.state, triggers: (await ledger.listTransitions(id)).map((t) => t.trigger) };
    } finally {
      await ledger.close();
    }
  }

  beforeAll(async () => {
    const seeding = await SqliteLedger.open(file);
    // Fixed times and ids: the screenshots come out the same on every run.
    const seeded = await seedLedger(seeding, START, 7);
    ids = seeded.ids;
    await seeded.close();
    await seeding.close();

    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    served = ledgerServeCommand(['--ledger', file], {
      stdin: new PassThrough(),
      stdout,
      stderr,
      isTTY: false,
      cwd: tmp.dir,
      signals,
      clock: () => START + 20 * 60_000,
    });
    await vi.waitFor(() => expect(out).toMatch(/query page: http:\/\/127\.0\.0\.1:\d+\/login\?key=\S+\n/), {
      timeout: 20_000,
      interval: 20,
    });
    accessUrl = /query page: (\S+)/.exec(out)![1]!;
    origin = new URL(accessUrl).origin;
    port = new URL(accessUrl).port;

    // rebind.test resolves to the page's own address, as a DNS-rebinding attacker's name would.
    browser = await launchChromium(['--host-resolver-rules=MAP rebind.test 127.0.0.1']);
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    page = await browser.context.newPage();
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (accessUrl !== undefined) {
      signals.emit('SIGINT');
      expect(await served).toBe(0);
    }
    tmp.remove();
  }, 60_000);

  it('exchanges the access key for an HttpOnly SameSite=Strict cookie and lands on a clean URL', async () => {
    const response = await page.goto(accessUrl);
    expect(response?.status()).toBe(200);
    expect(page.url()).toBe(`${origin}/`);
    const cookies = await browser.context.cookies(origin);
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatchObject({ name: 'meg_session', httpOnly: true, sameSite: 'Strict', path: '/' });
    expect(cookies[0]!.value).not.toBe(new URL(accessUrl).searchParams.get('key'));
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
  });

  it('lists expired and pending flows first, with the registrable domain highlighted and no live link to any target', async () => {
    const states = await page.locator('table.flows tbody tr td:first-child .state').allTextContents();
    expect(states).toEqual(['EXPIRED', 'OUT_OF_BAND_PENDING', 'DECLINED', 'ORIGINAL_RESPONSE_ACCEPTED']);
    expect(await page.locator('table.flows .meg-url-full mark.meg-registrable').allTextContents()).toEqual([
      'stripe.com',
      'google.com',
      'example.org',
      'github.com',
    ]);
    const hrefs = await page.locator('a[href]').evaluateAll((links) => links.map((a) => (a as unknown as { href: string }).href));
    for (const href of hrefs) expect(new URL(href).origin).toBe(origin);
    mkdirSync(IMAGES, { recursive: true });
    await page.screenshot({ path: join(IMAGES, 'query-page-flows.png'), fullPage: true });
  });

  it('filters by state, server and age', async () => {
    await page.selectOption('select[name=state]', 'OUT_OF_BAND_PENDING');
    await page.click('form.filters button[type=submit]');
    await page.waitForURL(/state=OUT_OF_BAND_PENDING/);
    expect(await page.locator('table.flows tbody tr').count()).toBe(1);
    expect(await page.locator('table.flows tbody tr .flow-link').getAttribute('href')).toBe(`/flows/${ids.pending}`);

    await page.goto(`${origin}/?server=acme-payments&age=1h`);
    expect(await page.locator('table.flows tbody tr').count()).toBe(4);
    expect(await page.inputValue('select[name=age]')).toBe('1h');
    await page.goto(`${origin}/?server=someone-else`);
    expect(await page.locator('p.empty').textContent()).toContain('No flows match these filters');
  });

  it('shows one flow: navigation record, history, consent receipt, lineage; the copy control copies the target', async () => {
    await page.goto(`${origin}/`);
    await page.click(`a.flow-link[href="/flows/${ids.pending}"]`);
    await page.waitForURL(`${origin}/flows/${ids.pending}`);
    const record = await page.locator('dl.record').first().textContent();
    for (const name of [
      'elicitationId',
      'signin-1',
      'originalRequestDigest',
      'target.urlDigest',
      'stateNonceDigest',
      'sessionGeneration',
      'user:alice@example.com',
    ])
      expect(record).toContain(name);
    expect(record).not.toContain('af0ifjsldkj'); // the URL's query never reached the ledger
    expect(await page.locator('ol.timeline li .trigger').allTextContents()).toEqual([
      'on presented',
      'on user-accepted',
      'on navigation-opened',
    ]);
    expect(await page.locator('table.receipts .decision').first().textContent()).toBe('accept');
    expect(await page.locator('section:has(h2:text("Lineage"))').textContent()).toContain('original request sha256');
    await page.screenshot({ path: join(IMAGES, 'query-page-flow.png'), fullPage: true });
    await page.click('button.copy');
    await vi.waitFor(async () =>
      expect(
        await page.evaluate(() =>
          (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText(),
        ),
      ).toBe('https://accounts.google.com'),
    );
  });

  it('"I have finished" confirms the pending flow in the ledger, and the page shows it', async () => {
    await page.click('button.button-confirm');
    await page.waitForURL(`${origin}/flows/${ids.pending}`);
    expect(await page.locator('.flash-ok').textContent()).toContain('Confirmed: OUT_OF_BAND_PENDING → REQUIREMENT_VERIFIED');
    expect(await page.locator('p.now .state').first().textContent()).toBe('REQUIREMENT_VERIFIED');
    expect(await stateOf(ids.pending)).toMatchObject({
      state: 'REQUIREMENT_VERIFIED',
      triggers: expect.arrayContaining(['user-confirmed']),
    });
    // Shown once: a reload has no banner.
    await page.reload();
    expect(await page.locator('.flash').count()).toBe(0);
  });

  it('retry takes the expired flow up again in the ledger', async () => {
    await page.goto(`${origin}/flows/${ids.expired}`);
    expect(await page.locator('p.now .state').first().textContent()).toBe('EXPIRED');
    await page.click('button.button-retry');
    await page.waitForURL(`${origin}/flows/${ids.expired}`);
    expect(await page.locator('.flash-ok').textContent()).toContain('Retried: EXPIRED → USER_RETRY');
    expect(await stateOf(ids.expired)).toEqual({
      state: 'USER_RETRY',
      triggers: [null, 'presented', 'user-accepted', 'navigation-opened', 'ttl-expired', 'manual-recovery'],
    });
    await page.goto(`${origin}/`);
    expect(await page.locator(`tr:has(a.flow-link[href="/flows/${ids.expired}"]) .state`).textContent()).toBe('USER_RETRY');
  });

  it('refuses a move the state does not allow with the guard error code, and changes nothing', async () => {
    await page.goto(`${origin}/flows/${ids.completed}`);
    expect(await page.locator('button.button-retry').isDisabled()).toBe(true);
    // A person (or a stale tab) sending it anyway.
    await page.locator('button.button-retry').evaluate((b) => b.removeAttribute('disabled'));
    await page.click('button.button-retry');
    await page.waitForURL(`${origin}/flows/${ids.completed}`);
    expect(await page.locator('.flash-refused code').textContent()).toBe('E_ILLEGAL_TRANSITION');
    expect((await stateOf(ids.completed)).state).toBe('ORIGINAL_RESPONSE_ACCEPTED');
    expect(await page.locator('section:has(h2:text("Business receipt")) dl.record').count()).toBe(1);
  });

  it('refuses a POST without the CSRF token or with a wrong one, even with the session cookie', async () => {
    await page.goto(`${origin}/flows/${ids.expired}`);
    const statuses = await page.evaluate(async (id) => {
      const post = (body: string) =>
        fetch(`/flows/${id}/cancel`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body }).then(
          (r) => r.status,
        );
      return [await post(''), await post('csrf=guessed')];
    }, ids.expired);
    expect(statuses).toEqual([403, 403]);
    expect((await stateOf(ids.expired)).state).toBe('USER_RETRY');
  });

  it('refuses a request under a foreign Host (DNS rebinding)', async () => {
    const response = await page.goto(`http://rebind.test:${port}/`);
    expect(response?.status()).toBe(421);
    expect(await page.textContent('body')).toContain('Host header refused');
  });

  it('renders markup in a server message as text', async () => {
    await page.goto(`${origin}/flows/${ids.hostile}`);
    expect(await page.locator('dl.record .purpose').textContent()).toBe(HOSTILE_MESSAGE);
    expect(await page.locator('script').count()).toBe(1); // the page's own app.js
    expect(await page.locator('main img').count()).toBe(0);
    await page.goto(`${origin}/`);
    expect(await page.locator('td.purpose', { hasText: '<script>' }).count()).toBe(1);
    expect(dialogs).toEqual([]);
  });

  it('shows the reconciliation figures and chart', async () => {
    await page.goto(`${origin}/reconciliation`);
    const cards = await page.locator('.card').allTextContents();
    expect(cards.join(' | ')).toMatch(/notices lost/);
    expect(await page.locator('svg.chart rect').count()).toBe(4);
    expect(await page.locator('table.counts tbody tr').count()).toBeGreaterThanOrEqual(4);
    await page.screenshot({ path: join(IMAGES, 'query-page-reconciliation.png'), fullPage: true });
  });

  it('the rollback switch writes the file every proxy over this ledger follows; the ledger and the page stay readable', async () => {
    await page.goto(`${origin}/rollback`);
    expect(await page.locator('.issuing').textContent()).toBe('open');
    await page.click('button:text("Stop issuing")');
    await page.waitForURL(`${origin}/rollback`);
    expect(await page.locator('.flash-ok').textContent()).toContain('Issuing stopped');
    expect(await page.locator('.issuing').textContent()).toBe('stopped');
    expect(new RollbackFile(tmp.dir).read().issuing).toBe('stopped');
    await page.click('button:text("Revoke outstanding nonces")');
    expect(await page.locator('.confirm').textContent()).toContain('Revoke every outstanding state nonce?');
    expect(new RollbackFile(tmp.dir).read().revokedAt).toBeNull();
    await page.click('button:text("Yes, revoke them")');
    await page.waitForURL(`${origin}/rollback`);
    expect(await page.locator('.flash-ok').textContent()).toContain('Revocation recorded');
    expect(new RollbackFile(tmp.dir).read().revokedAt).toBe(START + 20 * 60_000);
    await page.goto(`${origin}/`);
    expect(await page.locator('table.flows tbody tr').count()).toBe(4);
    // Only the refusals this test provoked, and no CSP violation.
    expect(consoleErrors.filter((e) => !/status of (403|404|421)|Cross-Origin-Opener-Policy header has been ignored/.test(e))).toEqual([]);
  });
});
