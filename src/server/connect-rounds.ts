/**
 * URL elicitations of a `ConnectService` for SDK v2 servers, in both protocol eras.
 *
 * 2026-07-28 has no server-to-client requests, no `elicitationId` and no completion notice: a tool
 * answers `input_required` with an embedded URL-mode `elicitation/create` and a `requestState`, and
 * the client retries the same call with the user's answer in `inputResponses` and the state echoed.
 * The state comes back from the client, so it is attacker-controlled: it is sealed with the SDK's
 * own HMAC codec (`createRequestStateCodec`), bound to the provider, the method and the verified
 * subject, and names the flow. On the retry the tool goes on only when that flow completed for that
 * subject and its token is in the vault, and only once per flow; otherwise the retry waits a while
 * on the server for the browser step and then answers "not done yet" (an `input_required` result
 * carrying only a fresh `requestState`), so the client retries again.
 *
 * 2025-11-25 requests (a legacy-era client on the same v2 server) get the 2025 path instead: the
 * `-32042` error (the SDK v2 class, which a v2 server passes on unchanged to a 2025 request) listing
 * the same connect URL; the client retries once its user has finished.
 *
 * `@modelcontextprotocol/server` (SDK v2) is loaded on first use, so the rest of the companion
 * works without it.
 */
import type {
  CallToolResult,
  ElicitRequestURLParams,
  InputRequiredResult,
  RequestStateCodec,
  ServerContext,
} from '@modelcontextprotocol/server';
import { GuardCode, GuardError } from '../protocol/errors.js';
import { checkEntry } from './completion.js';
import type { ConnectFlowView, ConnectService } from './connect.js';
import { ServerCode } from './errors.js';
import type { SecretVault, StoredSecret } from './vault-types.js';

type SdkV2 = typeof import('@modelcontextprotocol/server');

let sdk: Promise<SdkV2> | null = null;
function loadSdk(): Promise<SdkV2> {
  sdk ??= import('@modelcontextprotocol/server').catch((error: unknown) => {
    sdk = null;
    throw new GuardError(
      GuardCode.input,
      `ConnectRounds needs the MCP TypeScript SDK v2 server package: npm install @modelcontextprotocol/server (${String(error)})`,
    );
  });
  return sdk;
}

export interface ConnectRoundsOptions {
  /**
   * The HMAC key that seals every `requestState`: at least 32 bytes (a string is UTF-8). Give every
   * instance that may receive a retry the same key; a new key refuses the states sealed before it.
   */
  readonly key: Uint8Array | string;
  /**
   * The verified MCP subject of a request, from your MCP authorization (the access token's `sub`,
   * e.g. `ctx.http?.authInfo?.extra?.sub`); `null` when the request carries none. Never a name the
   * client reported.
   */
  readonly subject: (ctx: ServerContext) => string | null | undefined;
  /** The `inputRequests` key of the URL request: `connect`. */
  readonly inputKey?: string;
  /**
   * How long one retry waits on the server for the browser step before answering "not done yet":
   * 20 seconds (well inside a client's request timeout). 0 answers at once.
   */
  readonly waitMs?: number;
  /** How long a sealed `requestState` is honoured, in seconds: 600. The flow's own expiry also applies. */
  readonly stateTtlSeconds?: number;
  /** How often a waiting retry reads the flow store (for callbacks handled by another instance): 500 ms. */
  readonly pollMs?: number;
  /** Plain-http connect URLs on a loopback host, for development (as `urlElicitationRequired`'s `allowHttpLoopback`). */
  readonly allowHttpLoopback?: boolean;
}

export interface ConnectRoundInput {
  /** Why the user is asked: the elicitation's `message`. */
  readonly purpose: string;
  /** How long a new flow stays open, in milliseconds (the service's default when omitted). */
  readonly ttl?: number;
}

/**
 * What `ConnectRounds.connect` came to for one call of the tool. Every kind but `connected` carries
 * the `result` the tool returns as it is: `if (step.kind !== 'connected') return step.result`.
 */
export type ConnectStep =
  /** The user's token is in the vault: go on with it (server-side; it never goes back to the client). */
  | { readonly kind: 'connected'; readonly subject: string; readonly secret: StoredSecret }
  /** The URL request (first round) or "not done yet" (a retry before the callback): the client retries. */
  | { readonly kind: 'input_required'; readonly result: InputRequiredResult }
  /** The user declined or cancelled the URL request: a tool error saying so. */
  | { readonly kind: 'declined'; readonly action: 'decline' | 'cancel'; readonly result: CallToolResult }
  /**
   * The retry was refused (`E_REQUEST_STATE_INVALID`, `E_REQUEST_STATE_REPLAYED`,
   * `E_CONNECT_FLOW_ENDED`): a tool error naming the code; nothing was connected or run.
   */
  | { readonly kind: 'refused'; readonly code: ServerCode; readonly error: GuardError<ServerCode>; readonly result: CallToolResult };

/** The sealed payload: which flow of which service. Signed, not encrypted; the client holds the same URL. */
interface RoundState {
  readonly k: typeof STATE_KIND;
  /** The connect URL of the flow. */
  readonly u: string;
  /** The round: 1 with the URL request, one more for each "not done yet" (so no two rounds share a state). */
  readonly r: number;
}

const STATE_KIND = 'mcp-elicitation-guard/connect';
const DEFAULT_WAIT_MS = 20_000;
const MAX_WAIT_MS = 5 * 60_000;
const SPENT_CAPACITY = 10_000;
const CODEC_REASONS = new Set(['malformed', 'mac', 'expired', 'bind']);

/**
 * The rounds of URL elicitations bound to the verified user, for an SDK v2 `McpServer` tool.
 *
 * @example
 * const rounds = new ConnectRounds(connect, { key: stateKey, subject: (ctx) => ctx.http?.authInfo?.extra?.['sub'] as string })
 * server.registerTool('list_files', {}, async (ctx) => {
 *   const step = await rounds.connect(ctx, { purpose: 'Connect your Acme account' })
 *   if (step.kind === 'input_required') return step.result
 *   if (step.kind === 'declined') return { content: [{ type: 'text', text: 'Not connected.' }], isError: true }
 *   return useToken(step.secret)
 * })
 */
export class ConnectRounds {
  readonly #service: ConnectService;
  readonly #vault: SecretVault;
  readonly #key: Uint8Array | string;
  readonly #subject: (ctx: ServerContext) => string | null | undefined;
  readonly #inputKey: string;
  readonly #waitMs: number;
  readonly #ttlSeconds: number;
  readonly #pollMs: number;
  readonly #allowHttpLoopback: boolean;
  #codec: Promise<RequestStateCodec<RoundState>> | null = null;
  /** Payloads this instance's `verify` produced (what the SDK's `requestState.verify` hook hands the handler). */
  readonly #verified = new WeakSet<object>();
  /** Flows whose continuation was used, until the flow would have expired. */
  readonly #spent = new Map<string, number>();
  readonly #metrics = { issued: 0, connected: 0, notYet: 0, refused: 0 };

  constructor(service: ConnectService, options: ConnectRoundsOptions) {
    if (typeof service?.flowOf !== 'function') throw new GuardError(GuardCode.input, 'ConnectRounds needs a ConnectService');
    const keyBytes = typeof options?.key === 'string' ? Buffer.byteLength(options.key, 'utf8') : options?.key?.byteLength;
    if (!(options?.key instanceof Uint8Array || typeof options?.key === 'string') || keyBytes === undefined || keyBytes < 32)
      throw new GuardError(
        GuardCode.input,
        'ConnectRounds: key must be at least 32 bytes (e.g. randomBytes(32)), the same on every instance',
      );
    if (typeof options.subject !== 'function')
      throw new GuardError(GuardCode.input, 'ConnectRounds: subject(ctx) must return the verified MCP subject of a request');
    const waitMs = options.waitMs ?? DEFAULT_WAIT_MS;
    if (!Number.isSafeInteger(waitMs) || waitMs < 0 || waitMs > MAX_WAIT_MS)
      throw new GuardError(GuardCode.input, 'ConnectRounds: waitMs must be a whole number of milliseconds from 0 to 300000');
    const ttl = options.stateTtlSeconds ?? 600;
    if (!Number.isSafeInteger(ttl) || ttl < 1 || ttl > 86_400)
      throw new GuardError(GuardCode.input, 'ConnectRounds: stateTtlSeconds must be a whole number of seconds from 1 to 86400');
    const pollMs = options.pollMs ?? 500;
    if (!Number.isSafeInteger(pollMs) || pollMs < 10 || pollMs > 60_000)
      throw new GuardError(GuardCode.input, 'ConnectRounds: pollMs must be a whole number of milliseconds from 10 to 60000');
    const inputKey = options.inputKey ?? 'connect';
    if (typeof inputKey !== 'string' || !/^[A-Za-z0-9_.-]{1,64}$/.test(inputKey))
      throw new GuardError(GuardCode.input, 'ConnectRounds: inputKey must be 1 to 64 letters, digits, "_", "." or "-"');
    this.#service = service;
    this.#vault = service.vault;
    this.#key = options.key;
    this.#subject = options.subject;
    this.#inputKey = inputKey;
    this.#waitMs = waitMs;
    this.#ttlSeconds = ttl;
    this.#pollMs = pollMs;
    this.#allowHttpLoopback = options.allowHttpLoopback === true;
  }

  /** Counters: URL requests issued, tools let go on, "not done yet" rounds, retries refused. */
  metrics(): { readonly issued: number; readonly connected: number; readonly notYet: number; readonly refused: number } {
    return { ...this.#metrics };
  }

  /**
   * Drop-in `ServerOptions.requestState.verify` for an `McpServer` whose only multi-round tools use
   * these rounds: the SDK then refuses a bad state before the tool runs (its frozen `-32602`), and
   * `connect` takes the payload it verified. Without the hook, `connect` verifies the state itself
   * and refuses with a `ServerCode`.
   */
  readonly verify = async (state: string, ctx: ServerContext): Promise<RoundState> => {
    const payload = await (await this.#codecOf()).verify(state, ctx);
    if (!isRoundState(payload)) throw new Error('shape');
    this.#verified.add(payload);
    return payload;
  };

  /**
   * One call of the tool; see `ConnectStep`. Throws `E_SUBJECT_REQUIRED` (a `GuardError`) when the
   * request has no verified subject, and on a 2025-11-25 request the `-32042` error in place of the
   * first `input_required` round (let both propagate out of the tool).
   */
  async connect(ctx: ServerContext, input: ConnectRoundInput): Promise<ConnectStep> {
    if (typeof ctx?.mcpReq?.requestState !== 'function')
      throw new GuardError(
        GuardCode.input,
        'ConnectRounds.connect takes the SDK v2 handler context (ctx); with SDK v1 use issueUrlElicitation and urlElicitationRequired',
      );
    const v2 = await loadSdk();
    const subject = this.#subject(ctx);
    if (typeof subject !== 'string' || subject.trim() === '')
      throw new GuardError(GuardCode.subjectRequired, 'a URL elicitation needs the verified user subject from the MCP authorization');
    const raw: unknown = ctx.mcpReq.requestState();
    if (raw === undefined) {
      const secret = await this.#vault.get(subject, this.#service.providerName);
      if (secret !== null) return { kind: 'connected', subject, secret };
      return this.#ask(v2, ctx, subject, input);
    }
    try {
      return await this.#continue(v2, ctx, subject, raw);
    } catch (error) {
      if (!GuardError.is(error) || !REFUSALS.has(error.code)) throw error;
      const refusal = error as GuardError<ServerCode>;
      this.#metrics.refused += 1;
      return { kind: 'refused', code: refusal.code, error: refusal, result: toolError(`${refusal.code}: ${refusal.message}`) };
    }
  }

  async #continue(v2: SdkV2, ctx: ServerContext, subject: string, raw: unknown): Promise<ConnectStep> {
    const state = await this.#stateOf(raw, ctx);
    const flowKey = state.u;
    if (this.#isSpent(flowKey)) throw replayed();
    const answer = v2.inputResponse(ctx.mcpReq.inputResponses, this.#inputKey);
    if (answer.kind === 'elicit' && answer.action !== 'accept')
      return {
        kind: 'declined',
        action: answer.action,
        result: toolError(`Not connected: the request to connect was ${answer.action === 'decline' ? 'declined' : 'cancelled'}.`),
      };

    let flow: ConnectFlowView | null = await this.#service.flowOf(state.u);
    if (flow !== null && flow.subject !== subject)
      throw new GuardError(ServerCode.requestStateInvalid, 'the requestState names a flow of another subject', { reason: 'subject' });
    const deadline = Date.now() + this.#waitMs;
    for (;;) {
      if (flow === null || flow.status === 'retired' || (flow.status === 'pending' && flow.expired)) throw ended(flow);
      if (flow.status === 'completed') {
        const secret = await this.#vault.get(subject, this.#service.providerName);
        if (secret !== null) {
          // Checked and spent with no await in between: two retries of one state cannot both go on.
          if (this.#isSpent(flowKey)) throw replayed();
          this.#spend(flowKey, flow.expiresAt);
          this.#metrics.connected += 1;
          return { kind: 'connected', subject, secret };
        }
      }
      const left = deadline - Date.now();
      if (left <= 0 || ctx.mcpReq.signal.aborted) break;
      if (flow.status === 'completed') {
        // Completed a moment ago and its token still being stored (or removed since): look again shortly.
        await new Promise((resolve) => setTimeout(resolve, Math.min(left, this.#pollMs)));
        flow = await this.#service.flowOf(state.u);
      } else {
        flow = await this.#service.waitForFlow(state.u, { timeoutMs: left, pollMs: this.#pollMs, signal: ctx.mcpReq.signal });
      }
    }
    // Not done yet: the client retries with this fresh state (the browser step is still open).
    this.#metrics.notYet += 1;
    return { kind: 'input_required', result: v2.inputRequired({ requestState: await this.#seal(state.u, state.r + 1, ctx) }) };
  }

  async #ask(v2: SdkV2, ctx: ServerContext, subject: string, input: ConnectRoundInput): Promise<ConnectStep> {
    const params = await this.#service.issueUrlElicitation({
      subject,
      purpose: input.purpose,
      session: ctx.sessionId ?? null,
      ...(input.ttl === undefined ? {} : { ttl: input.ttl }),
    });
    // The same checks as a 2025 -32042 list: https (or http on loopback in development), no secrets in the URL.
    const checked: ElicitRequestURLParams = checkEntry(params, 0, this.#allowHttpLoopback);
    this.#metrics.issued += 1;
    if (!isModernRequest(ctx, v2)) {
      // 2025-11-25: the -32042 error, which a v2 server passes on unchanged to a 2025 request.
      throw new v2.UrlElicitationRequiredError([checked]);
    }
    return {
      kind: 'input_required',
      result: v2.inputRequired({
        inputRequests: { [this.#inputKey]: v2.inputRequired.elicitUrl({ message: checked.message, url: checked.url }) },
        requestState: await this.#seal(params.url, 1, ctx),
      }),
    };
  }

  async #stateOf(raw: unknown, ctx: ServerContext): Promise<RoundState> {
    if (typeof raw === 'object' && raw !== null) {
      // Decoded by the SDK's requestState.verify hook: only a payload this instance verified counts.
      if (this.#verified.has(raw) && isRoundState(raw)) return raw;
      throw new GuardError(ServerCode.requestStateInvalid, 'the requestState was not verified by these rounds', { reason: 'foreign' });
    }
    if (typeof raw !== 'string')
      throw new GuardError(ServerCode.requestStateInvalid, 'the requestState is not a string', { reason: 'malformed' });
    try {
      return await this.verify(raw, ctx);
    } catch (error) {
      const reason = error instanceof Error && CODEC_REASONS.has(error.message) ? error.message : 'malformed';
      throw new GuardError(
        ServerCode.requestStateInvalid,
        reason === 'expired'
          ? 'the requestState has expired; call the tool again'
          : 'the requestState was not issued by this server for this user and request',
        { reason },
      );
    }
  }

  #seal(connectUrl: string, round: number, ctx: ServerContext): Promise<string> {
    return this.#codecOf().then((codec) => codec.mint({ k: STATE_KIND, u: connectUrl, r: round }, ctx));
  }

  #codecOf(): Promise<RequestStateCodec<RoundState>> {
    this.#codec ??= loadSdk().then((v2) =>
      v2.createRequestStateCodec<RoundState>({
        key: this.#key,
        ttlSeconds: this.#ttlSeconds,
        // The SDK keeps only an HMAC tag of this: the subject never appears in the wire value.
        bind: (ctx) => [STATE_KIND, this.#service.providerName, ctx.mcpReq.method, this.#subject(ctx) ?? ''].join('\0'),
      }),
    );
    return this.#codec;
  }

  #isSpent(flowKey: string): boolean {
    const until = this.#spent.get(flowKey);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    this.#spent.delete(flowKey);
    return false;
  }

  #spend(flowKey: string, until: number): void {
    if (this.#spent.size >= SPENT_CAPACITY) {
      const now = Date.now();
      for (const [key, end] of this.#spent) if (end <= now) this.#spent.delete(key);
      // Still full: the oldest entry goes (its flow is the nearest to expiring, and then unknown anyway).
      if (this.#spent.size >= SPENT_CAPACITY) this.#spent.delete(this.#spent.keys().next().value as string);
    }
    this.#spent.set(flowKey, until);
  }
}

const REFUSALS = new Set<string>([ServerCode.requestStateInvalid, ServerCode.requestStateReplayed, ServerCode.connectFlowEnded]);

function replayed(): GuardError<ServerCode> {
  return new GuardError(ServerCode.requestStateReplayed, 'this connection already let its tool go on once; call the tool again');
}

function ended(flow: ConnectFlowView | null): GuardError<ServerCode> {
  return new GuardError(
    ServerCode.connectFlowEnded,
    flow === null
      ? 'this connection is no longer known; call the tool again to start a new one'
      : flow.status === 'retired'
        ? 'this connection was stopped after a refused attempt; call the tool again to start a new one'
        : 'this connection expired before it was completed; call the tool again to start a new one',
  );
}

function toolError(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

function isRoundState(value: unknown): value is RoundState {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    v['k'] === STATE_KIND &&
    typeof v['u'] === 'string' &&
    v['u'].length < 2048 &&
    typeof v['r'] === 'number' &&
    Number.isSafeInteger(v['r']) &&
    v['r'] >= 1
  );
}

/** A 2026-07-28 request carries the protocol version in its `_meta` envelope; a 2025 request has none. */
function isModernRequest(ctx: ServerContext, v2: SdkV2): boolean {
  return typeof (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[v2.PROTOCOL_VERSION_META_KEY] === 'string';
}
