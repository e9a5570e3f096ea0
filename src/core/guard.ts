import { randomBytes } from 'node:crypto';
import { FlowBook } from '../flow/book.js';
import type { ConsentDecision, ShownToUser } from '../flow/records.js';
import { allowedModes, declaredModes, modesEqual, narrowCapabilities } from '../negotiation/capabilities.js';
import { toPolicyDocument, type Policy } from '../policy/policy.js';
import { shortDigest } from '../protocol/digest.js';
import { GuardCode, GuardError } from '../protocol/errors.js';
import {
  field,
  isJsonRpcId,
  isRecord,
  kindOf,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '../protocol/jsonrpc.js';
import type { UrlAnalysis } from '../url/types.js';
import type { WireCodec } from '../wire/codec.js';
import { Method } from '../protocol/wire.js';
import { rev2025_11_25 } from '../wire/rev2025-11-25.js';
import { claimFrom, metaIn, RESULT_TYPE_INPUT_REQUIRED, versionIn } from '../wire/rev2026-07-28.js';
import type { Guard, GuardOptions, GuardSessionView } from './api.js';
import { drop, forward, reply, type Decision } from './decision.js';
import { onAnswer, onServerResponse } from './answers.js';
import { dropped, idInUse, onElicitation, type Translation } from './elicitations.js';
import type { ServerIdentity } from './events.js';
import type { FlowView, OpenTicket, Opener } from './flows.js';
import { emptyMetrics, type GuardMetrics } from './metrics.js';
import { ModernSide } from './modern.js';
import { Reporter } from './reporter.js';
import { Session } from './session.js';
import { sharedLedgerCheck } from './shared.js';

export type { Guard, GuardOptions, GuardSessionView } from './api.js';

/** Creates the guard for one session. */
export function createGuard(options: GuardOptions = {}): Guard {
  return new GuardCore(options);
}

/**
 * For this package's adapters (not part of the public API): `guard.inbound(message)`, except that
 * it returns `null` where that Decision would forward the message untouched with nothing to report.
 * The messages most traffic consists of (a plain request, the final answer to one) then cost no
 * Decision; they are ruled on by the same book and the same state, only the Decision is left out.
 * A guard that is not this module's, or whose method was replaced, is asked through its method.
 */
export function judgeInbound(guard: Guard, message: unknown): Decision | null {
  return guard instanceof GuardCore ? GuardCore.inboundOrPass(guard, message) : guard.inbound(message);
}

/** `judgeInbound` for a message from the host to the server. */
export function judgeOutbound(guard: Guard, message: unknown): Decision | null {
  return guard instanceof GuardCore ? GuardCore.outboundOrPass(guard, message) : guard.outbound(message);
}

/**
 * Translates: each JSON-RPC message becomes era-neutral facts through the session's wire codec, the
 * checkers judge what elicitations ask and answers carry, the flow book rules on everything that
 * needs memory, and the rulings become a Decision. No state of its own beyond the negotiation.
 */
class GuardCore implements Guard {
  readonly policy: Policy;
  readonly #serverKey: string | null;
  readonly #subject: string | null;
  readonly #report: Reporter;
  readonly #codec: WireCodec = rev2025_11_25;
  readonly #session = new Session();
  readonly #metrics = emptyMetrics();
  readonly #book: FlowBook<UrlAnalysis>;
  readonly #ctx: Translation;
  /** Spec 2026-07-28: era detection, input-required results, retries' inputResponses (core/modern.ts). */
  readonly #modern: ModernSide;

  constructor(options: GuardOptions) {
    this.policy = toPolicyDocument(options.policy).forServer(options.server);
    this.#serverKey = options.server ?? null;
    if (
      options.sessionKey !== undefined &&
      (typeof options.sessionKey !== 'string' || options.sessionKey.length < 1 || options.sessionKey.length > 200)
    ) {
      throw new GuardError(GuardCode.input, 'sessionKey must be a string of 1 to 200 characters');
    }
    const clock = options.clock ?? Date.now;
    const random = options.random ?? ((n: number) => randomBytes(n));
    this.#subject = options.subject ?? null;
    this.#report = new Reporter(
      clock,
      options.onEvent,
      () => this.#server(),
      () => this.#book.generation,
    );
    this.#book = new FlowBook({
      policy: this.policy,
      deps: { clock, random },
      store: options.ledger ?? null,
      sessionId: options.sessionKey ?? Buffer.from(random(12)).toString('base64url'),
      sharedSession: options.sessionKey !== undefined,
      onWriteError: (error) =>
        this.#report.emit(
          this.#report.event({
            type: 'guard.error',
            code: GuardCode.ledgerUnavailable,
            message: `ledger write failed: ${(error as Error)?.message ?? String(error)}`,
          }),
        ),
      onNote: (note) => this.#report.note(note),
    });
    if (this.policy.issuing === 'stopped') this.#book.revokeAll();
    const { policy } = this;
    this.#ctx = {
      policy,
      codec: this.#codec,
      session: this.#session,
      book: this.#book,
      metrics: this.#metrics,
      report: this.#report,
      subject: this.#subject,
      server: () => this.#server(),
    };
    this.#modern = new ModernSide(this.#ctx);
  }

  pendingFlows(): FlowView[] {
    return this.#book.pending();
  }

  flow(elicitationId: string): FlowView | null {
    return this.#book.view(elicitationId);
  }

  recordConsent(elicitationId: string, decision: ConsentDecision, shown?: ShownToUser): Promise<OpenTicket | null> {
    return this.#book.consent(elicitationId, decision, shown);
  }

  openUrl(ticket: OpenTicket, opener: Opener): Promise<void> {
    return this.#book.opened(ticket, opener);
  }

  confirmFlow(elicitationId: string): FlowView {
    return this.#report.recorded(() => this.#book.confirm(elicitationId));
  }

  retryFlow(elicitationId: string): FlowView {
    return this.#report.recorded(() => this.#book.retry(elicitationId));
  }

  cancelFlow(elicitationId: string): FlowView {
    return this.#report.recorded(() => this.#book.cancel(elicitationId));
  }

  flush(): Promise<void> {
    return this.#book.flush();
  }

  issuing(): 'open' | 'stopped' {
    return this.#ctx.policy.issuing;
  }

  setIssuing(issuing: 'open' | 'stopped'): void {
    if (issuing !== 'open' && issuing !== 'stopped') throw new GuardError(GuardCode.input, 'issuing must be "open" or "stopped"');
    // The checkers read the policy from the translation context on every message, so the switch
    // takes effect with the next one; `guard.policy` stays the policy the guard was created with.
    (this.#ctx as { policy: Policy }).policy = Object.freeze({ ...this.#ctx.policy, issuing });
    if (issuing === 'open') this.#book.resumeIssuing();
    this.#report.emit(this.#report.event({ type: 'issuing.changed', issuing }));
  }

  revokeNonces(): number {
    const revoked = this.#book.revokeNonces();
    this.#report.emit(this.#report.event({ type: 'nonces.revoked', revoked }));
    return revoked;
  }

  session(): GuardSessionView {
    const s = this.#session;
    const legacy = { initialized: s.initialized, protocolVersion: s.protocolVersion, declaredModes: s.declared, modes: s.modes };
    return { generation: this.#book.generation, ...this.#modern.view(legacy), server: this.#server() };
  }

  metrics(): Readonly<GuardMetrics> {
    return { ...this.#metrics, ...this.#book.counters };
  }

  inbound(message: unknown): Decision {
    return this.#judge('inbound', message);
  }

  outbound(message: unknown): Decision {
    return this.#judge('outbound', message);
  }

  static inboundOrPass(guard: GuardCore, message: unknown): Decision | null {
    if (guard.inbound !== GuardCore.prototype.inbound) return guard.inbound(message);
    try {
      if (guard.#passesInbound(message)) return null;
    } catch {
      // Judged in full below, where a failure is handled.
    }
    return guard.#judge('inbound', message);
  }

  static outboundOrPass(guard: GuardCore, message: unknown): Decision | null {
    if (guard.outbound !== GuardCore.prototype.outbound) return guard.outbound(message);
    try {
      if (guard.#passesOutbound(message)) return null;
    } catch {
      // Judged in full below, where a failure is handled.
    }
    return guard.#judge('outbound', message);
  }

  /**
   * The server's final answer to a plain host request, which `#inbound` would forward untouched with
   * nothing to report: read as `#inbound` reads it (kind, id, result type, outcome), and settled by
   * the same book (or modern side) methods, which change the state only once everything is read.
   * False, having changed nothing, for anything else.
   */
  #passesInbound(message: unknown): boolean {
    // kindOf's `result` with no `error` (which would make the outcome an error), as classifyInbound reads it.
    if (!isRecord(message) || typeof message.method === 'string' || !('result' in message) || 'error' in message) return false;
    const id = message.id;
    if (!isJsonRpcId(id)) return false;
    const result = message.result;
    if (!isRecord(result) || result.resultType === RESULT_TYPE_INPUT_REQUIRED) return false;
    if (this.#modern.owns(id)) return this.#modern.passesResult(id, result);
    // The outcome is `result`, not `task`, and it does not answer the handshake.
    if (isRecord(result.task) && typeof result.task.taskId === 'string') return false;
    return id !== this.#session.handshakeId && this.#book.passesResult(id);
  }

  /**
   * A host request that `#outbound` would forward untouched with nothing to report: read as
   * `#outbound` reads it (each member once, with `field`), then recorded by the same book (or modern
   * side) method once everything is read. False, having changed nothing, for anything else.
   */
  #passesOutbound(message: unknown): boolean {
    if (!isRecord(message)) return false;
    const method = field(message, 'method');
    if (typeof method !== 'string' || method === Method.initialize) return false;
    const id = field(message, 'id');
    if (!isJsonRpcId(id)) return false;
    const params = field(message, 'params');
    const meta = metaIn(params);
    const version = versionIn(meta);
    const request = message as unknown as JsonRpcRequest;
    const claim = claimFrom(method, version);
    if (claim === 'modern') return this.#modern.passesRequest(request, { method, id, params, meta, version: version as string });
    return claim === null && this.#book.passesRequest(request, id, method);
  }

  // Fail closed for elicitation, stay out of the way for the rest: an exception while judging an
  // elicitation answers it with an error; any other message passes untouched.
  #judge(direction: 'inbound' | 'outbound', message: unknown): Decision {
    const report = this.#report;
    report.open();
    let decision: Decision;
    try {
      decision = direction === 'inbound' ? this.#inbound(message) : this.#outbound(message);
    } catch (error) {
      decision = this.#onInternalError(direction, message, error);
    }
    return report.close(decision);
  }

  #onInternalError(direction: 'inbound' | 'outbound', message: unknown, error: unknown): Decision {
    this.#metrics.internalErrors += 1;
    const event = this.#report.event({
      type: 'guard.error',
      code: GuardCode.internal,
      message: `${direction} judgement failed: ${(error as Error)?.message ?? String(error)}`,
    });
    const codec = this.#codec;
    const kind = direction === 'inbound' ? codec.classifyInbound(message) : codec.classifyOutbound(message);
    const m = message as JsonRpcMessage & { id: JsonRpcId };
    const modern = this.#modern.onInternalError(direction, message, event);
    if (modern !== null) return modern;
    if (kind === 'elicitation') {
      this.#metrics.elicitationsRefused += 1;
      return reply(
        codec.guardError(
          m.id,
          GuardCode.internal,
          'server',
          'The client-side elicitation guard could not check this elicitation, so it was refused.',
        ),
        [event],
      );
    }
    if (kind === 'notice') return drop([event]);
    if (kind === 'response' && codec.outcomeOf(m as JsonRpcResponse) === 'url-required') {
      return forward(
        codec.guardError(
          m.id,
          GuardCode.internal,
          'host',
          'The server required a URL elicitation that the client-side guard could not check.',
        ),
        [event],
      );
    }
    if (kind === 'answer' && this.#book.pendingElicitation(m.id) !== null) {
      this.#book.answer(m.id, 'error', undefined);
      return forward(codec.elicitationAnswer(m.id, 'cancel'), [event]);
    }
    return kindOf(message) === 'invalid' ? drop([event]) : forward(message as JsonRpcMessage, [event]);
  }

  // ---------------------------------------------------------------- server → host

  #inbound(message: unknown): Decision {
    const codec = this.#codec;
    switch (codec.classifyInbound(message)) {
      case 'elicitation':
        // 2026-07-28 has no server-to-client requests: a pushed elicitation is dropped, never answered as if legacy.
        if (this.#modern.refusesPushes) return this.#modern.stray(message as JsonRpcRequest);
        return onElicitation(this.#ctx, message as JsonRpcRequest);
      case 'elicitation-without-id':
        // An elicitation without an id cannot be answered and was never judged: it never reaches the host.
        this.#metrics.elicitationsRefused += 1;
        return dropped(this.#ctx, GuardCode.invalidParams, 'elicitation/create without an id dropped');
      case 'elicitation-malformed':
        return dropped(this.#ctx, GuardCode.invalidParams, `malformed ${(message as { method: string }).method} message dropped`);
      case 'notice':
        return this.#onNotice(message as JsonRpcNotification);
      case 'cancelled': {
        const id = codec.readCancelled(message as JsonRpcNotification);
        if (id !== null) this.#book.serverCancelled(id);
        return forward(message as JsonRpcNotification);
      }
      case 'task-status': {
        const status = codec.readTaskStatus(message as JsonRpcNotification);
        if (status !== null) this.#book.taskStatus(status.taskId, status.status);
        return forward(message as JsonRpcNotification);
      }
      case 'request': {
        const request = message as JsonRpcRequest;
        if (this.#book.serverRequest(request, null, codec.taskOfRequest(request)) === 'id-in-use') return idInUse(this.#ctx);
        return forward(request);
      }
      case 'response':
        return this.#modern.inboundResponse(message as JsonRpcResponse) ?? onServerResponse(this.#ctx, message as JsonRpcResponse);
      case 'notification':
      case 'invalid':
        return forward(message as JsonRpcMessage);
    }
  }

  #onNotice(notification: JsonRpcNotification): Decision {
    const id = this.#codec.readNotice(notification);
    const ruling = id === null ? ({ deliver: false, reason: 'invalid' } as const) : this.#book.notice(id);
    const elicitation = id === null ? null : shortDigest(id);
    if (!ruling.deliver) {
      this.#metrics.completionsDropped += 1;
      return drop([this.#report.event({ type: 'completion.dropped', reason: ruling.reason, elicitation })]);
    }
    this.#metrics.completionsDelivered += 1;
    return forward(notification, [this.#report.event({ type: 'completion.delivered', elicitation: elicitation as string })]);
  }

  // ---------------------------------------------------------------- host → server

  #outbound(message: unknown): Decision {
    const session = this.#session;
    switch (this.#codec.classifyOutbound(message)) {
      case 'handshake': {
        const mixed = this.#modern.onInitialize();
        const decision = this.#onHandshake(message as JsonRpcRequest);
        return mixed === null ? decision : { ...decision, events: [mixed, ...decision.events] };
      }
      case 'handshake-done':
        if (session.handshakeId === null && session.protocolVersion !== null) session.initialized = true;
        return forward(message as JsonRpcNotification);
      case 'request': {
        const request = message as JsonRpcRequest;
        const modern = this.#modern.outbound(request);
        if (modern !== null) return modern;
        const ruling = this.#book.hostRequest(request);
        if (ruling.ruling === 'pass') return sharedLedgerCheck(this.#ctx, request) ?? forward(request);
        const event = this.#report.event({ type: 'retry.refused', code: ruling.code, requestId: request.id, reason: ruling.reason });
        return reply(
          this.#codec.guardError(request.id, ruling.code, 'host', `Request refused by the client-side guard: ${ruling.reason}.`),
          [event],
        );
      }
      case 'answer':
        return onAnswer(this.#ctx, message as JsonRpcResponse);
      case 'notification':
        if ((message as JsonRpcNotification).method === Method.cancelled) this.#modern.onHostCancelled(message as JsonRpcNotification);
        return forward(message as JsonRpcMessage);
      case 'invalid':
        return forward(message as JsonRpcMessage);
    }
  }

  #onHandshake(request: JsonRpcRequest): Decision {
    const session = this.#session;
    const codec = this.#codec;
    session.restart(request.id);
    this.#book.restart();
    const capabilities = codec.capabilitiesOf(request);
    const declared = declaredModes(capabilities);
    const allowed = allowedModes(declared, this.policy);
    session.declared = declared;
    session.modes = allowed;
    if (modesEqual(declared, allowed)) return forward(request);
    const event = this.#report.event({ type: 'capabilities.narrowed', declared, forwarded: allowed });
    return forward(codec.withCapabilities(request, narrowCapabilities(capabilities, declared, allowed)), [event]);
  }

  #server(): ServerIdentity {
    return { key: this.#serverKey, name: this.#session.serverName, version: this.#session.serverVersion };
  }
}
