/**
 * The query page over raw HTTP (node:http, so the test can send any Host, Origin or cookie): the
 * access-key exchange, the session and CSRF checks, the Host check, escaping, the actions through
 * the ledger and through a live guard, the rollback switch. The browser tests are in test/e2e/.
 */
import { request } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Guard } from '../../src/core/guard.js';
import { MemoryLedger } from '../../src/ledger/memory.js';
import { startQueryPage, type QueryPageServer } from '../../src/ui/server.js';
import { urlRequest } from '../helpers/session.js';
import { HOSTILE_MESSAGE, seedLedger, type Seeded } from './support/seed.js';

interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

function send(
  page: QueryPageServer,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: page.port, method, path, headers: { host: `127.0.0.1:${page.port}`, ...options.headers } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    if (options.body !== undefined) req.end(options.body);
    else req.end();
  });
}

const pages: QueryPageServer[] = [];
const seeds: Seeded[] = [];
afterEach(async () => {
  for (const page of pages.splice(0)) await page.close();
  for (const seed of seeds.splice(0)) await seed.close();
});

async function serve(options: { guard?: Guard } = {}) {
  const ledger = new MemoryLedger();
  const seeded = await seedLedger(ledger);
  seeds.push(seeded);
  const page = await startQueryPage({ ledger, ...options });
  pages.push(page);
  return { ledger, seeded, page };
}

async function login(page: QueryPageServer): Promise<{
  cookie: string;
  get(path: string): Promise<Reply>;
  post(path: string, form: Record<string, string>, headers?: Record<string, string>): Promise<Reply>;
  csrf(path: string): Promise<string>;
}> {
  const key = new URL(page.accessUrl).searchParams.get('key')!;
  const exchanged = await send(page, 'GET', `/login?key=${encodeURIComponent(key)}`);
  const cookie = String(exchanged.headers['set-cookie']).split(';')[0]!;
  const get = (path: string) => send(page, 'GET', path, { headers: { cookie } });
  return {
    cookie,
    get,
    post: (path, form, headers = {}) =>
      send(page, 'POST', path, {
        headers: {
          cookie,
          'content-type': 'application/x-www-form-urlencoded',
          'sec-fetch-site': 'same-origin',
          origin: page.url,
          ...headers,
        },
        body: new URLSearchParams(form).toString(),
      }),
    async csrf(path) {
      const found = /name="csrf" value="([^"]+)"/.exec((await get(path)).body);
      if (found === null) throw new Error(`no CSRF token on ${path}`);
      return found[1]!;
    },
  };
}

describe('access', () => {
  it('refuses a non-loopback bind unless told, and binds loopback by default', async () => {
    await expect(startQueryPage({ ledger: new MemoryLedger(), host: '0.0.0.0' })).rejects.toMatchObject({
      code: 'E_INPUT',
      message: expect.stringContaining('loopback only'),
    });
    await expect(startQueryPage({ ledger: new MemoryLedger(), host: '192.0.2.1' })).rejects.toMatchObject({ code: 'E_INPUT' });
    const page = await startQueryPage({ ledger: new MemoryLedger() });
    pages.push(page);
    expect(page.host).toBe('127.0.0.1');
    expect(page.url).toBe(`http://127.0.0.1:${page.port}`);
  });

  it('exchanges the key once for an HttpOnly SameSite=Strict cookie and redirects to a clean URL', async () => {
    const { page } = await serve();
    const key = new URL(page.accessUrl).searchParams.get('key')!;
    expect(key.length).toBeGreaterThanOrEqual(43);
    const exchanged = await send(page, 'GET', `/login?key=${encodeURIComponent(key)}`);
    expect(exchanged.status).toBe(303);
    expect(exchanged.headers.location).toBe('/');
    const cookie = String(exchanged.headers['set-cookie']);
    expect(cookie).toMatch(/^meg_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict$/);
    expect(cookie).not.toContain(key);
    expect(exchanged.headers['referrer-policy']).toBe('no-referrer');
  });

  it('refuses a wrong key, and sends a request without a session to the key form', async () => {
    const { page } = await serve();
    expect((await send(page, 'GET', '/login?key=guessed')).status).toBe(403);
    expect(await send(page, 'GET', '/')).toMatchObject({ status: 303, headers: { location: '/login' } });
    expect((await send(page, 'GET', '/', { headers: { cookie: 'meg_session=forged' } })).status).toBe(303);
    expect((await send(page, 'POST', '/rollback/revoke', { body: '' })).status).toBe(403);
  });

  it('accepts the key pasted into the form, but not from another site', async () => {
    const { page } = await serve();
    const key = new URL(page.accessUrl).searchParams.get('key')!;
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    expect((await send(page, 'POST', '/login', { headers: form, body: `key=${encodeURIComponent(key)}` })).status).toBe(303);
    expect(
      (await send(page, 'POST', '/login', { headers: { ...form, origin: 'https://evil.example' }, body: `key=${encodeURIComponent(key)}` }))
        .status,
    ).toBe(403);
    expect(
      (await send(page, 'POST', '/login', { headers: { ...form, 'sec-fetch-site': 'cross-site' }, body: `key=${encodeURIComponent(key)}` }))
        .status,
    ).toBe(403);
  });

  it('answers only to its own Host: a rebound name is refused before anything else', async () => {
    const { page } = await serve();
    const session = await login(page);
    for (const host of [`rebind.example:${page.port}`, `127.0.0.1:${page.port + 1}`, '127.0.0.1', `127.0.0.1.nip.example:${page.port}`]) {
      const reply = await send(page, 'GET', '/', { headers: { host, cookie: session.cookie } });
      expect([host, reply.status]).toEqual([host, 421]);
      expect(reply.body).not.toContain('nav_');
    }
    expect((await send(page, 'GET', '/', { headers: { host: `localhost:${page.port}`, cookie: session.cookie } })).status).toBe(200);
    // No Host at all (HTTP/1.0 allows it): refused too (by Node itself, before the page sees it).
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(page.port, '127.0.0.1', () => socket.end(`GET / HTTP/1.0\r\ncookie: ${session.cookie}\r\n\r\n`));
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString()));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.[01] (400|421) /);
    expect(raw).not.toContain('nav_');
  });

  it('sends a strict CSP and no inline script or style on any page', async () => {
    const { page, seeded } = await serve();
    const session = await login(page);
    for (const path of ['/', `/flows/${seeded.ids.pending}`, '/reconciliation', '/rollback']) {
      const reply = await session.get(path);
      expect(reply.status).toBe(200);
      expect(reply.headers['content-security-policy']).toBe(
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; " +
          "frame-ancestors 'none'; base-uri 'none'",
      );
      expect(reply.headers['x-frame-options']).toBe('DENY');
      expect(reply.body).not.toMatch(/<script(?! src="\/static\/app\.js" defer><\/script>)/);
      expect(reply.body).not.toMatch(/<[^>]*\s(style|on[a-z]+)=/i);
    }
  });
});

describe('CSRF', () => {
  it('refuses a POST without the token, with a wrong one, or with another session’s', async () => {
    const { page, seeded, ledger } = await serve();
    const a = await login(page);
    const b = await login(page);
    const path = `/flows/${seeded.ids.pending}/cancel`;
    expect((await a.post(path, {})).status).toBe(403);
    expect((await a.post(path, { csrf: 'guessed' })).status).toBe(403);
    expect((await a.post(path, { csrf: await b.csrf(`/flows/${seeded.ids.pending}`) })).status).toBe(403);
    expect((await a.post(path, { csrf: await a.csrf(`/flows/${seeded.ids.pending}`) }, { origin: 'https://evil.example' })).status).toBe(
      403,
    );
    expect((await ledger.getNavigation(seeded.ids.pending))!.flow.state).toBe('OUT_OF_BAND_PENDING');
  });
});

describe('pages', () => {
  it('escapes every value: markup in a message is text', async () => {
    const { page, seeded } = await serve();
    const session = await login(page);
    for (const path of ['/', `/flows/${seeded.ids.hostile}`]) {
      const body = (await session.get(path)).body;
      expect(body).not.toContain('<script>alert');
      expect(body).not.toContain('<img src=x');
      expect(body).toContain('Review &lt;script&gt;alert(&quot;owned&quot;)&lt;/script&gt; &amp; &lt;img src=x onerror=alert(1)&gt; now');
    }
    expect(HOSTILE_MESSAGE).toContain('<script>');
  });

  it('treats hostile query strings and ids as text: unknown filters are ignored, a markup id is escaped', async () => {
    const { page } = await serve();
    const session = await login(page);
    const markup = encodeURIComponent('"><script>alert(1)</script>');
    const filtered = await session.get(`/?state=${markup}&server=${markup}&age=${markup}`);
    expect(filtered.status).toBe(200);
    expect(filtered.body).not.toContain('<script>alert');
    expect(filtered.body).toContain('No flows match these filters');
    const missing = await session.get(`/flows/${markup}`);
    expect(missing.status).toBe(404);
    expect(missing.body).not.toContain('<script>alert');
    expect(missing.body).toContain('&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    expect((await session.post(`/flows/${markup}/retry`, { csrf: await session.csrf('/rollback').catch(() => '') })).status).toBe(403);
    expect((await session.get('/?state=EXPIRED&state=USER_RETRY')).status).toBe(200);
    const big = await session.post('/rollback/issuing', { csrf: 'x', pad: 'a'.repeat(20_000) });
    expect(big.status).toBe(400);
  });

  it('shows hidden and bidi characters in a server name as visible escapes', async () => {
    const ledger = new MemoryLedger();
    const { createGuard } = await import('../../src/core/guard.js');
    const guard = createGuard({ ledger });
    guard.outbound({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: { elicitation: { url: {} } }, clientInfo: { name: 'h', version: '1' } },
    });
    guard.inbound({
      jsonrpc: '2.0',
      id: 0,
      result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'evil\u202Egnp.exe', version: '1' } },
    });
    guard.outbound({ jsonrpc: '2.0', method: 'notifications/initialized' });
    guard.inbound(urlRequest(1, 'https://example.com/a', 'bidi-1'));
    await guard.flush();
    const page = await startQueryPage({ ledger });
    pages.push(page);
    const body = (await (await login(page)).get('/')).body;
    expect(body).not.toContain('\u202E');
    expect(body).toContain('<span class="meg-hidden">\\u{202E}</span>');
  });

  it('a flow the page does not know is a 404; an unknown action is a 404', async () => {
    const { page, seeded } = await serve();
    const session = await login(page);
    expect((await session.get('/flows/nav_unknown')).status).toBe(404);
    expect(
      (await session.post(`/flows/${seeded.ids.pending}/delete`, { csrf: await session.csrf(`/flows/${seeded.ids.pending}`) })).status,
    ).toBe(404);
  });

  it('reconciliation counts each state, verification times and lost notices', async () => {
    const { page } = await serve();
    const body = (await (await login(page)).get('/reconciliation')).body;
    expect(body).toContain('4 flows.');
    // Only the nested connect flow was verified, by its notice, 95 s after the page was opened.
    expect(body).toMatch(/over 1 verified flow\./);
    expect(body).toMatch(/<span class="big">1 min 35 s<\/span><span>time to verification, p50/);
    expect(body).toMatch(/Of the 1 flow whose notice never came in time, 0 were confirmed by hand and 1 is still waiting/);
    expect(body).toMatch(/<svg class="chart"/);
  });
});

describe('actions through the ledger (ledger serve)', () => {
  it('confirm, retry and cancel move the flow as the CLI does; a refused move names the guard code', async () => {
    const { page, seeded, ledger } = await serve();
    const session = await login(page);
    const json = { accept: 'application/json' };
    const post = async (id: string, action: string) =>
      session.post(`/flows/${id}/${action}`, { csrf: await session.csrf(`/flows/${id}`) }, json);

    expect(JSON.parse((await post(seeded.ids.pending, 'confirm')).body)).toEqual({
      ok: true,
      from: 'OUT_OF_BAND_PENDING',
      state: 'REQUIREMENT_VERIFIED',
      via: 'ledger',
    });
    expect(JSON.parse((await post(seeded.ids.expired, 'retry')).body)).toMatchObject({ ok: true, from: 'EXPIRED', state: 'USER_RETRY' });
    expect(JSON.parse((await post(seeded.ids.expired, 'cancel')).body)).toMatchObject({ ok: true, from: 'USER_RETRY', state: 'CANCELLED' });
    const refused = await post(seeded.ids.completed, 'retry');
    expect(refused.status).toBe(409);
    expect(JSON.parse(refused.body)).toMatchObject({
      ok: false,
      code: 'E_ILLEGAL_TRANSITION',
      message: expect.stringContaining('recover applies only to'),
    });
    expect((await ledger.listTransitions(seeded.ids.expired)).map((t) => t.trigger).slice(-2)).toEqual([
      'manual-recovery',
      'user-cancelled',
    ]);

    // Without JSON: Post/Redirect/Get, the result shown once on the flow's page.
    const form = await session.post(`/flows/${seeded.ids.completed}/cancel`, {
      csrf: await session.csrf(`/flows/${seeded.ids.completed}`),
    });
    expect(form).toMatchObject({ status: 303, headers: { location: `/flows/${seeded.ids.completed}` } });
    const shown = (await session.get(`/flows/${seeded.ids.completed}`)).body;
    expect(shown).toContain('<code class="code">E_ILLEGAL_TRANSITION</code>');
    expect((await session.get(`/flows/${seeded.ids.completed}`)).body).not.toContain('E_ILLEGAL_TRANSITION</code> flow');
  });

  it('without a guard or a switch file, the rollback page says where rollback is done and changes nothing', async () => {
    const { page } = await serve();
    const session = await login(page);
    expect((await session.get('/rollback')).body).toContain('There is no switch to set here');
    expect((await session.get('/rollback')).body).not.toContain('name="csrf"');
  });
});

describe('actions and rollback through a live guard (proxy --ui)', () => {
  it('moves a flow the guard holds through the guard, so its book and the ledger agree', async () => {
    const ledger = new MemoryLedger();
    const seeded = await seedLedger(ledger);
    seeds.push(seeded);
    const page = await startQueryPage({ ledger, guard: seeded.guard, clock: seeded.now });
    pages.push(page);
    const session = await login(page);
    const detail = (await session.get(`/flows/${seeded.ids.pending}`)).body;
    // The live guard holds the full URL: shown as text with a copy control, never as a link.
    expect(detail).toContain('The full URL, held in memory by the running guard');
    expect(detail).toContain(
      'data-copy="https://accounts.google.com/o/oauth2/v2/auth?client_id=8819.apps.googleusercontent.com&amp;' +
        'state=af0ifjsldkj&amp;scope=openid"',
    );
    expect(detail).not.toMatch(/href="https:/);
    const reply = await session.post(
      `/flows/${seeded.ids.pending}/confirm`,
      { csrf: await session.csrf(`/flows/${seeded.ids.pending}`) },
      { accept: 'application/json' },
    );
    // An error-retry lineage goes on to ERROR_RETRY_ELIGIBLE: the guard, not the page, knows that.
    expect(JSON.parse(reply.body)).toEqual({ ok: true, from: 'OUT_OF_BAND_PENDING', state: 'ERROR_RETRY_ELIGIBLE', via: 'guard' });
    expect(seeded.guard.flow('signin-1')?.state).toBe('ERROR_RETRY_ELIGIBLE');
    expect((await ledger.getNavigation(seeded.ids.pending))!.flow.state).toBe('ERROR_RETRY_ELIGIBLE');
  });

  it('stops and resumes issuing, and revokes nonces only after the confirmation step', async () => {
    const ledger = new MemoryLedger();
    const seeded = await seedLedger(ledger);
    seeds.push(seeded);
    const guard = seeded.guard;
    const page = await startQueryPage({ ledger, guard });
    pages.push(page);
    const session = await login(page);
    expect((await session.get('/rollback')).body).toContain('<span class="issuing issuing-open">open</span>');

    expect(await session.post('/rollback/issuing', { csrf: await session.csrf('/rollback'), issuing: 'stopped' })).toMatchObject({
      status: 303,
      headers: { location: '/rollback' },
    });
    expect(guard.issuing()).toBe('stopped');
    expect((await session.get('/rollback')).body).toContain('Issuing stopped: new URL elicitations are declined.');

    const ask = await session.post('/rollback/revoke', { csrf: await session.csrf('/rollback') });
    expect(ask.status).toBe(200);
    expect(ask.body).toContain('Revoke every outstanding state nonce?');
    const done = await session.post(
      '/rollback/revoke',
      { csrf: await session.csrf('/rollback'), confirm: 'yes' },
      { accept: 'application/json' },
    );
    expect(JSON.parse(done.body)).toEqual({ ok: true, revoked: expect.any(Number) });

    // The ledger and the page stay readable.
    expect((await session.get('/')).status).toBe(200);
    expect((await session.get(`/flows/${seeded.ids.pending}`)).status).toBe(200);
    await session.post('/rollback/issuing', { csrf: await session.csrf('/rollback'), issuing: 'open' });
    expect(guard.issuing()).toBe('open');
    expect((await session.post('/rollback/issuing', { csrf: await session.csrf('/rollback'), issuing: 'paused' })).status).toBe(400);
  });
});
