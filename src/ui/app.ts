/**
 * The query page as a Hono application: routes, the access-key exchange, the session and CSRF
 * checks, the `Host` check. `startQueryPage` (server.ts) binds it to a loopback address.
 */
import type { IncomingMessage } from 'node:http';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { getCookie, setCookie } from 'hono/cookie';
import type { Guard } from '../core/guard.js';
import { isFlowState } from '../flow/states.js';
import type { Ledger } from '../ledger/types.js';
import { defaultPolicy, type Policy } from '../policy/policy.js';
import { GuardError } from '../protocol/errors.js';
import { runAction, UI_ACTIONS, type UiAction } from './actions.js';
import { guardRollback, type RollbackControl } from './rollback.js';
import { APP_CSS, APP_JS } from './assets.js';
import { AGE_FILTERS, DEFAULT_WINDOW, flowDetail, flowTable, reconciliation, type AgeFilter, type FlowFilters } from './model.js';
import { flowPage, flowsPage, loginPage, messagePage, reconciliationPage, rollbackPage, type PageContext } from './pages.js';
import { sameSecret, SECURITY_HEADERS, SESSION_COOKIE, Sessions, type Session } from './security.js';

export interface QueryPageOptions {
  /** The ledger to show; any `Ledger` (memory, SQLite, …). */
  readonly ledger: Ledger;
  /** The live guard of this process, if any: actions on its flows and the rollback switch go through it. */
  readonly guard?: Guard | null;
  /** Used to draw target hosts (protected domains); default: the guard's policy, or the built-in one. */
  readonly policy?: Policy;
  readonly clock?: () => number;
  /** How many of the newest flows a page reads at most (default 1000). */
  readonly window?: number;
  /** Where the page reports an internal error (a ledger that cannot be read); default: nowhere. */
  readonly log?: (line: string) => void;
  /**
   * What the Rollback page switches: default the live guard's own switch, or none without a guard.
   * `ledger serve` and the proxy pass the shared switch file (`fileRollback`), which reaches every proxy.
   */
  readonly rollback?: RollbackControl | null;
}

export interface AppSecurity {
  /** The access secret printed at start. */
  readonly secret: string;
  /** `Host` header values this server answers to (lower case, with the port). */
  readonly hosts: () => ReadonlySet<string>;
  /** A new random token (session ids, CSRF tokens). */
  readonly token: () => string;
}

type Env = { Variables: { session: Session } };

const MAX_BODY = 16 * 1024;

function text(c: Context, status: 400 | 403 | 404 | 421, message: string): Response {
  return c.text(message + '\n', status);
}

function wantsJson(c: Context): boolean {
  return (c.req.header('accept') ?? '').includes('application/json');
}

function filtersOf(c: Context): FlowFilters {
  const state = c.req.query('state');
  const server = c.req.query('server');
  const age = c.req.query('age');
  return {
    state: state !== undefined && isFlowState(state) ? state : null,
    server: server === undefined || server === '' ? null : server,
    age: age !== undefined && Object.hasOwn(AGE_FILTERS, age) ? (age as AgeFilter) : null,
  };
}

const ACTION_LABEL: Readonly<Record<UiAction, string>> = { retry: 'Retried', confirm: 'Confirmed', cancel: 'Cancelled' };

export function createQueryPageApp(options: QueryPageOptions, security: AppSecurity): Hono<Env> {
  const ledger = options.ledger;
  const guard = options.guard ?? null;
  const policy = options.policy ?? guard?.policy ?? defaultPolicy.base;
  const clock = options.clock ?? Date.now;
  const window = options.window ?? DEFAULT_WINDOW;
  const rollback = options.rollback !== undefined ? options.rollback : guard === null ? null : guardRollback(guard);
  const sessions = new Sessions(security.token);
  const app = new Hono<Env>();

  const context = (session: Session): PageContext => {
    const flash = session.flash;
    session.flash = null;
    return { csrf: session.csrf, flash, now: clock(), policy, live: guard !== null };
  };

  const startSession = (c: Context) => {
    const { id } = sessions.create();
    // HttpOnly: no script reads it; SameSite=Strict: no other site's page sends it; no Max-Age: gone with the browser session.
    setCookie(c, SESSION_COOKIE, id, { httpOnly: true, sameSite: 'Strict', path: '/' });
    // A clean URL: the access key does not stay in the address bar or the history.
    return c.redirect('/', 303);
  };

  app.use('*', async (c, next) => {
    // DNS rebinding: a page on another name that resolves here must not be answered.
    // The header as the client sent it: the Request the adapter builds falls back to a default host when there is none.
    const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
    const host = (incoming !== undefined ? (incoming.headers.host ?? '') : (c.req.header('host') ?? '')).toLowerCase();
    if (!security.hosts().has(host)) {
      for (const [k, v] of Object.entries(SECURITY_HEADERS)) c.header(k, v);
      return text(c, 421, 'this query page answers only to its own address (Host header refused)');
    }
    await next();
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) c.header(k, v);
  });

  app.use('*', bodyLimit({ maxSize: MAX_BODY, onError: (c) => text(c, 400, 'request body too large') }));

  app.get('/static/app.css', (c) => c.body(APP_CSS, 200, { 'Content-Type': 'text/css; charset=utf-8' }));
  app.get('/static/app.js', (c) => c.body(APP_JS, 200, { 'Content-Type': 'text/javascript; charset=utf-8' }));

  app.get('/login', (c) => {
    const key = c.req.query('key');
    if (key === undefined) return c.html(loginPage(false));
    if (!sameSecret(key, security.secret)) return c.html(loginPage(true), 403);
    return startSession(c);
  });

  app.post('/login', async (c) => {
    // No session yet, so no CSRF token: a cross-site login attempt is refused by its origin.
    if (crossSite(c, security)) return text(c, 403, 'cross-site request refused');
    const body = await c.req.parseBody();
    const key = typeof body.key === 'string' ? body.key : '';
    if (!sameSecret(key, security.secret)) return c.html(loginPage(true), 403);
    return startSession(c);
  });

  app.use('*', async (c, next) => {
    const session = sessions.get(getCookie(c, SESSION_COOKIE));
    if (session === null) {
      if (c.req.method === 'GET' || c.req.method === 'HEAD') return c.redirect('/login', 303);
      return text(c, 403, 'no session: open the access link first');
    }
    c.set('session', session);
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      if (crossSite(c, security)) return text(c, 403, 'cross-site request refused');
      const body = await c.req.parseBody();
      const token = typeof body.csrf === 'string' ? body.csrf : '';
      if (!sameSecret(token, session.csrf)) return text(c, 403, 'missing or wrong CSRF token: reload the page and try again');
    }
    await next();
  });

  app.get('/', async (c) => {
    const filters = filtersOf(c);
    const table = await flowTable(ledger, filters, clock(), window);
    return c.html(flowsPage(table, filters, context(c.get('session'))));
  });

  app.get('/flows/:id', async (c) => {
    const id = c.req.param('id');
    const detail = await flowDetail(ledger, id, clock(), window);
    const ctx = context(c.get('session'));
    if (detail === null) return c.html(messagePage('No such flow', `There is no navigation record "${id}" in the ledger.`, ctx), 404);
    const live = guard?.flow(detail.stored.record.elicitationId) ?? null;
    return c.html(flowPage(detail, live !== null && live.navigationId === id ? live : null, ctx));
  });

  app.post('/flows/:id/:action', async (c) => {
    const id = c.req.param('id');
    const action = c.req.param('action') as UiAction;
    if (!UI_ACTIONS.includes(action)) return text(c, 404, 'unknown action');
    const result = await runAction(ledger, guard, id, action, clock());
    if (wantsJson(c)) return c.json(result, result.ok ? 200 : 409);
    c.get('session').flash = result.ok
      ? { kind: 'ok', code: null, text: `${ACTION_LABEL[action]}: ${result.from} → ${result.state}.` }
      : { kind: 'refused', code: result.code, text: result.message };
    return c.redirect(`/flows/${encodeURIComponent(id)}`, 303);
  });

  app.get('/reconciliation', async (c) => {
    const rec = await reconciliation(ledger, clock(), window);
    return c.html(reconciliationPage(rec, context(c.get('session'))));
  });

  app.get('/rollback', (c) =>
    c.html(rollbackPage(rollback === null ? null : { state: rollback.read(), scope: rollback.scope }, context(c.get('session')))),
  );

  app.post('/rollback/issuing', async (c) => {
    const body = await c.req.parseBody();
    const session = c.get('session');
    const value = body.issuing;
    if (rollback === null) {
      session.flash = {
        kind: 'refused',
        code: null,
        text: 'No rollback switch here: no guard runs in this process and the ledger is in memory.',
      };
      return wantsJson(c) ? c.json({ ok: false, issuing: null }, 409) : c.redirect('/rollback', 303);
    }
    if (value !== 'open' && value !== 'stopped') return text(c, 400, 'issuing must be "open" or "stopped"');
    const state = rollback.setIssuing(value);
    session.flash = {
      kind: 'ok',
      code: null,
      text: value === 'stopped' ? 'Issuing stopped: new URL elicitations are declined.' : 'Issuing resumed.',
    };
    return wantsJson(c) ? c.json({ ok: true, issuing: state.issuing }) : c.redirect('/rollback', 303);
  });

  app.post('/rollback/revoke', async (c) => {
    const body = await c.req.parseBody();
    const session = c.get('session');
    if (rollback === null) {
      session.flash = {
        kind: 'refused',
        code: null,
        text: 'No rollback switch here: no guard runs in this process and the ledger is in memory.',
      };
      return wantsJson(c) ? c.json({ ok: false, revoked: null }, 409) : c.redirect('/rollback', 303);
    }
    // The confirmation step: the first POST only asks.
    if (body.confirm !== 'yes') return c.html(rollbackPage({ state: rollback.read(), scope: rollback.scope }, context(session), true));
    const { revokedHere } = rollback.revoke();
    session.flash = {
      kind: 'ok',
      code: null,
      text:
        revokedHere === null
          ? 'Revocation recorded: every proxy following the switch revokes its outstanding nonces within a second.'
          : `Revoked ${revokedHere} outstanding nonce${revokedHere === 1 ? '' : 's'} here${
              rollback.scope.startsWith('every') ? '; every other proxy following the switch does within a second' : ''
            }.`,
    };
    return wantsJson(c) ? c.json({ ok: true, revoked: revokedHere }) : c.redirect('/rollback', 303);
  });

  app.notFound((c) => text(c, 404, 'not found'));
  app.onError((error, c) => {
    // The browser gets a general line; the operator's terminal gets the error.
    options.log?.(`query page: ${GuardError.is(error) ? `${error.code}: ` : ''}${(error as Error)?.message ?? String(error)}`);
    return c.text('the query page could not read the ledger; see the terminal that runs it\n', 500);
  });
  return app;
}

/**
 * A request another site's page made, as the browser tells it. `Sec-Fetch-Site` decides when the
 * browser sends it; `Origin` must then also be ours unless it is "null" (this page's
 * `Referrer-Policy: no-referrer` makes Chromium send "null" on its own form posts).
 */
function crossSite(c: Context, security: AppSecurity): boolean {
  const site = c.req.header('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return true;
  const origin = c.req.header('origin');
  if (origin === undefined) return false;
  if (origin === 'null') return site === undefined;
  try {
    const url = new URL(origin);
    return url.protocol !== 'http:' || !security.hosts().has(url.host.toLowerCase());
  } catch {
    return true;
  }
}
