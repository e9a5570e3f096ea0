import { randomBytes } from 'node:crypto';
import type { GuardEvent, ServerIdentity } from '../audit/events.js';
import { redact } from '../audit/redact.js';
import { auditForm, checkContent } from '../form/index.js';
import { allowedModes, declaredModes, hasMode, modesEqual, narrowCapabilities, type Modes } from '../negotiation/capabilities.js';
import { toPolicyDocument, type Policy, type PolicyDocument } from '../policy/policy.js';
import type { ConsentDecision, ShownToUser } from '../flow/records.js';
import type { Ledger } from '../ledger/types.js';
import { acceptOriginalOperation, createLineage, ruleOnRetry, type Lineage } from '../lineage/lineage.js';
import { requestDigest, shortDigest } from '../protocol/digest.js';
import { GuardCode, GuardError } from '../protocol/errors.js';
import {
  errorResponse,
  isRecord,
  kindOf,
  type JsonRpcError,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResult,
} from '../protocol/jsonrpc.js';
import { GuardMetaKey, Method, RELATED_TASK_META_KEY, RpcCode, TERMINAL_TASK_STATUSES, type ElicitationMode } from '../protocol/wire.js';
import { analyzeUrl } from '../url/index.js';
import type { UrlAnalysis } from '../url/types.js';
import { defer, drop, forward, reply, type Decision } from './decision.js';
import { FlowBook, type FlowNote, type FlowView, type OpenTicket, type Opener } from './flows.js';
import { AcceptanceTally, emptyMetrics, lineageKeyString, noticeAdvancedUnknown, type GuardMetrics } from './metrics.js';
import { Session } from './session.js';

export interface GuardOptions {
  /** A parsed policy document, a resolved `Policy`, or a raw policy object. Default: the built-in policy. */
  readonly policy?: PolicyDocument | Policy | unknown;
  /** The host's key for this server; selects the policy's per-server overrides. */
  readonly server?: string;
  /** Milliseconds since the epoch. Injected so expiry is testable. */
  readonly clock?: () => number;
  /** Random bytes. Injected so nonces are testable. */
  readonly random?: (bytes: number) => Uint8Array;
  /** Called with every event, synchronously, after the decision is made. Must not throw (errors are swallowed). */
  readonly onEvent?: (event: GuardEvent) => void;
  /** Where navigation records, flow moves and receipts are written. Default: memory only. */
  readonly ledger?: Ledger;
  /** The verified user subject (e.g. the `sub` of the host's identity), recorded in every navigation. */
  readonly subject?: string;
  /**
   * The scope of this guard's lineage keys (the `session` of business receipts). Default: random,
   * unique to this guard. Guards given the same key and one shared ledger (replicas serving one
   * host conversation, a host restarted with the same conversation id) accept the final answer of
   * each original operation at most once between them; the others withhold theirs with
   * `E_ALREADY_ACCEPTED`. 1 to 200 characters; not a secret.
   */
  readonly sessionKey?: string;
}

/** A read-only view of the negotiated session. */
export interface GuardSessionView {
  readonly generation: number;
  readonly initialized: boolean;
  readonly protocolVersion: string | null;
  readonly declaredModes: Modes;
  readonly modes: Modes;
  readonly server: ServerIdentity;
}

/** The guard of one MCP session: judges every message in both directions. */
export interface Guard {
  /** A message from the server to the host. */
  inbound(message: unknown): Decision;
  /** A message from the host to the server. */
  outbound(message: unknown): Decision;
  readonly policy: Policy;
  session(): GuardSessionView;
  metrics(): Readonly<GuardMetrics>;
  /** URL-mode flows that are not finished (expired ones included: they wait for manual recovery). */
  pendingFlows(): FlowView[];
  flow(elicitationId: string): FlowView | null;
  /**
   * Records the user's decision on a URL elicitation before anything is opened; resolves when the
   * consent receipt is durable. For `accept` it returns the ticket `openUrl` requires.
   */
  recordConsent(elicitationId: string, decision: ConsentDecision, shown?: ShownToUser): Promise<OpenTicket | null>;
  /** Opens the URL of an accepted flow through `opener`, once. The only way the guard opens anything. */
  openUrl(ticket: OpenTicket, opener: Opener): Promise<void>;
  /** The user says the out-of-band step is done. */
  confirmFlow(elicitationId: string): FlowView;
  /** The user takes up a stalled (pending or expired) flow by hand. */
  retryFlow(elicitationId: string): FlowView;
  /** The user gives up on a flow; its original operation will not be retried. */
  cancelFlow(elicitationId: string): FlowView;
  /** Resolves when every ledger write queued so far is done. */
  flush(): Promise<void>;
}

type Direction = 'inbound' | 'outbound';

/** Creates the guard for one session. */
export function createGuard(options: GuardOptions = {}): Guard {
  return new GuardCore(options);
}

class GuardCore implements Guard {
  readonly policy: Policy;
  readonly #serverKey: string | null;
  readonly #clock: () => number;
  readonly #random: (bytes: number) => Uint8Array;
  readonly #onEvent: ((event: GuardEvent) => void) | undefined;
  readonly #session: Session;
  readonly #metrics = emptyMetrics();
  readonly #acceptances = new AcceptanceTally();
  readonly #flows: FlowBook;
  readonly #subject: string | null;
  readonly #sessionId: string;
  readonly #hasLedger: boolean;
  /** Events produced while judging one message; flushed into its decision. */
  #noteBuffer: GuardEvent[] | null = null;

  constructor(options: GuardOptions) {
    this.policy = toPolicyDocument(options.policy).forServer(options.server);
    this.#serverKey = options.server ?? null;
    this.#clock = options.clock ?? Date.now;
    this.#random = options.random ?? ((n) => randomBytes(n));
    this.#onEvent = options.onEvent;
    this.#subject = options.subject ?? null;
    this.#session = new Session(this.policy, this.#clock);
    if (options.sessionKey !== undefined && (typeof options.sessionKey !== 'string' || options.sessionKey.length < 1 || options.sessionKey.length > 200)) {
      throw new GuardError(GuardCode.input, 'sessionKey must be a string of 1 to 200 characters');
    }
    this.#sessionId = options.sessionKey ?? Buffer.from(this.#random(12)).toString('base64url');
    this.#hasLedger = options.ledger !== undefined;
    this.#flows = new FlowBook({
      policy: this.policy,
      deps: { clock: this.#clock, random: this.#random },
      ledger: options.ledger ?? null,
      onWriteError: (error) => this.#emit(this.#event({ type: 'guard.error', code: GuardCode.ledgerUnavailable, message: `ledger write failed: ${(error as Error)?.message ?? String(error)}` })),
      onNote: (note) => this.#emit(this.#noteEvent(note)),
    });
    if (this.policy.issuing === 'stopped') this.#flows.revokeAll();
  }

  pendingFlows(): FlowView[] {
    return this.#flows.pending();
  }

  flow(elicitationId: string): FlowView | null {
    return this.#flows.view(elicitationId);
  }

  recordConsent(elicitationId: string, decision: ConsentDecision, shown?: ShownToUser): Promise<OpenTicket | null> {
    const ticket = this.#flows.recordConsent(elicitationId, decision, shown);
    if (decision !== 'accept') this.#session.completions.finish(elicitationId);
    return ticket;
  }

  openUrl(ticket: OpenTicket, opener: Opener): Promise<void> {
    return this.#flows.open(ticket, opener);
  }

  confirmFlow(elicitationId: string): FlowView {
    return this.#recorded(() => this.#flows.confirm(elicitationId));
  }

  retryFlow(elicitationId: string): FlowView {
    return this.#recorded(() => this.#flows.retry(elicitationId));
  }

  cancelFlow(elicitationId: string): FlowView {
    const view = this.#recorded(() => this.#flows.cancel(elicitationId));
    this.#session.completions.finish(elicitationId);
    return view;
  }

  /** Runs a manual control; a refused move is recorded as an event before it is thrown to the host. */
  #recorded<T>(control: () => T): T {
    try {
      return control();
    } catch (error) {
      if (GuardError.is(error)) this.#emit(this.#event({ type: 'guard.error', code: error.code, message: error.message }));
      throw error;
    }
  }

  flush(): Promise<void> {
    return this.#flows.flush();
  }

  /** Delivers an event: into the decision being made, or straight to `onEvent` outside a judgement. */
  #emit(event: GuardEvent): void {
    if (this.#noteBuffer !== null) {
      this.#noteBuffer.push(event);
      return;
    }
    if (this.#onEvent === undefined) return;
    try {
      this.#onEvent(event);
    } catch {
      // A failing observer must never change what the guard does.
    }
  }

  #noteEvent(note: FlowNote): GuardEvent {
    if ('navigationId' in note) return this.#event({ type: 'flow.transition', navigation: note.navigationId, from: note.from, to: note.to, trigger: note.trigger });
    const receipt = note.receipt;
    if (receipt.schema === 'consentReceipt.v1') return this.#event({ type: 'receipt.consent', receipt: receipt.id, navigation: receipt.navigationId, decision: receipt.decision, shownDigest: receipt.shownDigest });
    return this.#event({ type: 'receipt.business', receipt: receipt.id, lineage: receipt.lineage.kind, requestId: receipt.requestId, retryGeneration: receipt.retryGeneration, responseDigest: receipt.responseDigest });
  }

  session(): GuardSessionView {
    const s = this.#session;
    return { generation: s.generation, initialized: s.initialized, protocolVersion: s.protocolVersion, declaredModes: s.declared, modes: s.modes, server: this.#server() };
  }

  metrics(): Readonly<GuardMetrics> {
    return { ...this.#metrics };
  }

  inbound(message: unknown): Decision {
    return this.#judge('inbound', message);
  }

  outbound(message: unknown): Decision {
    return this.#judge('outbound', message);
  }

  // Fail closed for elicitation, stay out of the way for the rest: an exception while judging an
  // elicitation answers it with an error; any other message passes untouched.
  #judge(direction: Direction, message: unknown): Decision {
    let decision: Decision;
    const notes: GuardEvent[] = [];
    this.#noteBuffer = notes;
    try {
      decision = direction === 'inbound' ? this.#inbound(message) : this.#outbound(message);
    } catch (error) {
      decision = this.#onInternalError(direction, message, error);
    } finally {
      this.#noteBuffer = null;
    }
    if (notes.length > 0) decision = { ...decision, events: [...notes, ...decision.events] };
    if (decision.events.length > 0 && this.#onEvent !== undefined) {
      for (const event of decision.events) {
        try {
          this.#onEvent(event);
        } catch {
          // A failing observer must never change what happens to a message.
        }
      }
    }
    return decision;
  }

  #onInternalError(direction: Direction, message: unknown, error: unknown): Decision {
    this.#metrics.internalErrors += 1;
    const event = this.#event({ type: 'guard.error', code: GuardCode.internal, message: `${direction} judgement failed: ${(error as Error)?.message ?? String(error)}` });
    const kind = kindOf(message);
    const m = message as Record<string, unknown>;
    if (direction === 'inbound' && kind === 'request' && m.method === Method.elicitationCreate) {
      this.#metrics.elicitationsRefused += 1;
      return reply(errorResponse(m.id as JsonRpcId, RpcCode.internalError, 'The client-side elicitation guard could not check this elicitation, so it was refused.', { code: GuardCode.internal }), [event]);
    }
    if (direction === 'inbound' && kind === 'notification' && m.method === Method.elicitationComplete) return drop([event]);
    if (direction === 'inbound' && kind === 'error' && isRecord(m.error) && m.error.code === RpcCode.urlElicitationRequired) {
      return forward(errorResponse(m.id as JsonRpcId, RpcCode.internalError, 'The server required a URL elicitation that the client-side guard could not check.', { code: GuardCode.internal }), [event]);
    }
    if (direction === 'outbound' && (kind === 'result' || kind === 'error') && this.#session.serverElicitations.get(m.id as JsonRpcId) !== undefined) {
      this.#session.serverElicitations.take(m.id as JsonRpcId);
      return forward({ jsonrpc: '2.0', id: m.id as JsonRpcId, result: { action: 'cancel' } }, [event]);
    }
    return kindOf(message) === 'invalid' ? drop([event]) : forward(message as JsonRpcMessage, [event]);
  }

  // ---------------------------------------------------------------- server → host

  #inbound(message: unknown): Decision {
    switch (kindOf(message)) {
      case 'request': {
        const request = message as JsonRpcRequest;
        return request.method === Method.elicitationCreate ? this.#onElicitation(request) : forward(request);
      }
      case 'notification': {
        const notification = message as JsonRpcNotification;
        if (notification.method === Method.elicitationComplete) return this.#onCompletion(notification);
        // An elicitation without an id cannot be answered and was never judged: it never reaches the host.
        if (notification.method === Method.elicitationCreate) {
          this.#metrics.elicitationsRefused += 1;
          return drop([this.#event({ type: 'guard.error', code: GuardCode.invalidParams, message: 'elicitation/create without an id dropped' })]);
        }
        if (notification.method === Method.cancelled) this.#onServerCancelled(notification);
        if (notification.method === Method.taskStatus) this.#onTaskStatus(notification);
        return forward(notification);
      }
      case 'result':
      case 'error':
        return this.#onServerResponse(message as JsonRpcResult | JsonRpcError);
      case 'invalid':
        // An elicitation that is not even a well-formed request must not reach the host.
        if (isRecord(message) && (message.method === Method.elicitationCreate || message.method === Method.elicitationComplete)) {
          return drop([this.#event({ type: 'guard.error', code: GuardCode.invalidParams, message: `malformed ${message.method} message dropped` })]);
        }
        return forward(message as JsonRpcMessage);
    }
  }

  #onElicitation(request: JsonRpcRequest): Decision {
    const session = this.#session;
    const params = request.params;
    if (!isRecord(params)) return this.#refuse(request, null, GuardCode.invalidParams, 'elicitation/create needs a params object with "message" and, for form mode, "requestedSchema".');
    const rawMode = params.mode ?? 'form';
    if (rawMode !== 'form' && rawMode !== 'url') return this.#refuse(request, null, GuardCode.invalidParams, `unknown elicitation mode ${JSON.stringify(rawMode)}; spec 2025-11-25 defines "form" and "url".`);
    const mode: ElicitationMode = rawMode;
    if (!session.initialized) return this.#refuse(request, mode, GuardCode.modeNotNegotiated, `${mode}-mode elicitation before initialization completed.`);
    if (!hasMode(session.modes, mode)) {
      const why = hasMode(session.declared, mode) ? 'the client policy disables it' : 'the client did not declare it';
      return this.#refuse(request, mode, GuardCode.modeNotNegotiated, `${mode}-mode elicitation was not negotiated (${why}).`);
    }
    if (typeof params.message !== 'string') return this.#refuse(request, mode, GuardCode.invalidParams, 'elicitation/create needs a string "message".');
    return mode === 'form' ? this.#onFormElicitation(request, params) : this.#onUrlElicitation(request, params);
  }

  #onFormElicitation(request: JsonRpcRequest, params: Record<string, unknown>): Decision {
    if (!isRecord(params.requestedSchema)) return this.#refuse(request, 'form', GuardCode.invalidParams, 'form-mode elicitation needs a "requestedSchema" object.');
    const audit = auditForm(params, this.policy);
    const sensitive = audit.fields.filter((f) => f.class === 'credential' || f.class === 'payment' || (this.policy.form.blockPersonal && f.class === 'personal'));
    const codes = audit.findings.map((f) => f.code);
    const events: GuardEvent[] = (audit.exceptions ?? []).map((use) => this.#event({ ...use, requestId: request.id }));
    if (sensitive.length > 0) {
      const blocked = this.policy.form.onSensitive === 'block';
      events.push(this.#event({ type: 'form.sensitive', action: blocked ? 'blocked' : 'audited', requestId: request.id, fields: sensitive.map((f) => ({ name: f.name, class: f.class, reasons: f.reasons })), ...(audit.schemaDigest === undefined ? {} : { schemaDigest: audit.schemaDigest }) }));
      if (blocked) {
        this.#metrics.sensitiveFieldsBlocked += sensitive.length;
        const names = sensitive.map((f) => `${f.name} (${f.class})`).join(', ');
        return this.#refuse(request, 'form', GuardCode.sensitiveField, `form-mode elicitation asks for sensitive data: ${names}. Servers must use URL mode for credentials and payment data.`, codes, events, {
          fields: sensitive.map((f) => ({ name: f.name, class: f.class })),
        });
      }
      this.#metrics.sensitiveFieldsLetThrough += sensitive.length;
    }
    if (audit.verdict === 'block') {
      const problems = audit.findings.filter((f) => f.severity === 'error');
      const detail = problems.map((f) => (f.field === undefined ? f.message : `${f.field}: ${f.message}`)).join('; ');
      const byField = new Map<string, string[]>();
      for (const f of problems) if (f.field !== undefined) byField.set(f.field, [...(byField.get(f.field) ?? []), f.message]);
      return this.#refuse(request, 'form', GuardCode.schemaNotAllowed, `requestedSchema is outside the spec 2025-11-25 form subset: ${detail}`, codes, events, {
        fields: [...byField].map(([name, reasons]) => ({ name, reasons })),
      });
    }
    this.#session.serverElicitations.set(request.id, { mode: 'form', requestedSchema: params.requestedSchema, elicitationId: null });
    this.#metrics.elicitationsForwarded += 1;
    events.push(this.#event({ type: 'elicitation.forwarded', mode: 'form', requestId: request.id, verdict: audit.verdict, findings: codes, host: null }));
    return forward(withMeta(request, GuardMetaKey.formAudit, audit), events);
  }

  #onUrlElicitation(request: JsonRpcRequest, params: Record<string, unknown>): Decision {
    if (typeof params.url !== 'string') return this.#refuse(request, 'url', GuardCode.invalidParams, 'url-mode elicitation needs a string "url".');
    if (typeof params.elicitationId !== 'string' || params.elicitationId === '') return this.#refuse(request, 'url', GuardCode.invalidParams, 'url-mode elicitation needs a non-empty string "elicitationId".');
    if (this.policy.issuing === 'stopped') {
      this.#metrics.elicitationsRefused += 1;
      const event = this.#event({ type: 'elicitation.refused', code: GuardCode.issuingStopped, mode: 'url', requestId: request.id, reason: 'URL elicitations are stopped by policy (issuing: "stopped").', findings: [] });
      return reply({ jsonrpc: '2.0', id: request.id, result: { action: 'decline', _meta: { [GuardMetaKey.urlAnalysis]: { code: GuardCode.issuingStopped, reason: 'URL elicitations are stopped by the client policy.' } } } }, [event]);
    }
    if (this.policy.subject.required && this.#subject === null) {
      return this.#refuse(request, 'url', GuardCode.subjectRequired, 'URL mode needs a verified user subject and the client has none (policy subject.required).');
    }
    const analysis = analyzeUrl(params.url, this.policy);
    const codes = analysis.findings.map((f) => f.code);
    const exceptions = this.#exceptionEvents(analysis, request.id);
    if (analysis.verdict === 'block') {
      const reasons = analysis.findings.filter((f) => f.severity === 'error').map((f) => f.message).join('; ');
      return this.#refuse(request, 'url', GuardCode.urlBlocked, `the elicitation URL was blocked: ${reasons}`, codes, exceptions, { findings: codes });
    }
    const session = this.#session;
    this.#present(params.elicitationId, params.url, params.message as string, analysis, this.#nestedLineage(params));
    session.completions.register(params.elicitationId, session.generation, 'elicitation/create');
    session.serverElicitations.set(request.id, { mode: 'url', requestedSchema: null, elicitationId: params.elicitationId });
    this.#metrics.elicitationsForwarded += 1;
    const event = this.#event({ type: 'elicitation.forwarded', mode: 'url', requestId: request.id, verdict: analysis.verdict, findings: codes, host: analysis.display.hostAscii });
    return forward(withMeta(request, GuardMetaKey.urlAnalysis, analysis), [...exceptions, event]);
  }

  /** Records a URL elicitation that is about to reach the user (a navigation record in review). */
  #present(elicitationId: string, url: string, message: string, analysis: UrlAnalysis, lineage: Lineage | null): void {
    const session = this.#session;
    this.#flows.present({ elicitationId, url, message, analysis, server: this.#server(), subject: this.#subject, generation: session.generation, lineage });
  }

  /**
   * The nested lineage a URL elicitation belongs to. A related-task `_meta` names it: the host
   * request that created that task (an unknown task id binds nothing). Without one, it is the one
   * host request in flight; with none there is no original, and with several the attribution is
   * ambiguous and nothing is bound (see lineage.ts).
   */
  #nestedLineage(params: Record<string, unknown>): Lineage | null {
    const session = this.#session;
    const meta = isRecord(params._meta) ? params._meta[RELATED_TASK_META_KEY] : undefined;
    if (isRecord(meta) && typeof meta.taskId === 'string') {
      const task = session.tasks.get(meta.taskId);
      if (task === undefined) return null;
      task.lineage ??= this.#newNested(task.original);
      return task.lineage;
    }
    if (session.hostRequests.size !== 1) return null;
    const original = session.hostRequests.first();
    if (original === undefined) return null;
    return session.nestedByOriginal.get(original.id) ?? this.#newNested(original);
  }

  #newNested(original: JsonRpcRequest): Lineage {
    const session = this.#session;
    const lineage = createLineage('nested', { sessionId: this.#sessionId, generation: session.generation }, original.id, requestDigest(original.method, original.params), this.#clock() + this.policy.completion.ttlSeconds * 1000);
    session.nestedByOriginal.set(original.id, lineage);
    return lineage;
  }

  /** A nested original is in flight while its request is unanswered or the task it created still runs. */
  #inFlight(lineage: Lineage): boolean {
    const session = this.#session;
    if (session.hostRequests.get(lineage.originalId) !== undefined) return true;
    for (const task of session.tasks.values()) if (task.lineage === lineage && task.running) return true;
    return false;
  }

  #refuse(
    request: JsonRpcRequest,
    mode: ElicitationMode | null,
    code: string,
    reason: string,
    findings: readonly string[] = [],
    events: GuardEvent[] = [],
    data: Record<string, unknown> = {},
  ): Decision {
    this.#metrics.elicitationsRefused += 1;
    events.push(this.#event({ type: 'elicitation.refused', code, mode, requestId: request.id, reason, findings }));
    return reply(errorResponse(request.id, RpcCode.invalidParams, `Elicitation refused by the client: ${reason}`, { code, ...data }), events);
  }

  #onCompletion(notification: JsonRpcNotification): Decision {
    const id = notification.params?.elicitationId;
    if (typeof id !== 'string') {
      this.#metrics.completionsDropped += 1;
      return drop([this.#event({ type: 'completion.dropped', reason: 'invalid', elicitation: null })]);
    }
    const session = this.#session;
    // Asked before the notice is judged, and checked against what it did: the invariant counter.
    const knownPending = session.completions.isPending(id, session.generation);
    // A notice for a URL the user has not yet agreed to open proves nothing: drop it, keep the id
    // pending. (Consent to an elicitation/create is seen on the wire; consent to a -32042 entry is
    // seen only when the host records it through the guard, so those notices are not judged so.)
    const flow = knownPending ? this.#flows.view(id) : null;
    if (flow !== null && flow.lineage !== 'error-retry' && (flow.state === 'USER_REVIEW' || flow.state === 'NAVIGATION_ACCEPTED')) {
      this.#metrics.completionsDropped += 1;
      return drop([this.#event({ type: 'completion.dropped', reason: 'before-consent', elicitation: shortDigest(id) })]);
    }
    const outcome = session.completions.onNotice(id, session.generation);
    if (!outcome.deliver) {
      this.#metrics.completionsDropped += 1;
      return drop([this.#event({ type: 'completion.dropped', reason: outcome.reason, elicitation: shortDigest(id) })]);
    }
    const advanced = this.#flows.onNotice(id) === 'advanced';
    if (noticeAdvancedUnknown(knownPending, true, advanced)) this.#metrics.completionNoticesAdvancingUnknown += 1;
    this.#metrics.completionsDelivered += 1;
    return forward(notification, [this.#event({ type: 'completion.delivered', elicitation: shortDigest(id) })]);
  }

  #onTaskStatus(notification: JsonRpcNotification): void {
    const params = notification.params;
    if (params === undefined || typeof params.taskId !== 'string' || typeof params.status !== 'string') return;
    const task = this.#session.tasks.get(params.taskId);
    if (task !== undefined && TERMINAL_TASK_STATUSES.has(params.status)) task.running = false;
  }

  #onServerCancelled(notification: JsonRpcNotification): void {
    const requestId = notification.params?.requestId;
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return;
    const pending = this.#session.serverElicitations.take(requestId);
    if (pending?.elicitationId != null) {
      this.#session.completions.finish(pending.elicitationId);
      this.#flows.serverCancelled(pending.elicitationId);
    }
  }

  #onServerResponse(response: JsonRpcResult | JsonRpcError): Decision {
    const session = this.#session;
    if (response.id === null) return forward(response);
    if (response.id === session.initializeId) {
      session.initializeId = null;
      return this.#onInitializeResponse(response);
    }
    const request = session.hostRequests.take(response.id);
    if (request === undefined) {
      // A -32042 that answers nothing the host asked carries an elicitation list nobody judged.
      if ('error' in response && response.error.code === RpcCode.urlElicitationRequired) {
        return drop([this.#event({ type: 'guard.error', code: GuardCode.invalidParams, message: 'a -32042 answering no request in flight was dropped' })]);
      }
      if (session.acceptedAnswers.get(response.id) === undefined) return forward(response);
      const event = this.#event({ type: 'response.withheld', code: GuardCode.alreadyAccepted, requestId: response.id, reason: 'a second answer to an operation whose final answer was already accepted' });
      return drop([event]);
    }
    if ('result' in response && isRecord(response.result.task) && typeof response.result.task.taskId === 'string') {
      // A task was created: the final answer comes later, through tasks/result.
      this.#trackTask(response.result.task.taskId, request);
      return forward(response);
    }
    if (request.method === Method.taskResult) return this.#onTaskResult(request, response);
    const nested = session.nestedByOriginal.get(response.id);
    if (nested !== undefined) session.nestedByOriginal.delete(response.id);
    const retried = session.retries.get(response.id);
    if (retried !== undefined) {
      session.retries.delete(response.id);
      retried.retryIds.delete(response.id);
    }
    if ('error' in response && response.error.code === RpcCode.urlElicitationRequired) return this.#onUrlRequired(response, request);
    if (nested !== undefined && nested.consentReceiptIds.length > 0 && !nested.refused) return this.#acceptOriginal(nested, response, 0);
    if (retried !== undefined) return this.#acceptOriginal(retried, response, retried.retriesUsed);
    return forward(response);
  }

  #trackTask(taskId: string, original: JsonRpcRequest): void {
    const session = this.#session;
    session.tasks.set(taskId, { original, lineage: session.nestedByOriginal.get(original.id) ?? null, running: true });
    if (session.tasks.size > this.policy.completion.maxPending) session.tasks.delete(session.tasks.keys().next().value as string);
  }

  /** The answer to `tasks/result` is the final answer of the task's original request. */
  #onTaskResult(request: JsonRpcRequest, response: JsonRpcResult | JsonRpcError): Decision {
    const session = this.#session;
    const taskId = isRecord(request.params) ? request.params.taskId : undefined;
    const task = typeof taskId === 'string' ? session.tasks.get(taskId) : undefined;
    if (task === undefined || typeof taskId !== 'string') return forward(response);
    session.tasks.delete(taskId);
    const lineage = task.lineage;
    if (lineage === null) return forward(response);
    session.nestedByOriginal.delete(lineage.originalId);
    if (lineage.consentReceiptIds.length === 0 || lineage.refused) return forward(response);
    return this.#acceptOriginal(lineage, response, 0);
  }

  /**
   * The final answer to an original operation (the nested original, or the retry after -32042):
   * accepted once through `acceptOriginalOperation`; with a ledger, delivered only after its business
   * receipt is durable. A second answer for the same operation is not delivered: the host gets an
   * E_ALREADY_ACCEPTED error in its place.
   */
  #acceptOriginal(lineage: Lineage, response: JsonRpcResult | JsonRpcError, retryGeneration: number): Decision {
    const session = this.#session;
    const acceptance = acceptOriginalOperation(lineage, response as JsonRpcResult, retryGeneration, { clock: this.#clock, random: this.#random });
    if (!acceptance.accepted) return this.#withhold(response, acceptance.reason);
    session.acceptedAnswers.set(response.id as JsonRpcId, true);
    this.#flows.settleLineage(lineage, true);
    const durable = this.#flows.acceptBusiness(acceptance.receipt);
    if (!this.#hasLedger) {
      this.#countAcceptance(lineage);
      return forward(response);
    }
    return defer(
      durable.then(
        (accepted) => {
          if (!accepted) return this.#withhold(response, 'another guard already accepted a final answer for this operation');
          this.#countAcceptance(lineage);
          return forward(response);
        },
        () => this.#withhold(response, 'the business receipt could not be written (the ledger is unavailable), so the answer is not accepted', GuardCode.ledgerUnavailable),
      ),
    );
  }

  /** An answer accepted as an original operation's final answer: counted per lineage key. */
  #countAcceptance(lineage: Lineage): void {
    this.#metrics.originalOperationsAccepted += 1;
    this.#acceptances.record(lineageKeyString(lineage.key));
    this.#metrics.maxAcceptancesPerLineage = this.#acceptances.max;
  }

  #withhold(response: JsonRpcResult | JsonRpcError, reason: string, code: string = GuardCode.alreadyAccepted): Decision {
    const id = response.id as JsonRpcId;
    const event = this.#event({ type: 'response.withheld', code, requestId: id, reason });
    return forward(errorResponse(id, RpcCode.internalError, `The client-side guard withheld this answer: ${reason}.`, { code }), [event]);
  }

  #onInitializeResponse(response: JsonRpcResult | JsonRpcError): Decision {
    const session = this.#session;
    if ('error' in response) return forward(response);
    const result = response.result;
    session.protocolVersion = typeof result.protocolVersion === 'string' ? result.protocolVersion : null;
    const info = isRecord(result.serverInfo) ? result.serverInfo : {};
    // The server names itself: a secret-shaped name never reaches an event.
    session.serverName = typeof info.name === 'string' ? redact(info.name) : null;
    session.serverVersion = typeof info.version === 'string' ? redact(info.version) : null;
    return forward(response, [this.#event({ type: 'session.initialized', protocolVersion: session.protocolVersion, modes: session.modes })]);
  }

  /**
   * A `-32042` answer to a host request is equivalent to `elicitation/create` requests: it needs URL
   * mode, and each listed elicitation is judged like one. A host that did not negotiate URL mode gets
   * a plain error instead of the list; blocked or malformed entries are removed.
   */
  #onUrlRequired(response: JsonRpcError, original: JsonRpcRequest): Decision {
    const session = this.#session;
    const plain = (code: string, message: string, kept: number, removed: number, findings: readonly string[]): Decision => {
      this.#metrics.urlRequiredFiltered += 1;
      const event = this.#event({ type: 'url-required.filtered', requestId: response.id as JsonRpcId, code, kept, removed, findings });
      return forward(errorResponse(response.id, RpcCode.internalError, message, { code }), [event]);
    };
    if (!session.modes.url) {
      return plain(GuardCode.modeNotNegotiated, 'The server answered with a URL elicitation requirement (-32042), but URL mode was not negotiated; the request failed.', 0, 0, []);
    }
    if (this.policy.issuing === 'stopped') {
      return plain(GuardCode.issuingStopped, 'The server requires a URL elicitation, but URL elicitations are stopped by the client policy.', 0, 0, []);
    }
    const data = response.error.data;
    const entries = isRecord(data) && Array.isArray(data.elicitations) ? data.elicitations : null;
    if (entries === null || entries.length === 0) return plain(GuardCode.invalidParams, 'The server sent a URL elicitation requirement (-32042) without a list of elicitations.', 0, 0, []);
    const kept: Record<string, unknown>[] = [];
    const findings: string[] = [];
    for (const entry of entries) {
      if (!isRecord(entry) || entry.mode !== 'url' || typeof entry.url !== 'string' || typeof entry.message !== 'string' || typeof entry.elicitationId !== 'string' || entry.elicitationId === '') {
        findings.push(GuardCode.invalidParams);
        continue;
      }
      const analysis = analyzeUrl(entry.url, this.policy);
      for (const event of this.#exceptionEvents(analysis, response.id as JsonRpcId)) this.#emit(event);
      if (analysis.verdict === 'block') {
        for (const f of analysis.findings) if (f.severity === 'error') findings.push(f.code);
        continue;
      }
      kept.push({ ...entry, _meta: { ...(isRecord(entry._meta) ? entry._meta : {}), [GuardMetaKey.urlAnalysis]: analysis } });
    }
    const removed = entries.length - kept.length;
    if (kept.length === 0) {
      const blocked = findings.some((c) => c !== GuardCode.invalidParams);
      return plain(blocked ? GuardCode.urlBlocked : GuardCode.invalidParams, 'The server requires URL elicitations that the client refused to show (blocked or malformed URLs).', 0, removed, findings);
    }
    const digest = requestDigest(original.method, original.params);
    const lineage = createLineage('error-retry', { sessionId: this.#sessionId, generation: session.generation }, original.id, digest, this.#clock() + this.policy.completion.ttlSeconds * 1000);
    session.errorByDigest.delete(digest);
    session.errorByDigest.set(digest, lineage);
    if (session.errorByDigest.size > this.policy.completion.maxPending) session.errorByDigest.delete(session.errorByDigest.keys().next().value as string);
    for (const entry of kept) {
      const analysis = (entry._meta as Record<string, unknown>)[GuardMetaKey.urlAnalysis] as UrlAnalysis;
      this.#present(entry.elicitationId as string, entry.url as string, entry.message as string, analysis, lineage);
      session.completions.register(entry.elicitationId as string, session.generation, 'url-elicitation-required');
    }
    const events = removed > 0 ? [this.#event({ type: 'url-required.filtered', requestId: response.id as JsonRpcId, code: null, kept: kept.length, removed, findings })] : [];
    if (removed > 0) this.#metrics.urlRequiredFiltered += 1;
    const error = { ...response.error, data: { ...(data as Record<string, unknown>), elicitations: kept } };
    return forward({ jsonrpc: '2.0', id: response.id, error }, events);
  }

  // ---------------------------------------------------------------- host → server

  #outbound(message: unknown): Decision {
    switch (kindOf(message)) {
      case 'request': {
        const request = message as JsonRpcRequest;
        if (request.method === Method.initialize) return this.#onInitialize(request);
        const session = this.#session;
        if (session.nestedByOriginal.size > 0 || session.errorByDigest.size > 0) {
          const refusal = this.#onPossibleRetry(request);
          if (refusal !== null) return refusal;
        }
        session.hostRequests.set(request.id, request);
        return forward(request);
      }
      case 'notification': {
        const notification = message as JsonRpcNotification;
        if (notification.method === Method.initialized && this.#session.initializeId === null && this.#session.protocolVersion !== null) this.#session.initialized = true;
        return forward(notification);
      }
      case 'result':
      case 'error': {
        const response = message as JsonRpcResult | JsonRpcError;
        if (response.id === null) return forward(response);
        const pending = this.#session.serverElicitations.take(response.id);
        return pending === undefined ? forward(response) : this.#onElicitationAnswer(response, pending);
      }
      case 'invalid':
        return forward(message as JsonRpcMessage);
    }
  }

  /**
   * A host request while lineages are open: if it repeats an original (same digest), the lineage
   * rules decide. Only then is the request digested; other traffic pays nothing.
   */
  #onPossibleRetry(request: JsonRpcRequest): Decision | null {
    const session = this.#session;
    const digest = requestDigest(request.method, request.params);
    for (const lineage of session.nestedByOriginal.values()) {
      if (lineage.digest !== digest) continue;
      const ruling = ruleOnRetry(lineage, this.policy.retry.maxRetries, this.#inFlight(lineage));
      if (!ruling.allow) return this.#refuseRetry(request, ruling.code, ruling.reason);
    }
    const lineage = session.errorByDigest.get(digest);
    if (lineage === undefined) return null;
    if (lineage.expiresAt <= this.#clock()) {
      session.errorByDigest.delete(digest);
      return null;
    }
    const ruling = ruleOnRetry(lineage, this.policy.retry.maxRetries, false, this.#flows.progress(lineage));
    if (!ruling.allow) return this.#refuseRetry(request, ruling.code, ruling.reason);
    lineage.retriesUsed = ruling.generation;
    lineage.retryIds.set(request.id, ruling.generation);
    session.retries.set(request.id, lineage);
    this.#flows.onRetry(lineage);
    return null;
  }

  #refuseRetry(request: JsonRpcRequest, code: string, reason: string): Decision {
    const event = this.#event({ type: 'retry.refused', code, requestId: request.id, reason });
    return reply(errorResponse(request.id, RpcCode.invalidRequest, `Request refused by the client-side guard: ${reason}.`, { code }), [event]);
  }

  #onInitialize(request: JsonRpcRequest): Decision {
    const session = this.#session;
    session.restart();
    session.initializeId = request.id;
    const params = isRecord(request.params) ? request.params : {};
    const capabilities = isRecord(params.capabilities) ? params.capabilities : {};
    const declared = declaredModes(capabilities);
    const allowed = allowedModes(declared, this.policy);
    session.declared = declared;
    session.modes = allowed;
    if (modesEqual(declared, allowed)) return forward(request);
    const narrowed = narrowCapabilities(capabilities, declared, allowed);
    const event = this.#event({ type: 'capabilities.narrowed', declared, forwarded: allowed });
    return forward({ ...request, params: { ...params, capabilities: narrowed } }, [event]);
  }

  #onElicitationAnswer(response: JsonRpcResult | JsonRpcError, pending: { mode: ElicitationMode; requestedSchema: unknown; elicitationId: string | null }): Decision {
    if ('error' in response) {
      if (pending.elicitationId !== null) this.#session.completions.finish(pending.elicitationId);
      return forward(response);
    }
    const result = response.result;
    const action = result.action;
    if (pending.mode === 'url') {
      const decided = pending.elicitationId === null ? null : this.#flows.view(pending.elicitationId);
      if (decided !== null && action === 'accept' && (decided.state === 'CANCELLED' || decided.state === 'DECLINED')) {
        // The user (or the server) ended this flow through the guard: a late accept must not reach the server.
        const answer = decided.state === 'DECLINED' ? 'decline' : 'cancel';
        return forward({ jsonrpc: '2.0', id: response.id, result: { action: answer } }, [this.#event({ type: 'response.withheld', code: GuardCode.illegalTransition, requestId: response.id, reason: `the flow was already ${decided.state.toLowerCase()}` })]);
      }
      if (pending.elicitationId !== null) this.#flows.onAnswer(pending.elicitationId, action);
      if (action !== 'accept' && pending.elicitationId !== null) this.#session.completions.finish(pending.elicitationId);
      // URL mode never carries data back: "the content field is omitted".
      if (action === 'accept' && 'content' in result) {
        const { content: _dropped, ...rest } = result;
        return forward({ ...response, result: rest });
      }
      return forward(response);
    }
    if (action !== 'accept') return forward(response);
    const check = checkContent(result.content, pending.requestedSchema);
    if (check.ok) return forward(response);
    this.#metrics.contentWithheld += 1;
    const codes = check.findings.map((f) => f.code);
    const code = codes.includes(GuardCode.secretInContent) ? GuardCode.secretInContent : GuardCode.contentInvalid;
    const fields = [...new Set(check.findings.flatMap((f) => (f.field === undefined ? [] : [f.field])))];
    const event = this.#event({ type: 'content.withheld', code, requestId: response.id, fields, findings: codes });
    return forward({ jsonrpc: '2.0', id: response.id, result: { action: 'cancel' } }, [event]);
  }

  // ---------------------------------------------------------------- events

  /** The `url.allow` rules and `url.onBlock: "audit"` an analysis used, as events. */
  #exceptionEvents(analysis: UrlAnalysis, requestId: JsonRpcId): GuardEvent[] {
    const events = (analysis.exceptions ?? []).map((use) => this.#event({ ...use, requestId: requestId as string | number }));
    if (analysis.audited !== undefined) events.push(this.#event({ type: 'url.audited', requestId: requestId as string | number, host: analysis.display.hostAscii, findings: analysis.audited }));
    return events;
  }

  #server(): ServerIdentity {
    return { key: this.#serverKey, name: this.#session.serverName, version: this.#session.serverVersion };
  }

  #event<E extends DistributiveOmit<GuardEvent, 'at' | 'server' | 'generation'>>(fields: E): GuardEvent {
    return { at: this.#clock(), server: this.#server(), generation: this.#session.generation, ...fields } as GuardEvent;
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A copy of a request with one namespaced `_meta` entry added to its params. */
function withMeta(request: JsonRpcRequest, key: string, value: unknown): JsonRpcRequest {
  const params = request.params ?? {};
  const meta = isRecord(params._meta) ? params._meta : {};
  return { ...request, params: { ...params, _meta: { ...meta, [key]: value } } };
}
