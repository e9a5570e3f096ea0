import { randomBytes } from 'node:crypto';
import { redact } from '../audit/redact.js';
import { FlowBook, type ServerResponseRuling } from '../flow/book.js';
import type { ConsentDecision, ShownToUser } from '../flow/records.js';
import { allowedModes, declaredModes, modesEqual, narrowCapabilities } from '../negotiation/capabilities.js';
import { toPolicyDocument, type Policy } from '../policy/policy.js';
import { shortDigest } from '../protocol/digest.js';
import { GuardCode } from '../protocol/errors.js';
import { kindOf, type JsonRpcError, type JsonRpcId, type JsonRpcMessage, type JsonRpcNotification, type JsonRpcRequest, type JsonRpcResponse, type JsonRpcResult } from '../protocol/jsonrpc.js';
import type { UrlAnalysis } from '../url/types.js';
import type { WireCodec } from '../wire/codec.js';
import { isInputRequiredResponse } from '../wire/rev2026-07-28.js';
import { rev2025_11_25 } from '../wire/rev2025-11-25.js';
import { Method } from '../protocol/wire.js';
import type { Guard, GuardOptions, GuardSessionView } from './api.js';
import { defer, drop, forward, reply, type Decision } from './decision.js';
import { dropped, idInUse, onElicitation, onUrlRequired, replaceRequirement, type Translation } from './elicitations.js';
import type { GuardEvent, ServerIdentity } from './events.js';
import type { FlowView, OpenTicket, Opener } from './flows.js';
import { judgeAnswer, judgeUnmatchedAnswer, type Withheld } from './judgements.js';
import { emptyMetrics, type GuardMetrics } from './metrics.js';
import { ModernSide } from './modern.js';
import { Reporter } from './reporter.js';
import { Session } from './session.js';

export type { Guard, GuardOptions, GuardSessionView } from './api.js';

/** Creates the guard for one session. */
export function createGuard(options: GuardOptions = {}): Guard {
  return new GuardCore(options);
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
    const clock = options.clock ?? Date.now;
    const random = options.random ?? ((n: number) => randomBytes(n));
    this.#subject = options.subject ?? null;
    this.#report = new Reporter(clock, options.onEvent, () => this.#server(), () => this.#book.generation);
    this.#book = new FlowBook({
      policy: this.policy,
      deps: { clock, random },
      store: options.ledger ?? null,
      sessionId: Buffer.from(random(12)).toString('base64url'),
      onWriteError: (error) => this.#report.emit(this.#report.event({ type: 'guard.error', code: GuardCode.ledgerUnavailable, message: `ledger write failed: ${(error as Error)?.message ?? String(error)}` })),
      onNote: (note) => this.#report.note(note),
    });
    if (this.policy.issuing === 'stopped') this.#book.revokeAll();
    const { policy } = this;
    this.#ctx = { policy, codec: this.#codec, session: this.#session, book: this.#book, metrics: this.#metrics, report: this.#report, subject: this.#subject, server: () => this.#server() };
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
    const event = this.#report.event({ type: 'guard.error', code: GuardCode.internal, message: `${direction} judgement failed: ${(error as Error)?.message ?? String(error)}` });
    const codec = this.#codec;
    const kind = direction === 'inbound' ? codec.classifyInbound(message) : codec.classifyOutbound(message);
    const m = message as JsonRpcMessage & { id: JsonRpcId };
    if (kind === 'elicitation') {
      this.#metrics.elicitationsRefused += 1;
      return reply(codec.guardError(m.id, GuardCode.internal, 'server', 'The client-side elicitation guard could not check this elicitation, so it was refused.'), [event]);
    }
    if (kind === 'notice') return drop([event]);
    if (kind === 'response' && codec.outcomeOf(m as JsonRpcResponse) === 'url-required') {
      return forward(codec.guardError(m.id, GuardCode.internal, 'host', 'The server required a URL elicitation that the client-side guard could not check.'), [event]);
    }
    const modern = this.#modern.onInternalError(direction, message, event);
    if (modern !== null) return modern;
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
        return this.#onServerResponse(message as JsonRpcResponse);
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

  #onServerResponse(response: JsonRpcResponse): Decision {
    const id = response.id;
    if (id === null) return forward(response);
    if (this.#modern.owns(id)) return this.#modern.inbound(response);
    const codec = this.#codec;
    const outcome = codec.outcomeOf(response);
    if (id === this.#session.handshakeId) return this.#onHandshakeAnswer(response, outcome === 'url-required');
    if (isInputRequiredResponse(response)) {
      // An input-required result to a 2025-11-25 request (or to nothing) is never delivered as is.
      return this.#modern.misplaced(response, this.#book.serverResponse(id, 'error', response).ruling === 'unmatched');
    }
    const ruling = this.#book.serverResponse(id, outcome, response, outcome === 'task' ? codec.taskIdOf(response) : undefined);
    switch (ruling.ruling) {
      case 'pass':
        return forward(response);
      case 'unmatched':
        // A -32042 that answers nothing the host asked carries an elicitation list nobody judged.
        if (outcome === 'url-required') return dropped(this.#ctx, GuardCode.invalidParams, 'a -32042 answering no request in flight was dropped');
        if (!ruling.repeat) return forward(response);
        return drop([this.#withheldEvent(id, 'a second answer to an operation whose final answer was already accepted')]);
      case 'url-required':
        return onUrlRequired(this.#ctx, response as JsonRpcError, ruling.original);
      case 'accept':
      case 'withhold':
        return this.#accepted(response, ruling);
    }
  }

  /** The final answer of an original operation: with a ledger, delivered only once its business receipt is durable. */
  #accepted(response: JsonRpcResponse, ruling: ServerResponseRuling & { ruling: 'accept' | 'withhold' }): Decision {
    if (ruling.ruling === 'withhold') return this.#withhold(response, ruling.reason);
    if (ruling.until === null) return forward(response);
    return defer(ruling.until.then((o) => (o.accepted ? forward(response) : this.#withhold(response, o.reason))));
  }

  #withheldEvent(id: JsonRpcId, reason: string): GuardEvent {
    return this.#report.event({ type: 'response.withheld', code: GuardCode.alreadyAccepted, requestId: id, reason });
  }

  #withhold(response: JsonRpcResponse, reason: string): Decision {
    const id = response.id as JsonRpcId;
    const message = `The client-side guard withheld this answer: ${reason}.`;
    return forward(this.#codec.guardError(id, GuardCode.alreadyAccepted, 'host', message), [this.#withheldEvent(id, reason)]);
  }

  #onHandshakeAnswer(response: JsonRpcResponse, urlRequired: boolean): Decision {
    const session = this.#session;
    session.handshakeId = null;
    if (urlRequired) return replaceRequirement(this.#ctx, response, GuardCode.modeNotNegotiated, 'The server answered the handshake with a URL elicitation requirement (-32042); URL mode is not negotiated before it completes.');
    if ('error' in response) return forward(response);
    const answer = this.#codec.readHandshakeAnswer(response);
    session.protocolVersion = answer.protocolVersion;
    // The server names itself: a secret-shaped name never reaches an event.
    session.serverName = answer.name === null ? null : redact(answer.name);
    session.serverVersion = answer.version === null ? null : redact(answer.version);
    return forward(response, [this.#report.event({ type: 'session.initialized', protocolVersion: session.protocolVersion, modes: session.modes })]);
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
        if (ruling.ruling === 'pass') return forward(request);
        const event = this.#report.event({ type: 'retry.refused', code: ruling.code, requestId: request.id, reason: ruling.reason });
        return reply(this.#codec.guardError(request.id, ruling.code, 'host', `Request refused by the client-side guard: ${ruling.reason}.`), [event]);
      }
      case 'answer':
        return this.#onAnswer(message as JsonRpcResponse);
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

  /** The host answers a server request: an elicitation answer is checked before it leaves. */
  #onAnswer(response: JsonRpcResponse): Decision {
    const id = response.id;
    if (id === null) return forward(response);
    const codec = this.#codec;
    const outcome = codec.outcomeOf(response);
    const action = codec.actionOf(response);
    const ruling = this.#book.answer(id, outcome, action, outcome === 'task' ? codec.taskIdOf(response) : undefined);
    switch (ruling.ruling) {
      case 'pass':
        return forward(response);
      case 'unmatched': {
        if (ruling.repeat) return dropped(this.#ctx, GuardCode.invalidParams, 'a second answer to an elicitation already answered was dropped');
        const withheld = action === 'accept' ? judgeUnmatchedAnswer(codec.contentOf(response as JsonRpcResult)) : null;
        return withheld === null ? forward(response) : this.#withholdContent(id, withheld);
      }
      case 'url':
        // URL mode never carries data back: "the content field is omitted".
        return forward(action === 'accept' ? codec.withoutContent(response as JsonRpcResult) : response);
      case 'override': {
        const event = this.#report.event({ type: 'response.withheld', code: GuardCode.illegalTransition, requestId: id, reason: ruling.reason });
        return forward(codec.elicitationAnswer(id, ruling.action), [event]);
      }
      case 'form': {
        if (action !== 'accept') return forward(response);
        const withheld = judgeAnswer(codec.contentOf(response as JsonRpcResult), ruling.requestedSchema);
        return withheld === null ? forward(response) : this.#withholdContent(id, withheld);
      }
    }
  }

  #withholdContent(id: JsonRpcId, withheld: Withheld): Decision {
    this.#metrics.contentWithheld += 1;
    const event = this.#report.event({ type: 'content.withheld', code: withheld.code, requestId: id, fields: withheld.fields, findings: withheld.findings });
    return forward(this.#codec.elicitationAnswer(id, 'cancel'), [event]);
  }

  #server(): ServerIdentity {
    return { key: this.#serverKey, name: this.#session.serverName, version: this.#session.serverVersion };
  }
}
