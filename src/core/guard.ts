import { randomBytes } from 'node:crypto';
import type { GuardEvent, ServerIdentity } from '../audit/events.js';
import { auditForm, checkContent } from '../form/index.js';
import { allowedModes, declaredModes, hasMode, modesEqual, narrowCapabilities, type Modes } from '../negotiation/capabilities.js';
import { toPolicyDocument, type Policy, type PolicyDocument } from '../policy/policy.js';
import { shortDigest } from '../protocol/digest.js';
import { GuardCode } from '../protocol/errors.js';
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
import { GuardMetaKey, Method, RpcCode, type ElicitationMode } from '../protocol/wire.js';
import { analyzeUrl } from '../url/index.js';
import { drop, forward, reply, type Decision } from './decision.js';
import { emptyMetrics, type GuardMetrics } from './metrics.js';
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

  constructor(options: GuardOptions) {
    this.policy = toPolicyDocument(options.policy).forServer(options.server);
    this.#serverKey = options.server ?? null;
    this.#clock = options.clock ?? Date.now;
    this.#random = options.random ?? ((n) => randomBytes(n));
    this.#onEvent = options.onEvent;
    this.#session = new Session(this.policy, this.#clock);
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
    try {
      decision = direction === 'inbound' ? this.#inbound(message) : this.#outbound(message);
    } catch (error) {
      decision = this.#onInternalError(direction, message, error);
    }
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
        if (notification.method === Method.cancelled) this.#onServerCancelled(notification);
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
    const events: GuardEvent[] = [];
    if (sensitive.length > 0) {
      const blocked = this.policy.form.onSensitive === 'block';
      events.push(this.#event({ type: 'form.sensitive', action: blocked ? 'blocked' : 'audited', requestId: request.id, fields: sensitive.map((f) => ({ name: f.name, class: f.class, reasons: f.reasons })) }));
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
    const analysis = analyzeUrl(params.url, this.policy);
    const codes = analysis.findings.map((f) => f.code);
    if (analysis.verdict === 'block') {
      const reasons = analysis.findings.filter((f) => f.severity === 'error').map((f) => f.message).join('; ');
      return this.#refuse(request, 'url', GuardCode.urlBlocked, `the elicitation URL was blocked: ${reasons}`, codes, [], { findings: codes });
    }
    const session = this.#session;
    session.completions.register(params.elicitationId, session.generation, 'elicitation/create');
    session.serverElicitations.set(request.id, { mode: 'url', requestedSchema: null, elicitationId: params.elicitationId });
    this.#metrics.elicitationsForwarded += 1;
    const event = this.#event({ type: 'elicitation.forwarded', mode: 'url', requestId: request.id, verdict: analysis.verdict, findings: codes, host: analysis.display.hostAscii });
    return forward(withMeta(request, GuardMetaKey.urlAnalysis, analysis), [event]);
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
    const outcome = session.completions.onNotice(id, session.generation);
    if (!outcome.deliver) {
      this.#metrics.completionsDropped += 1;
      return drop([this.#event({ type: 'completion.dropped', reason: outcome.reason, elicitation: shortDigest(id) })]);
    }
    this.#metrics.completionsDelivered += 1;
    return forward(notification, [this.#event({ type: 'completion.delivered', elicitation: shortDigest(id) })]);
  }

  #onServerCancelled(notification: JsonRpcNotification): void {
    const requestId = notification.params?.requestId;
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return;
    const pending = this.#session.serverElicitations.take(requestId);
    if (pending?.elicitationId != null) this.#session.completions.finish(pending.elicitationId);
  }

  #onServerResponse(response: JsonRpcResult | JsonRpcError): Decision {
    const session = this.#session;
    if (response.id === null) return forward(response);
    if (response.id === session.initializeId) {
      session.initializeId = null;
      return this.#onInitializeResponse(response);
    }
    const request = session.hostRequests.take(response.id);
    if (request !== undefined && 'error' in response && response.error.code === RpcCode.urlElicitationRequired) return this.#onUrlRequired(response);
    return forward(response);
  }

  #onInitializeResponse(response: JsonRpcResult | JsonRpcError): Decision {
    const session = this.#session;
    if ('error' in response) return forward(response);
    const result = response.result;
    session.protocolVersion = typeof result.protocolVersion === 'string' ? result.protocolVersion : null;
    const info = isRecord(result.serverInfo) ? result.serverInfo : {};
    session.serverName = typeof info.name === 'string' ? info.name : null;
    session.serverVersion = typeof info.version === 'string' ? info.version : null;
    return forward(response, [this.#event({ type: 'session.initialized', protocolVersion: session.protocolVersion, modes: session.modes })]);
  }

  /**
   * A `-32042` answer to a host request is equivalent to `elicitation/create` requests: it needs URL
   * mode, and each listed elicitation is judged like one. A host that did not negotiate URL mode gets
   * a plain error instead of the list; blocked or malformed entries are removed.
   */
  #onUrlRequired(response: JsonRpcError): Decision {
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
    for (const entry of kept) session.completions.register(entry.elicitationId as string, session.generation, 'url-elicitation-required');
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
        this.#session.hostRequests.set(request.id, request);
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
