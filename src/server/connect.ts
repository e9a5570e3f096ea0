/**
 * URL-mode elicitations for third-party OAuth that bind to the right user.
 *
 * The account-binding attack: an attacker forwards their own elicitation link, the victim completes
 * the provider's consent, and the victim's token lands in the attacker's account. The client cannot
 * see the browser, so the server stops it: the link is a server-owned connect page carrying only an
 * opaque id; whoever opens it must be signed in to the server (its own session, not anything in the
 * URL) as the same subject the elicitation was issued for, both on the connect page and again on the
 * callback. Tokens are then stored in the vault under that subject only, never returned to the MCP
 * client and never logged. All OAuth client work (PKCE, state check, code exchange, issuer, ID token
 * and access token audience) is done by oauth4webapi.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as oauth from 'oauth4webapi';
import { z } from 'zod';
import { createNavigation, matchesStateNonce } from '../flow/records.js';
import { sha256Hex, shortDigest } from '../protocol/digest.js';
import { GuardCode, GuardError } from '../protocol/errors.js';
import { bindingCookie, clearBindingCookie, hasBinding } from './browser-binding.js';
import { ConnectCode, type ConnectAudit, type ConnectEvent } from './connect-audit.js';
import { page } from './connect-pages.js';
import {
  MemoryConnectFlowStore,
  type Awaitable,
  type ConnectFlow,
  type ConnectFlowStatus,
  type ConnectFlowStore,
} from './connect-store.js';
import { isSecureOrLoopback } from './loopback.js';
import type { SecretVault, StoredSecret } from './vault-types.js';

/** The third-party authorization server and this server's registration with it. */
export interface ConnectProviderConfig {
  /** The vault key's provider half (`github`); the issuer URL when omitted. */
  readonly name?: string;
  /** The issuer identifier; its metadata is discovered from it (RFC 8414 / OIDC discovery). */
  readonly issuer: string;
  readonly clientId: string;
  /** With a secret the client authenticates with client_secret_basic; without, as a public client. */
  readonly clientSecret?: string;
  /** The exact registered redirect URI: a path on `baseUrl`'s origin that `connectHandler` serves. */
  readonly redirectUri: string;
  /** Space-separated scopes. With `openid`, an ID token is required and validated. */
  readonly scope: string;
  /**
   * The resource the access token is for (RFC 8707). When set it is sent as `resource` and the access
   * token must be a JWT (RFC 9068) whose `aud` holds it; tokens for another audience are refused.
   */
  readonly audience?: string;
}

/** What the connect service calls once a flow completed and its token is in the vault. */
export interface ConnectCompletion {
  readonly elicitationId: string;
  readonly subject: string;
  /** The initiating MCP session, as given to `issueUrlElicitation`. */
  readonly session: string | null;
  readonly provider: string;
}

export interface ConnectServiceOptions {
  /** This server's public base URL; connect pages live at `<baseUrl>/connect/<id>`. */
  readonly baseUrl: string;
  readonly vault: SecretVault;
  readonly provider: ConnectProviderConfig;
  readonly clock?: () => number;
  readonly random?: (bytes: number) => Uint8Array;
  readonly audit?: ConnectAudit;
  readonly store?: ConnectFlowStore;
  /** Called at most once per flow, after the token is stored (wire it to the completion notice). */
  readonly onComplete?: (completion: ConnectCompletion) => void | Promise<void>;
  /** How long an elicitation stays open when `issueUrlElicitation` gives no `ttl`: 10 minutes. */
  readonly defaultTtlMs?: number;
  /**
   * Lets the provider and this server use plain HTTP, on loopback hosts only (`localhost`,
   * `127.0.0.0/8`, `[::1]`): local development and tests. A non-loopback `http` URL is refused at
   * construction, and so is a non-loopback `http` endpoint in the provider's metadata.
   */
  readonly allowInsecureRequests?: boolean;
  /**
   * The provider account (its `sub`) this MCP user must connect, when the server knows it (the MCP
   * authorization server and the provider are one identity provider, or a directory links them).
   * Given a value, a token whose `sub` (from the ID token, else userinfo) differs is refused and
   * never stored. `null`/`undefined`: any account the user signs in to at the provider is accepted.
   */
  readonly providerSubjectFor?: (subject: string) => Awaitable<string | null | undefined>;
}

export interface IssueUrlElicitationInput {
  /**
   * The verified MCP user subject, derived from the MCP authorization (the access token's `sub`):
   * never a session id, never an e-mail address or name the client reported.
   */
  readonly subject: string;
  /** Why the user is asked: the elicitation's `message`. */
  readonly purpose: string;
  /**
   * The third party the user connects to: the service's provider name. Given, it must match, so a
   * tool cannot send a user to one provider while meaning another.
   */
  readonly target?: string;
  /** The initiating MCP session, for delivering the completion notice; never used as identity. */
  readonly session?: string | null;
  /** How long the elicitation stays open, in milliseconds (1 ms to 24 hours). */
  readonly ttl?: number;
}

/** The `elicitation/create` params for URL mode (also an entry of a `-32042` error's `elicitations`). */
export interface UrlElicitationParams {
  readonly mode: 'url';
  readonly elicitationId: string;
  readonly url: string;
  readonly message: string;
}

/**
 * What a connect page or callback request comes to; `connectHandler` turns it into HTTP.
 * `cookies` are `Set-Cookie` values to send (the browser binding of a connect attempt, or its removal).
 */
export type ConnectOutcome =
  | { readonly kind: 'redirect'; readonly location: string; readonly cookies?: readonly string[] }
  | { readonly kind: 'completed'; readonly elicitationId: string; readonly cookies?: readonly string[] }
  | {
      readonly kind: 'refused';
      readonly status: number;
      readonly code: ConnectCode;
      readonly title: string;
      readonly message: string;
      /** True when this refusal ended the flow: the user starts again from the tool. */
      readonly retired?: boolean;
      readonly cookies?: readonly string[];
    };

/** Counters a server can export as metrics. Monotonic within a service's life. */
export interface ConnectMetrics {
  /** Third-party tokens stored in the vault. */
  readonly tokensBound: number;
  /**
   * Invariant: tokens bound to a subject other than the one the flow was issued for, or other than
   * the one signed in on the callback. Must stay 0.
   */
  readonly crossSubjectBindings: number;
  /**
   * Invariant: tokens stored from a callback that came from a browser other than the one that
   * opened the connect page (without the attempt's binding cookie). Must stay 0.
   */
  readonly bindingsByOtherBrowser: number;
  /** Callbacks refused because they came from another browser or replayed a spent state. */
  readonly callbackReplayRefused: number;
  /** Flows ended by a refused callback (state burned, reason recorded). */
  readonly flowsRetired: number;
}

/**
 * What a server may read about one of its own flows, by the connect URL it issued (to continue a
 * 2026-07-28 round, say). Nothing secret: no state, no verifier, no binding.
 */
export interface ConnectFlowView {
  readonly elicitationId: string;
  /** The verified MCP subject the flow was issued for. */
  readonly subject: string;
  readonly status: ConnectFlowStatus;
  /** True once the flow's time is up (a pending flow then never completes). */
  readonly expired: boolean;
  readonly expiresAt: number;
  /** Why a callback for this flow was refused, when it was. */
  readonly retiredReason: ConnectCode | null;
}

/**
 * Whether binding a token under `boundTo` crosses subjects: the flow was issued for `issuedFor` and
 * the browser on the callback is signed in as `signedIn`; all three must be the same subject.
 */
export function isCrossSubjectBinding(boundTo: string, issuedFor: string, signedIn: string | null): boolean {
  return boundTo !== issuedFor || signedIn !== issuedFor;
}

/**
 * Whether the provider account of a token crosses subjects: the server expects `expected` for the
 * flow's subject (when it knows it) and the token's `sub` is `actual` (when the provider said).
 */
export function isCrossAccountBinding(expected: string | null, actual: string | null): boolean {
  return expected !== null && actual !== expected;
}

const MAX_TTL_MS = 24 * 60 * 60 * 1000;
const FLOW_ID_BYTES = 32;
const ELICITATION_ID_BYTES = 16;
const OAUTH_ERROR = /^[a-z_]{1,64}$/;

const httpUrl = z.url({ protocol: /^https?$/ });
const optionsSchema = z.object({
  baseUrl: httpUrl,
  provider: z.object({
    name: z.string().min(1).max(200).optional(),
    issuer: httpUrl,
    clientId: z.string().min(1).max(1000),
    clientSecret: z.string().min(1).optional(),
    redirectUri: httpUrl,
    scope: z.string().trim().min(1).max(2000),
    audience: z.string().min(1).max(2000).optional(),
  }),
  defaultTtlMs: z.number().int().min(1).max(MAX_TTL_MS).optional(),
  allowInsecureRequests: z.boolean().optional(),
});

function configError(message: string): GuardError {
  return new GuardError(GuardCode.input, `connect service: ${message}`);
}

function refused(status: number, code: ConnectCode, title: string, message: string): ConnectOutcome & { kind: 'refused' } {
  return { kind: 'refused', status, code, title, message };
}

const REFUSAL = {
  unknownFlow: () =>
    refused(
      404,
      ConnectCode.unknownFlow,
      'Link not found',
      'This connect link is unknown or has been cleaned up. Ask your assistant to start again.',
    ),
  expired: () => refused(410, ConnectCode.expired, 'Link expired', 'This connect link has expired. Ask your assistant to start again.'),
  completed: () => refused(410, ConnectCode.alreadyCompleted, 'Already connected', 'This connect link has already been used.'),
  unauthenticated: () =>
    refused(401, ConnectCode.unauthenticated, 'Sign in first', 'Sign in to this service in this browser, then open the link again.'),
  mismatch: () =>
    refused(
      403,
      ConnectCode.subjectMismatch,
      'Not your link',
      'This link was created for a different account. Nothing was connected. If someone sent you this link, do not use it.',
    ),
  stateMissing: () =>
    refused(400, ConnectCode.stateMissing, 'Invalid callback', 'The sign-in response is incomplete. Nothing was connected.'),
  stateUnknown: () =>
    refused(
      400,
      ConnectCode.stateUnknown,
      'Invalid callback',
      'This sign-in response does not belong to a connection we started. Nothing was connected.',
    ),
  stateReplayed: () =>
    refused(400, ConnectCode.stateReplayed, 'Invalid callback', 'This sign-in response was already used. Nothing more was connected.'),
  providerDenied: () =>
    refused(400, ConnectCode.providerDenied, 'Not connected', 'The provider did not grant access. Nothing was connected.'),
  responseInvalid: () =>
    refused(400, ConnectCode.responseInvalid, 'Invalid callback', 'The sign-in response failed validation. Nothing was connected.'),
  tokenRefused: () =>
    refused(502, ConnectCode.tokenRefused, 'Not connected', 'The provider refused to issue a token. Nothing was connected.'),
  tokenInvalid: () =>
    refused(
      502,
      ConnectCode.tokenInvalid,
      'Not connected',
      'The provider answered with a token that failed validation. Nothing was connected.',
    ),
  audience: () =>
    refused(502, ConnectCode.audienceMismatch, 'Not connected', 'The provider issued a token for another audience. Nothing was connected.'),
  unavailable: () =>
    refused(502, ConnectCode.providerUnavailable, 'Provider unavailable', 'The provider could not be reached. Try again later.'),
  vault: () => refused(500, ConnectCode.vaultFailed, 'Not connected', 'The connection could not be saved. Nothing was connected.'),
  otherBrowser: () =>
    refused(
      403,
      ConnectCode.otherBrowser,
      'Wrong browser',
      'This sign-in response was opened in a different browser from the one that started the connection. Nothing was ' +
        "connected. If someone asked you for this page's address, do not send it.",
    ),
  accountMismatch: () =>
    refused(
      403,
      ConnectCode.accountMismatch,
      'Wrong account',
      'You signed in to the provider with an account that does not belong to this user. Nothing was connected.',
    ),
  retired: () =>
    refused(
      410,
      ConnectCode.flowRetired,
      'Connection stopped',
      'This connection was stopped after a refused attempt. Nothing was connected. Ask your assistant to start again.',
    ),
} as const;

/** Appended to a refusal that ended the flow. */
const START_AGAIN = ' This connection has been stopped; to connect, ask your assistant to start again.';

/**
 * Issues URL elicitations bound to a verified user and runs their OAuth flows.
 *
 * @example
 * const service = new ConnectService({ baseUrl, vault, provider, onComplete })
 * const params = service.issueUrlElicitation({ subject: auth.sub, purpose: 'Connect GitHub' })
 * http.createServer(connectHandler(service, { authenticate: cookie.authenticate }))
 */
export class ConnectService {
  readonly providerName: string;
  /** The path prefix of connect pages: `/connect/` under the base URL's path. */
  readonly connectPath: string;
  /** The path of the redirect URI, which `connectHandler` serves as the callback. */
  readonly callbackPath: string;
  readonly #baseUrl: URL;
  readonly #provider: ConnectProviderConfig;
  readonly #client: oauth.Client;
  readonly #clientAuth: oauth.ClientAuth;
  readonly #vault: SecretVault;
  readonly #store: ConnectFlowStore;
  readonly #clock: () => number;
  readonly #random: (bytes: number) => Uint8Array;
  readonly #audit: ConnectAudit | null;
  readonly #onComplete: ((completion: ConnectCompletion) => void | Promise<void>) | null;
  readonly #defaultTtlMs: number;
  readonly #insecure: boolean;
  readonly #providerSubjectFor: ((subject: string) => Awaitable<string | null | undefined>) | null;
  #server: Promise<oauth.AuthorizationServer> | null = null;
  /** Who waits in this process for a flow to end (completed or retired), by flow id. */
  readonly #waiters = new Map<string, Set<() => void>>();
  readonly #metrics = { tokensBound: 0, crossSubjectBindings: 0, bindingsByOtherBrowser: 0, callbackReplayRefused: 0, flowsRetired: 0 };

  constructor(options: ConnectServiceOptions) {
    const parsed = optionsSchema.safeParse(options);
    if (!parsed.success) throw configError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    if (typeof options.vault?.put !== 'function' || typeof options.vault.get !== 'function')
      throw configError('vault must be a SecretVault');
    this.#insecure = options.allowInsecureRequests === true;
    this.#baseUrl = new URL(options.baseUrl);
    const redirect = new URL(options.provider.redirectUri);
    const issuer = new URL(options.provider.issuer);
    for (const [what, url] of [
      ['baseUrl', this.#baseUrl],
      ['provider.redirectUri', redirect],
      ['provider.issuer', issuer],
    ] as const) {
      if (url.protocol === 'https:') continue;
      if (!this.#insecure)
        throw configError(`${what} must use https (set allowInsecureRequests for local development on a loopback host only)`);
      if (!isSecureOrLoopback(url))
        throw configError(
          `${what} uses plain http on ${JSON.stringify(url.hostname)}, which is not a loopback host: allowInsecureRequests is ` +
            `for localhost, 127.0.0.0/8 and [::1] only; use https everywhere else`,
        );
    }
    if (options.providerSubjectFor !== undefined && typeof options.providerSubjectFor !== 'function')
      throw configError('providerSubjectFor must be a function');
    if (redirect.origin !== this.#baseUrl.origin)
      throw configError('provider.redirectUri must be on the same origin as baseUrl: the callback must be server-owned');
    if (redirect.search !== '' || redirect.hash !== '') throw configError('provider.redirectUri must have no query or fragment');
    if (this.#baseUrl.search !== '' || this.#baseUrl.hash !== '') throw configError('baseUrl must have no query or fragment');
    const basePath = this.#baseUrl.pathname.replace(/\/+$/, '');
    this.connectPath = `${basePath}/connect/`;
    this.callbackPath = redirect.pathname;
    if (this.callbackPath.startsWith(this.connectPath)) throw configError('provider.redirectUri must not lie under the connect path');
    this.#provider = { ...options.provider };
    this.providerName = options.provider.name ?? options.provider.issuer;
    this.#client = { client_id: options.provider.clientId };
    this.#clientAuth = options.provider.clientSecret === undefined ? oauth.None() : oauth.ClientSecretBasic(options.provider.clientSecret);
    this.#vault = options.vault;
    this.#store = options.store ?? new MemoryConnectFlowStore();
    this.#clock = options.clock ?? Date.now;
    this.#random = options.random ?? ((n) => randomBytes(n));
    this.#audit = options.audit ?? null;
    this.#onComplete = options.onComplete ?? null;
    this.#defaultTtlMs = options.defaultTtlMs ?? 10 * 60 * 1000;
    this.#providerSubjectFor = options.providerSubjectFor ?? null;
  }

  /** The vault the service stores tokens in, under (subject, `providerName`). */
  get vault(): SecretVault {
    return this.#vault;
  }

  /** The service's counters (a copy). */
  metrics(): ConnectMetrics {
    return { ...this.#metrics };
  }

  /**
   * The flow behind a connect URL this service issued, or `null` when there is none (never issued
   * here, another service's, or swept after it expired). Server-side only: the URL's id is a
   * capability of the flow, so never look up a URL a client chose without your own check of whom
   * it belongs to (`ConnectRounds` takes it from a requestState it signed).
   */
  async flowOf(connectUrl: string): Promise<ConnectFlowView | null> {
    const id = this.#flowIdOf(connectUrl);
    if (id === null) return null;
    const flow = await this.#store.get(id);
    if (flow === null) return null;
    return Object.freeze({
      elicitationId: flow.elicitationId,
      subject: flow.subject,
      status: flow.status,
      expired: this.#clock() >= flow.expiresAt,
      expiresAt: flow.expiresAt,
      retiredReason: flow.retiredReason,
    });
  }

  /**
   * Waits until the flow behind `connectUrl` has ended (completed or retired), at most `timeoutMs`,
   * and resolves with its view then (`flowOf`). A callback handled by this process wakes the wait at
   * once; the store is also read every `pollMs` (500 ms), so a callback handled by another instance
   * sharing the store is seen too. An aborted `signal` ends the wait early.
   */
  async waitForFlow(
    connectUrl: string,
    options: { readonly timeoutMs: number; readonly pollMs?: number; readonly signal?: AbortSignal },
  ): Promise<ConnectFlowView | null> {
    const id = this.#flowIdOf(connectUrl);
    const deadline = Date.now() + Math.max(0, options.timeoutMs);
    const pollMs = Math.max(10, options.pollMs ?? 500);
    for (;;) {
      const view = await this.flowOf(connectUrl);
      if (id === null || view === null || view.status !== 'pending' || view.expired) return view;
      const left = deadline - Date.now();
      if (left <= 0 || options.signal?.aborted === true) return view;
      await new Promise<void>((resolve) => {
        const waiters = this.#waiters.get(id) ?? new Set<() => void>();
        this.#waiters.set(id, waiters);
        const done = () => {
          clearTimeout(timer);
          options.signal?.removeEventListener('abort', done);
          waiters.delete(done);
          if (waiters.size === 0 && this.#waiters.get(id) === waiters) this.#waiters.delete(id);
          resolve();
        };
        const timer = setTimeout(done, Math.min(left, pollMs));
        options.signal?.addEventListener('abort', done, { once: true });
        waiters.add(done);
      });
    }
  }

  #flowIdOf(connectUrl: string): string | null {
    let url: URL;
    try {
      url = new URL(connectUrl);
    } catch {
      return null;
    }
    if (url.origin !== this.#baseUrl.origin || !url.pathname.startsWith(this.connectPath)) return null;
    const id = url.pathname.slice(this.connectPath.length);
    return /^[A-Za-z0-9_-]{1,200}$/.test(id) ? id : null;
  }

  #wake(flowId: string): void {
    const waiters = this.#waiters.get(flowId);
    if (waiters === undefined) return;
    for (const wake of [...waiters]) wake();
  }

  /**
   * Opens a connect flow for a verified subject and returns the URL-mode elicitation params. The URL
   * is `<baseUrl>/connect/<opaque id>`: no credential, no personal data, nothing pre-authenticated.
   * Resolves once the flow is in the store, so a durable store has it before the URL goes out.
   */
  async issueUrlElicitation(input: IssueUrlElicitationInput): Promise<UrlElicitationParams> {
    if (typeof input.subject !== 'string' || input.subject.trim() === '')
      throw new GuardError(GuardCode.subjectRequired, 'a URL elicitation needs the verified user subject from the MCP authorization');
    if (typeof input.purpose !== 'string' || input.purpose.trim() === '')
      throw new GuardError(GuardCode.input, 'a URL elicitation needs a purpose (its message)');
    if (input.target !== undefined && input.target !== this.providerName)
      throw new GuardError(
        GuardCode.input,
        `this service connects to ${JSON.stringify(this.providerName)}, not ${JSON.stringify(String(input.target).slice(0, 60))}`,
      );
    const ttlMs = input.ttl ?? this.#defaultTtlMs;
    if (!Number.isSafeInteger(ttlMs) || ttlMs < 1 || ttlMs > MAX_TTL_MS)
      throw new GuardError(GuardCode.input, 'ttl must be a whole number of milliseconds between 1 and 24 hours');
    const now = this.#clock();
    await this.#store.sweep(now);
    const flow: ConnectFlow = {
      id: this.#token(FLOW_ID_BYTES),
      elicitationId: `el_${Buffer.from(this.#bytes(ELICITATION_ID_BYTES)).toString('hex')}`,
      subject: input.subject,
      session: input.session ?? null,
      purpose: input.purpose,
      createdAt: now,
      expiresAt: now + ttlMs,
      status: 'pending',
      attempt: null,
      retiredReason: null,
      endedAt: null,
    };
    await this.#store.add(flow);
    this.#emit({
      type: 'connect.issued',
      at: now,
      provider: this.providerName,
      elicitationId: flow.elicitationId,
      flow: shortDigest(flow.id),
      subject: shortDigest(flow.subject),
      expiresAt: flow.expiresAt,
    });
    const url = new URL(this.#baseUrl);
    url.pathname = this.connectPath + flow.id;
    return Object.freeze({ mode: 'url' as const, elicitationId: flow.elicitationId, url: url.href, message: input.purpose });
  }

  /**
   * The connect page: `subject` is who the server's own session says opened it. Only the subject the
   * flow was issued for is sent on to the provider, with a fresh state and PKCE challenge.
   */
  async openConnect(flowId: string, subject: string | null): Promise<ConnectOutcome> {
    const now = this.#clock();
    const flow = await this.#store.get(flowId);
    if (flow === null) return this.#refuse('connect', REFUSAL.unknownFlow(), null, subject, 'no flow with this id');
    if (now >= flow.expiresAt) return this.#refuse('connect', REFUSAL.expired(), flow, subject, 'the flow expired');
    if (flow.status === 'completed') return this.#refuse('connect', REFUSAL.completed(), flow, subject, 'the flow is already complete');
    if (flow.status === 'retired')
      return this.#refuse('connect', REFUSAL.retired(), flow, subject, `the flow was retired (${flow.retiredReason ?? 'unknown'})`);
    if (subject === null) return this.#refuse('connect', REFUSAL.unauthenticated(), flow, subject, 'no server session');
    if (subject !== flow.subject)
      return this.#refuse('connect', REFUSAL.mismatch(), flow, subject, 'the signed-in subject is not the subject the flow was issued for');

    let server: oauth.AuthorizationServer;
    try {
      server = await this.#discover();
    } catch {
      return this.#refuse('connect', REFUSAL.unavailable(), flow, subject, 'discovery failed');
    }
    const endpoint = server.authorization_endpoint;
    if (endpoint === undefined)
      return this.#refuse('connect', REFUSAL.unavailable(), flow, subject, 'the provider has no authorization endpoint');
    const codeVerifier = oauth.generateRandomCodeVerifier();
    const codeChallenge = await oauth.calculatePKCECodeChallenge(codeVerifier);
    const { record, stateNonce } = createNavigation(
      {
        elicitationId: flow.elicitationId,
        server: { key: this.providerName, name: null, version: null },
        subject: flow.subject,
        originalRequestDigest: null,
        url: endpoint,
        redirectPolicy: [new URL(endpoint).hostname],
        purpose: flow.purpose,
        ttlMs: flow.expiresAt - now,
        sessionGeneration: 0,
      },
      { clock: () => now, random: this.#random },
    );
    // The browser binding: a random cookie for this browser, only its digest kept with the attempt.
    const binding = this.#token(32);
    if (!(await this.#store.startAttempt(flow.id, { navigation: record, codeVerifier, browserBindingDigest: sha256Hex(binding) }))) {
      return this.#refuse('connect', REFUSAL.retired(), flow, subject, 'the flow ended while the attempt was starting');
    }

    const location = new URL(endpoint);
    location.searchParams.set('response_type', 'code');
    location.searchParams.set('client_id', this.#provider.clientId);
    location.searchParams.set('redirect_uri', this.#provider.redirectUri);
    location.searchParams.set('scope', this.#provider.scope);
    location.searchParams.set('state', stateNonce);
    location.searchParams.set('code_challenge', codeChallenge);
    location.searchParams.set('code_challenge_method', 'S256');
    if (this.#provider.audience !== undefined) location.searchParams.set('resource', this.#provider.audience);
    this.#emit({
      type: 'connect.redirected',
      at: now,
      provider: this.providerName,
      elicitationId: flow.elicitationId,
      flow: shortDigest(flow.id),
      subject: shortDigest(flow.subject),
      navigation: record.id,
    });
    return {
      kind: 'redirect',
      location: location.href,
      cookies: [bindingCookie(flow.id, binding, flow.expiresAt - now, this.#cookieOptions())],
    };
  }

  #cookieOptions(): { path: string; secure: boolean } {
    return { path: this.callbackPath, secure: this.#baseUrl.protocol === 'https:' };
  }

  /**
   * The OAuth callback: `query` is the redirect URI's query, `subject` who the server's own session
   * says the browser belongs to, `cookieHeader` the request's `Cookie` header (it carries the
   * attempt's browser binding). On success the tokens are in the vault under (flow subject,
   * provider). Any refusal for a known flow retires it: the state is burned before the first
   * check, the reason is recorded, and a code from a refused callback is never redeemed (or, when
   * a check after the exchange fails, its token is never stored and is revoked where possible).
   */
  async handleCallback(query: URLSearchParams, subject: string | null, cookieHeader: string | null = null): Promise<ConnectOutcome> {
    const state = query.get('state');
    if (state === null || state === '' || query.getAll('state').length !== 1)
      return this.#refuse('callback', REFUSAL.stateMissing(), null, subject, 'no single state parameter');
    const digest = sha256Hex(state);
    // Taken at once: whatever happens next, this state can be used no more.
    const taken = await this.#store.takeState(digest);
    switch (taken.kind) {
      case 'used': {
        this.#metrics.callbackReplayRefused += 1;
        const owner = taken.flowId === null ? null : await this.#store.get(taken.flowId);
        if (owner !== null && owner.status === 'pending')
          return this.#refuseAndRetire(REFUSAL.stateReplayed(), owner, subject, 'the state was already redeemed, refused or superseded');
        return this.#refuse('callback', REFUSAL.stateReplayed(), owner, subject, 'the state was already redeemed, refused or superseded');
      }
      case 'unknown':
        return this.#refuse('callback', REFUSAL.stateUnknown(), null, subject, 'no live flow has this state');
      case 'live':
        break;
      default:
        return assertNever(taken);
    }
    const flow = taken.flow;
    const attempt = flow.attempt;
    const now = this.#clock();
    if (now >= flow.expiresAt) return this.#refuseAndRetire(REFUSAL.expired(), flow, subject, 'the flow expired');
    if (flow.status === 'completed') return this.#refuse('callback', REFUSAL.completed(), flow, subject, 'the flow is already complete');
    if (flow.status === 'retired') return this.#refuse('callback', REFUSAL.retired(), flow, subject, 'the flow was retired');
    if (attempt === null || !matchesStateNonce(attempt.navigation, state))
      return this.#refuseAndRetire(REFUSAL.stateReplayed(), flow, subject, 'the state does not match the live attempt');
    // The browser that opened the connect page, before anything about who is signed in: a callback
    // URL pasted into another browser (the flow owner's, when the owner is the attacker) ends here.
    const sameBrowser = hasBinding(cookieHeader, flow.id, attempt.browserBindingDigest, this.#cookieOptions().secure);
    if (!sameBrowser) {
      this.#metrics.callbackReplayRefused += 1;
      return this.#refuseAndRetire(
        REFUSAL.otherBrowser(),
        flow,
        subject,
        "the callback came from a browser without this attempt's binding cookie",
      );
    }
    if (subject === null) return this.#refuseAndRetire(REFUSAL.unauthenticated(), flow, subject, 'no server session');
    if (subject !== flow.subject)
      return this.#refuseAndRetire(REFUSAL.mismatch(), flow, subject, 'the signed-in subject is not the subject the flow was issued for');

    let server: oauth.AuthorizationServer;
    try {
      server = await this.#discover();
    } catch {
      return this.#refuseAndRetire(REFUSAL.unavailable(), flow, subject, 'discovery failed');
    }
    let params: URLSearchParams;
    try {
      params = oauth.validateAuthResponse(server, this.#client, query, state);
    } catch (error) {
      if (error instanceof oauth.AuthorizationResponseError)
        return this.#refuseAndRetire(REFUSAL.providerDenied(), flow, subject, `provider error ${oauthError(error.error)}`);
      return this.#refuseAndRetire(REFUSAL.responseInvalid(), flow, subject, `authorization response invalid (${operationCode(error)})`);
    }

    let tokens: oauth.TokenEndpointResponse;
    try {
      const response = await oauth.authorizationCodeGrantRequest(
        server,
        this.#client,
        this.#clientAuth,
        params,
        this.#provider.redirectUri,
        attempt.codeVerifier,
        {
          [oauth.allowInsecureRequests]: this.#insecure,
          ...(this.#provider.audience === undefined ? {} : { additionalParameters: { resource: this.#provider.audience } }),
        },
      );
      tokens = await oauth.processAuthorizationCodeResponse(server, this.#client, response, {
        requireIdToken: this.#provider.scope.split(/\s+/).includes('openid'),
      });
    } catch (error) {
      if (error instanceof oauth.ResponseBodyError)
        return this.#refuseAndRetire(REFUSAL.tokenRefused(), flow, subject, `token endpoint error ${oauthError(error.error)}`);
      return this.#refuseAndRetire(REFUSAL.tokenInvalid(), flow, subject, `token response invalid (${operationCode(error)})`);
    }

    if (this.#provider.audience !== undefined) {
      try {
        // validateJwtAccessToken reads the token from a request's Authorization header; this request
        // is never sent anywhere: only the provider's JWKS is fetched to check the signature.
        const carrier = new Request(this.#provider.redirectUri, { headers: { authorization: `Bearer ${tokens.access_token}` } });
        await oauth.validateJwtAccessToken(server, carrier, this.#provider.audience, { [oauth.allowInsecureRequests]: this.#insecure });
      } catch (error) {
        await this.#revoke(server, tokens);
        return this.#refuseAndRetire(
          REFUSAL.audience(),
          flow,
          subject,
          `access token not for the expected audience (${operationCode(error)})`,
        );
      }
    }

    const providerSubject = await this.#providerSubject(server, tokens);
    let expectedAccount: string | null = null;
    try {
      expectedAccount = this.#providerSubjectFor === null ? null : ((await this.#providerSubjectFor(flow.subject)) ?? null);
    } catch {
      await this.#revoke(server, tokens);
      return this.#refuseAndRetire(REFUSAL.accountMismatch(), flow, subject, 'the expected provider account could not be looked up');
    }
    if (isCrossAccountBinding(expectedAccount, providerSubject)) {
      await this.#revoke(server, tokens);
      return this.#refuseAndRetire(
        REFUSAL.accountMismatch(),
        flow,
        subject,
        providerSubject === null
          ? 'the provider did not say which account the token is for'
          : "the token is for another provider account than this user's",
      );
    }

    // Claim the flow before storing: a flow retired or completed meanwhile (another callback,
    // another instance) never gets this token.
    if (!(await this.#store.complete(flow.id, this.#clock()))) {
      await this.#revoke(server, tokens);
      return this.#refuse('callback', REFUSAL.completed(), flow, subject, 'the flow ended concurrently');
    }
    const secret: StoredSecret = {
      tokenType: tokens.token_type,
      accessToken: tokens.access_token,
      ...(tokens.refresh_token === undefined ? {} : { refreshToken: tokens.refresh_token }),
      ...(tokens.expires_in === undefined ? {} : { expiresAt: now + tokens.expires_in * 1000 }),
      ...(tokens.scope === undefined ? {} : { scope: tokens.scope }),
      issuer: server.issuer,
      ...(providerSubject === null ? {} : { providerSubject }),
    };
    const boundTo = flow.subject;
    try {
      await this.#vault.put(boundTo, this.providerName, secret);
    } catch {
      await this.#revoke(server, tokens);
      return this.#refuseAndRetire(REFUSAL.vault(), flow, subject, 'the vault refused the token');
    }
    this.#metrics.tokensBound += 1;
    if (isCrossSubjectBinding(boundTo, flow.subject, subject) || isCrossAccountBinding(expectedAccount, providerSubject))
      this.#metrics.crossSubjectBindings += 1;
    if (!hasBinding(cookieHeader, flow.id, attempt.browserBindingDigest, this.#cookieOptions().secure))
      this.#metrics.bindingsByOtherBrowser += 1;
    this.#emit({
      type: 'connect.completed',
      at: this.#clock(),
      provider: this.providerName,
      elicitationId: flow.elicitationId,
      flow: shortDigest(flow.id),
      subject: shortDigest(flow.subject),
      scope: tokens.scope ?? null,
    });
    this.#wake(flow.id);
    if (this.#onComplete !== null) {
      try {
        await this.#onComplete({
          elicitationId: flow.elicitationId,
          subject: flow.subject,
          session: flow.session,
          provider: this.providerName,
        });
      } catch {
        this.#emit(
          refusedEvent(
            this.#clock(),
            this.providerName,
            'completion',
            { ...REFUSAL.completed(), status: 200, code: ConnectCode.completionFailed },
            flow,
            subject,
            'the completion callback failed',
            false,
          ),
        );
      }
    }
    return { kind: 'completed', elicitationId: flow.elicitationId, cookies: [clearBindingCookie(flow.id, this.#cookieOptions())] };
  }

  #discover(): Promise<oauth.AuthorizationServer> {
    if (this.#server === null) {
      const issuer = new URL(this.#provider.issuer);
      const pending = oauth
        .discoveryRequest(issuer, { algorithm: 'oidc', [oauth.allowInsecureRequests]: this.#insecure })
        .then((response) => oauth.processDiscoveryResponse(issuer, response))
        .then((server) => {
          // allowInsecureRequests lets oauth4webapi talk plain http to any endpoint the metadata
          // names; hold those to loopback too, as the configured URLs are.
          for (const key of ['authorization_endpoint', 'token_endpoint', 'jwks_uri', 'userinfo_endpoint', 'revocation_endpoint'] as const) {
            const value = server[key];
            if (typeof value === 'string' && !isSecureOrLoopback(new URL(value)))
              throw configError(`the provider's ${key} uses plain http on a host that is not loopback`);
          }
          return server;
        });
      // A failed discovery is retried on the next request instead of being remembered.
      pending.catch(() => {
        if (this.#server === pending) this.#server = null;
      });
      this.#server = pending;
    }
    return this.#server;
  }

  #refuse(
    stage: 'connect' | 'callback',
    outcome: ConnectOutcome & { kind: 'refused' },
    flow: ConnectFlow | null,
    subject: string | null,
    reason: string,
  ): ConnectOutcome {
    this.#emit(refusedEvent(this.#clock(), this.providerName, stage, outcome, flow, subject, reason, false));
    return outcome;
  }

  /**
   * Refuses a callback for a known flow and ends the flow: its state is burned and the reason is
   * recorded, so nobody (the attacker who asked for the victim's callback URL included) can try the
   * same flow again. The rightful user pays one retry; see the README on this trade-off.
   */
  async #refuseAndRetire(
    outcome: ConnectOutcome & { kind: 'refused' },
    flow: ConnectFlow,
    subject: string | null,
    reason: string,
  ): Promise<ConnectOutcome> {
    let retired = false;
    try {
      retired = await this.#store.retire(flow.id, outcome.code, this.#clock());
    } catch {
      // The state was taken before any check, so the flow cannot bind even if recording the end failed.
    }
    if (retired) this.#metrics.flowsRetired += 1;
    this.#wake(flow.id);
    const ended = {
      ...outcome,
      message: outcome.message + START_AGAIN,
      retired: true,
      cookies: [clearBindingCookie(flow.id, this.#cookieOptions())],
    };
    this.#emit(refusedEvent(this.#clock(), this.providerName, 'callback', ended, flow, subject, reason, true));
    return ended;
  }

  /** The provider's word on which account the token is for: the ID token's `sub`, else userinfo's; `null` when neither says. */
  async #providerSubject(server: oauth.AuthorizationServer, tokens: oauth.TokenEndpointResponse): Promise<string | null> {
    const claims = oauth.getValidatedIdTokenClaims(tokens);
    if (claims !== undefined) return claims.sub;
    if (server.userinfo_endpoint === undefined) return null;
    try {
      const response = await oauth.userInfoRequest(server, this.#client, tokens.access_token, {
        [oauth.allowInsecureRequests]: this.#insecure,
      });
      return (await oauth.processUserInfoResponse(server, this.#client, oauth.skipSubjectCheck, response)).sub;
    } catch {
      return null;
    }
  }

  /** Best effort: a token from a refused callback is never stored, and the provider is asked to revoke it. */
  async #revoke(server: oauth.AuthorizationServer, tokens: oauth.TokenEndpointResponse): Promise<void> {
    if (server.revocation_endpoint === undefined) return;
    for (const token of [tokens.refresh_token, tokens.access_token]) {
      if (token === undefined) continue;
      try {
        await oauth.processRevocationResponse(
          await oauth.revocationRequest(server, this.#client, this.#clientAuth, token, { [oauth.allowInsecureRequests]: this.#insecure }),
        );
      } catch {
        // Nothing more to do: the token was never stored and is not used.
      }
    }
  }

  #emit(event: ConnectEvent): void {
    try {
      this.#audit?.write(event);
    } catch {
      // An audit sink that throws must not turn a refusal into an acceptance or a crash.
    }
  }

  #bytes(n: number): Uint8Array {
    const bytes = this.#random(n);
    if (!(bytes instanceof Uint8Array) || bytes.length !== n)
      throw new GuardError(GuardCode.internal, `random(${n}) must return ${n} bytes`);
    return bytes;
  }

  #token(n: number): string {
    return Buffer.from(this.#bytes(n)).toString('base64url');
  }
}

function refusedEvent(
  at: number,
  provider: string,
  stage: 'connect' | 'callback' | 'completion',
  outcome: { status: number; code: ConnectCode },
  flow: ConnectFlow | null,
  subject: string | null,
  reason: string,
  retired: boolean,
): ConnectEvent {
  return {
    type: 'connect.refused',
    at,
    provider,
    code: outcome.code,
    status: outcome.status,
    stage,
    elicitationId: flow?.elicitationId ?? null,
    flow: flow === null ? null : shortDigest(flow.id),
    subject: subject === null ? null : shortDigest(subject),
    expectedSubject: flow === null ? null : shortDigest(flow.subject),
    reason,
    retired,
  };
}

function oauthError(code: string): string {
  return OAUTH_ERROR.test(code) ? code : 'other';
}

function operationCode(error: unknown): string {
  const code = error instanceof oauth.OperationProcessingError || error instanceof oauth.UnsupportedOperationError ? error.code : undefined;
  return typeof code === 'string' && /^[A-Z_]{1,64}$/.test(code) ? code : 'other';
}

function assertNever(value: never): never {
  throw new GuardError(GuardCode.internal, `unhandled case ${JSON.stringify(value)}`);
}

export interface ConnectHandlerOptions {
  /** Who the server's own session says this browser belongs to (a signed cookie, say), or `null`. */
  readonly authenticate: (req: IncomingMessage) => string | null | Promise<string | null>;
  /** Where to send a browser without a session from a connect page; `returnTo` is the page's path. */
  readonly login?: (returnTo: string) => string;
  /** Requests for other paths; a 404 page when omitted. */
  readonly next?: (req: IncomingMessage, res: ServerResponse) => void;
}

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
};

/**
 * A `node:http` request handler for the connect pages (`GET <base>/connect/:id`) and the OAuth
 * callback (`GET <redirect path>`). Mount it in Express or Hono as a Node handler.
 */
export function connectHandler(
  service: ConnectService,
  options: ConnectHandlerOptions,
): (req: IncomingMessage, res: ServerResponse) => void {
  if (typeof options?.authenticate !== 'function') throw configError('connectHandler needs an authenticate(req) function');
  return (req, res) => {
    void route(service, options, req, res).catch(() => {
      if (!res.headersSent) send(res, 500, page('Something went wrong', 'Nothing was connected. Try again later.'));
      else res.end();
    });
  };
}

async function route(service: ConnectService, options: ConnectHandlerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://connect.invalid');
  const isConnect = url.pathname.startsWith(service.connectPath) && url.pathname.length > service.connectPath.length;
  const isCallback = url.pathname === service.callbackPath;
  if (!isConnect && !isCallback) {
    if (options.next !== undefined) options.next(req, res);
    else send(res, 404, page('Not found', 'There is nothing here.'));
    return;
  }
  // GET only: a HEAD from a link checker must not start (and so supersede) an attempt.
  if (req.method !== 'GET') {
    res.setHeader('allow', 'GET');
    send(res, 405, page('Method not allowed', 'Open this link in a browser.'));
    return;
  }
  const subject = await options.authenticate(req);
  let outcome: ConnectOutcome;
  if (isConnect) {
    const flowId = url.pathname.slice(service.connectPath.length);
    if (subject === null && options.login !== undefined) {
      redirect(res, options.login(url.pathname));
      return;
    }
    outcome = await service.openConnect(flowId, subject);
  } else {
    outcome = await service.handleCallback(url.searchParams, subject, req.headers.cookie ?? null);
  }
  if (outcome.cookies !== undefined && outcome.cookies.length > 0) res.setHeader('set-cookie', [...outcome.cookies]);
  switch (outcome.kind) {
    case 'redirect':
      redirect(res, outcome.location);
      return;
    case 'completed':
      send(res, 200, page('Connected', 'The connection is saved. You can close this window and return to your assistant.'));
      return;
    case 'refused':
      send(res, outcome.status, page(outcome.title, outcome.message));
      return;
    default:
      assertNever(outcome);
  }
}

function send(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'text/html; charset=utf-8' });
  res.end(html);
}

function redirect(res: ServerResponse, location: string): void {
  res.writeHead(302, { ...SECURITY_HEADERS, location });
  res.end();
}
