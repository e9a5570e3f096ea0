/**
 * The guard's side of protocol revision 2026-07-28 (the "modern" era), for one connection.
 *
 * The wire is read and written by `wire/rev2026-07-28.ts`; the rounds of each original operation are
 * kept by the input-required book (`flow/input-required.ts`); URL flows, consent receipts and
 * business receipts go through the same flow book and ledger as in 2025-11-25; each embedded
 * `elicitation/create` is judged by the same checkers (form audit, URL analysis, mode check,
 * secrets). This module only connects them.
 *
 * How a refused input request looks (the design choice, and why):
 * - the host never sees it: its key is removed from `inputRequests`, and the result the host gets
 *   lists it under `_meta["mcp-elicitation-guard/refused-inputs"]` (key, code, reason), next to a
 *   guard event (`elicitation.refused` with `inputKey`);
 * - the server learns of it on the host's retry, within the 2026 rules: the guard supplies
 *   `{ action: "decline", _meta: { "mcp-elicitation-guard/refusal": { code, reason } } }` for that
 *   key in `inputResponses` (whatever the host sent for it is dropped). The server then decides
 *   what the operation returns, exactly as in 2025-11-25, where a refused `elicitation/create`
 *   gets a JSON-RPC error and the server decides the tool result. Failing the host's call locally
 *   instead would leave the server with an operation that never ends and the host with an error
 *   the server cannot explain; `decline` is what the spec gives a client that will not provide the
 *   input, and a server already handles it.
 */
import { redact } from '../audit/redact.js';
import { checkContent, compileContentCheck, type CompiledContentCheck } from '../form/index.js';
import { Bounded, type ServerResponseRuling } from '../flow/book.js';
import type { InputChain, InputRequiredBook, PresentedInput, RefusedInput } from '../flow/input-required.js';
import { allowedModes, declaredModes, hasMode, modesEqual, narrowCapabilities, NO_MODES, type Modes } from '../negotiation/capabilities.js';
import { shortDigest } from '../protocol/digest.js';
import { GuardCode, wireAnswer } from '../protocol/errors.js';
import {
  errorResponse,
  field,
  isRecord,
  type JsonRpcError,
  type JsonRpcId,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type JsonRpcResult,
  withMember,
} from '../protocol/jsonrpc.js';
import { GuardMetaKey, Method, RpcCode, type ElicitationMode } from '../protocol/wire.js';
import {
  capabilitiesIn,
  claimFrom,
  decodeInputRequired,
  encodeInputRequired,
  INPUT_CAPABLE_METHODS,
  isInputRequired,
  isInputRequiredResponse,
  originalDigest,
  metaIn,
  retryPartsIn,
  retryPartsOf,
  serverInfoOf,
  versionIn,
  withCapabilities,
  withInputResponses,
  withResult,
  type InputRequestPart,
  type RetryParts,
} from '../wire/rev2026-07-28.js';
import { defer, drop, forward, reply, type Decision } from './decision.js';
import type { Translation } from './elicitations.js';
import type { GuardEvent } from './events.js';
import { judgeForm, judgeUrl, withheldOf } from './judgements.js';
import type { EventFields } from './reporter.js';

/** The era of the connection as read from the wire. */
export type Era = 'unknown' | 'probing' | 'legacy' | 'modern' | 'mixed';

/** What the modern side needs from the guard it belongs to: its parts, none of its state. */
export type ModernHost = Translation;

/** A modern request the host sent and the server has not answered yet. */
interface Pending {
  /** The request as sent (kept by reference: digested only if the server asks for input). */
  readonly request: JsonRpcRequest;
  readonly method: string;
  /** The elicitation modes the server was told about on this very request (after the policy's narrowing). */
  readonly modes: Modes;
}

const MAX_PENDING = 4096;

/** What the round book is told of a server answer that is not an input-required result (no allocation per answer). */
const FINAL_ANSWER = Object.freeze({ inputRequired: false, requestState: undefined, error: false });
const ERROR_ANSWER = Object.freeze({ inputRequired: false, requestState: undefined, error: true });

export class ModernSide {
  readonly #host: ModernHost;
  readonly #rounds: InputRequiredBook;
  #era: Era = 'unknown';
  #protocolVersion: string | null = null;
  #declared: Modes = NO_MODES;
  #modes: Modes = NO_MODES;
  /** Bounded (oldest out), and never emptied: V8 reallocates a hash table each time it empties. */
  readonly #pending = new Bounded<JsonRpcId, Pending>(MAX_PENDING);
  /** The capabilities object of the last request and what it declared: SDKs send the same object every time. */
  #lastCapabilities: unknown = undefined;

  constructor(host: ModernHost) {
    this.#host = host;
    this.#rounds = host.book.rounds;
  }

  get era(): Era {
    return this.#era;
  }

  get protocolVersion(): string | null {
    return this.#protocolVersion;
  }

  get declared(): Modes {
    return this.#declared;
  }

  get modes(): Modes {
    return this.#modes;
  }

  /** True when elicitation/create pushed by the server must not be served as 2025-11-25 would. */
  get refusesPushes(): boolean {
    return this.#era === 'modern' || this.#era === 'mixed';
  }

  /** The session as a host sees it: the modern era's negotiation, or the handshake's (`legacy`). */
  view(legacy: { initialized: boolean; protocolVersion: string | null; declaredModes: Modes; modes: Modes }): {
    initialized: boolean;
    protocolVersion: string | null;
    era: Era;
    declaredModes: Modes;
    modes: Modes;
  } {
    if (this.#era === 'modern')
      return {
        initialized: false,
        protocolVersion: this.#protocolVersion,
        era: 'modern',
        declaredModes: this.#declared,
        modes: this.#modes,
      };
    return { ...legacy, era: this.#era === 'unknown' && legacy.initialized ? 'legacy' : this.#era };
  }

  /**
   * Fail closed when judging threw: an input-required result never reaches the host unjudged, and
   * a retry's answers never leave unchecked. `null` for anything else (the 2025-11-25 rules apply).
   */
  onInternalError(direction: 'inbound' | 'outbound', message: unknown, event: GuardEvent): Decision | null {
    if (!isRecord(message) || (typeof message.id !== 'string' && typeof message.id !== 'number')) return null;
    const id = message.id;
    if (direction === 'inbound' && isRecord(message.result) && message.result.resultType === 'input_required') {
      this.#host.metrics.elicitationsRefused += 1;
      return forward(
        toHost(id, GuardCode.internal, "The client-side elicitation guard could not check the server's input request, so it was refused."),
        [event],
      );
    }
    if (
      direction === 'outbound' &&
      typeof message.method === 'string' &&
      isRecord(message.params) &&
      message.params.inputResponses !== undefined
    ) {
      return reply(
        toHost(id, GuardCode.internal, 'The client-side elicitation guard could not check the answers of this retry, so it was not sent.'),
        [event],
      );
    }
    return null;
  }

  /** O(1): is this response one the modern side tracks? */
  owns(id: JsonRpcId | null): boolean {
    return id !== null && this.#pending.has(id);
  }

  /** The host sent `initialize`: a 2025-11-25 connection (after a modern one: mixed). */
  onInitialize(): GuardEvent | null {
    if (this.#era === 'modern' || this.#era === 'mixed') return this.#setEra('mixed', null);
    this.#era = 'legacy';
    return null;
  }

  // ---------------------------------------------------------------- host → server

  /**
   * A host request. Returns `null` when it is not the modern side's (no era claim on a connection
   * that is not modern): the 2025-11-25 path handles it.
   */
  outbound(request: JsonRpcRequest): Decision | null {
    // Each member read once, with `field`: the host built this message (see `field`).
    const method = field(request, 'method') as string;
    const params = field(request, 'params');
    const meta = metaIn(params);
    const version = versionIn(meta);
    const claim = claimFrom(method, version);
    if (claim === null || claim === 'legacy') return null;
    const events: GuardEvent[] = [];
    if (claim === 'modern') {
      if (this.#era !== 'modern') {
        const event = this.#setEra(this.#era === 'legacy' || this.#era === 'mixed' ? 'mixed' : 'modern', version);
        if (event !== null) events.push(event);
      }
      this.#protocolVersion = version;
    } else if (this.#era === 'unknown') this.#era = 'probing';
    // Capabilities travel on every request: narrowed on every request (server/discover included).
    let message = request;
    const capabilities = capabilitiesIn(meta);
    let declared = this.#declared;
    let allowed = this.#modes;
    const changed = capabilities !== this.#lastCapabilities || capabilities === undefined;
    if (changed) {
      declared = declaredModes(capabilities);
      allowed = allowedModes(declared, this.#host.policy);
    }
    if (!modesEqual(declared, allowed) && isRecord(capabilities)) {
      message = withCapabilities(request, narrowCapabilities(capabilities, declared, allowed));
      if (!modesEqual(declared, this.#declared) || !modesEqual(allowed, this.#modes) || this.#lastCapabilities === undefined)
        events.push(this.#event({ type: 'capabilities.narrowed', declared, forwarded: allowed }));
    }
    this.#lastCapabilities = capabilities;
    this.#declared = declared;
    this.#modes = allowed;
    const id = field(request, 'id') as JsonRpcId;
    if (INPUT_CAPABLE_METHODS.has(method)) {
      const ruled = this.#onInputCapable(message, message === request ? retryPartsIn(params) : retryPartsOf(message), events);
      if ('action' in ruled) {
        // Waiting for the shared ledger: the answer is the modern side's whatever the wait decides.
        if (ruled.action === 'defer') this.#track(id, { request, method, modes: allowed });
        return ruled;
      }
      message = ruled;
    }
    this.#track(id, { request, method, modes: allowed });
    return forward(message, events);
  }

  /**
   * `outbound` for the common modern request, which changes nothing the guard must report or rule
   * on: a 2026-07-28 request on a connection already in that era, with the same capabilities object
   * as the request before (so nothing new to read or narrow) and no retry parts. Tracked as
   * `outbound` tracks it, and true returned; false, changing nothing, otherwise (`outbound` then).
   * `read`: the request's members as read from it.
   */
  passesRequest(
    request: JsonRpcRequest,
    read: { readonly method: string; readonly id: JsonRpcId; readonly params: unknown; readonly meta: unknown; readonly version: string },
  ): boolean {
    const { method, params } = read;
    if (this.#era !== 'modern' || !modesEqual(this.#declared, this.#modes)) return false;
    const capabilities = capabilitiesIn(read.meta);
    if (capabilities !== this.#lastCapabilities || capabilities === undefined) return false;
    if (INPUT_CAPABLE_METHODS.has(method)) {
      const parts = retryPartsIn(params);
      if (parts.inputResponses !== undefined || parts.requestState !== undefined) return false;
    }
    this.#protocolVersion = read.version;
    this.#track(read.id, { request, method, modes: this.#modes });
    return true;
  }

  /**
   * A `tools/call` / `prompts/get` / `resources/read`: an original leg, or a retry of a round.
   * Returns the request to send (rewritten or the same object) or the decision that refuses it.
   */
  #onInputCapable(request: JsonRpcRequest, parts: RetryParts, events: GuardEvent[]): Decision | JsonRpcRequest {
    if (parts.inputResponses === null || parts.requestState === null) {
      return this.#refuseRequest(request, GuardCode.invalidParams, 'inputResponses must be an object and requestState a string', events);
    }
    // An original leg (no retry parts) is not recorded: nothing to rule on, nothing allocated.
    if (parts.inputResponses === undefined && parts.requestState === undefined) return request;
    const ruling = this.#rounds.onRequest(request.id, request.method, true, parts.requestState, () => originalDigest(request));
    switch (ruling.kind) {
      case 'original':
        return request;
      case 'refused':
        return this.#refuseRequest(request, ruling.code, ruling.reason, events);
      case 'unknown': {
        // A retry of a round the guard never saw (expired, forged, from another connection): no
        // answer it carries was presented by the guard, so none leaves.
        let sent = request;
        if (parts.inputResponses !== undefined && Object.keys(parts.inputResponses).length > 0) {
          for (const key of Object.keys(parts.inputResponses))
            events.push(this.#withheld(request.id, key, GuardCode.inputNotPresented, []));
          sent = withInputResponses(request, {});
        }
        return this.#unknownRetry(request, sent, events);
      }
      case 'retry':
        return this.#checkResponses(request, ruling.chain, parts.inputResponses ?? {}, events) ?? request;
    }
  }

  /**
   * A retry this guard cannot place, under a shared session key: another guard of the session may
   * have run its rounds (and died). The shared ledger decides before it is sent: an operation
   * already accepted within the time to live is refused (E_ALREADY_ACCEPTED), one never accepted
   * goes on (the server asks again, and this guard accepts its final answer once). A ledger that
   * cannot answer refuses it (E_LEDGER_UNAVAILABLE): at most once cannot be checked.
   */
  #unknownRetry(request: JsonRpcRequest, sent: JsonRpcRequest, events: GuardEvent[]): Decision | JsonRpcRequest {
    const accepted = this.#host.book.acceptedInSession('input-required', originalDigest(request));
    if (accepted === null) return sent;
    const refuse = (code: GuardCode, reason: string): Decision => {
      const refusal = this.#refuseRequest(request, code, reason, []);
      this.#pending.delete(request.id);
      this.#rounds.onAnswer(request.id, { inputRequired: false, requestState: undefined, error: true });
      return refusal;
    };
    return defer(
      accepted.then(
        (receipt) =>
          receipt === null
            ? forward(sent)
            : refuse(GuardCode.alreadyAccepted, 'another guard of this session already accepted a final answer for this operation'),
        () => refuse(GuardCode.ledgerUnavailable, 'the shared ledger could not be read, so at most once cannot be checked'),
      ),
      events,
    );
  }

  /**
   * The retry's `inputResponses`, checked like a 2025-11-25 elicitation answer: form content against
   * the requested schema and the secrets rules (a failing answer becomes `cancel`), URL answers
   * without content and consistent with the flow the user decided through the guard, answers to
   * keys never presented dropped, and the guard's own `decline` for every key it refused.
   */
  #checkResponses(
    request: JsonRpcRequest,
    chain: InputChain,
    responses: Record<string, unknown>,
    events: GuardEvent[],
  ): JsonRpcRequest | null {
    const lineage = chain.lineage;
    // The user cancelled one of the chain's URL flows by hand (or declined it): the operation ends
    // with this retry, which tells the server `cancel`.
    if (lineage?.refused === true && !chain.cancelled) {
      this.#rounds.cancel(chain);
      chain.cancelSent = true;
    }
    const out: Record<string, unknown> = {};
    let changed = false;
    for (const [key, refused] of chain.refused) {
      out[key] = refusalAnswer(refused);
      changed = true;
    }
    for (const [key, answer] of Object.entries(responses)) {
      if (chain.refused.has(key)) continue;
      const presented = chain.presented.get(key);
      if (presented === undefined) {
        events.push(this.#withheld(request.id, key, GuardCode.inputNotPresented, []));
        changed = true;
        continue;
      }
      const checked = this.#checkOne(request.id, key, presented, answer, chain, events);
      if (checked !== answer) changed = true;
      out[key] = checked;
    }
    // Cancelled by hand: every elicitation the host did not answer is answered `cancel`.
    if (chain.cancelled) {
      for (const [key, presented] of chain.presented) {
        if (presented.kind !== 'other' && !(key in out)) {
          out[key] = { action: 'cancel' };
          changed = true;
        }
      }
    }
    return changed ? withInputResponses(request, out) : null;
  }

  #checkOne(
    requestId: JsonRpcId,
    key: string,
    presented: PresentedInput,
    answer: unknown,
    chain: InputChain,
    events: GuardEvent[],
  ): unknown {
    if (presented.kind === 'other') return answer;
    if (!isRecord(answer) || (answer.action !== 'accept' && answer.action !== 'decline' && answer.action !== 'cancel')) {
      events.push(this.#withheld(requestId, key, GuardCode.contentInvalid, []));
      return { action: 'cancel' };
    }
    if (chain.cancelled) return answer.action === 'accept' ? { action: 'cancel' } : answer;
    if (presented.kind === 'url') {
      const ruling = this.#host.book.inputAnswer(presented.flowId, answer.action);
      if (ruling.ruling === 'override') {
        // The user (or a manual control) ended this flow through the guard: a late accept never reaches the server.
        events.push(this.#event({ type: 'response.withheld', code: GuardCode.illegalTransition, requestId, reason: ruling.reason }));
        return { action: ruling.action };
      }
      // URL mode never carries data back.
      if ('content' in answer) {
        const { content: _dropped, ...rest } = answer;
        return rest;
      }
      return answer;
    }
    if (answer.action !== 'accept') return answer;
    const withheld = withheldOf(this.#answerCheck(presented.requestedSchema)(answer.content));
    if (withheld === null) return answer;
    this.#host.metrics.contentWithheld += 1;
    events.push(
      this.#event({
        type: 'content.withheld',
        code: withheld.code,
        requestId,
        inputKey: key,
        fields: withheld.fields,
        findings: withheld.findings,
      }),
    );
    return { action: 'cancel' };
  }

  /** The host cancelled one of its requests. */
  onHostCancelled(notification: JsonRpcNotification): void {
    const id = notification.params?.requestId;
    if (typeof id === 'string' || typeof id === 'number') this.#rounds.onHostCancelled(id);
  }

  // ---------------------------------------------------------------- server → host

  /**
   * A server answer, before the 2025-11-25 rules see it: the answer to a modern request, or an
   * input-required result to a 2025 request (or to nothing), which is never delivered as is.
   * `null`: not the modern side's (O(1): a map lookup and a key read).
   */
  inboundResponse(response: JsonRpcResponse): Decision | null {
    const id = response.id;
    if (id === null) return null;
    if (this.#pending.has(id)) return this.inbound(response);
    if (!isInputRequiredResponse(response)) return null;
    return this.misplaced(response, this.#host.book.serverResponse(id, 'error', response).ruling === 'unmatched');
  }

  /** The answer to a modern request. */
  inbound(response: JsonRpcResult | JsonRpcError): Decision {
    const id = response.id as JsonRpcId;
    const pending = this.#pending.take(id);
    if (pending === undefined) return forward(response);
    if ('error' in response) {
      this.#rounds.onAnswer(id, ERROR_ANSWER);
      if (response.error.code === RpcCode.urlElicitationRequired) {
        // -32042 is 2025-11-25 only: its elicitation list never reaches a 2026-07-28 host.
        const event = this.#violation(
          GuardCode.eraMismatch,
          pending.method,
          id,
          'a -32042 URL elicitation requirement on a 2026-07-28 connection was replaced by a plain error',
        );
        return forward(
          toHost(
            id,
            GuardCode.eraMismatch,
            'The server answered with a 2025-11-25 URL elicitation requirement (-32042) on a 2026-07-28 connection; the request failed.',
          ),
          [event],
        );
      }
      return forward(response);
    }
    const result = response.result;
    // A result that is not even an object asks for nothing: it passes (the SDK rejects it).
    if (!isRecord(result)) return forward(response);
    this.#learnServer(result);
    if (!isInputRequired(result)) {
      const ruling = this.#rounds.onAnswer(id, FINAL_ANSWER);
      if (ruling.kind === 'complete') return this.#accept(ruling.chain, response);
      if (ruling.kind === 'duplicate') return this.#withhold(response, 'a second final answer for an operation that already received one');
      return forward(response);
    }
    return this.#onInputRequired(response, pending);
  }

  /**
   * `inbound` for the common answer to a modern request: a final result (not input-required, not an
   * error) to a request that is not a retry leg of a chain. The server's self-description is read
   * and the request is no longer in flight, as `inbound` does; true is returned (the decision would
   * forward it untouched). False, changing nothing, otherwise. Call only when `owns(id)`.
   */
  passesResult(id: JsonRpcId, result: Record<string, unknown>): boolean {
    if (isInputRequired(result) || this.#rounds.hasLeg(id)) return false;
    this.#learnServer(result);
    this.#pending.delete(id);
    return true;
  }

  /**
   * An input-required result: each embedded elicitation is judged before the host sees any of it.
   * Fail closed: a result that cannot be read, on a request that cannot carry one, or on a
   * connection whose era is not 2026-07-28, becomes an error to the host.
   */
  #onInputRequired(response: JsonRpcResult, pending: Pending): Decision {
    const id = response.id;
    if (!INPUT_CAPABLE_METHODS.has(pending.method)) {
      return this.#failClosed(
        id,
        pending.method,
        GuardCode.invalidParams,
        `an input-required result answered ${pending.method}, which cannot ask for input`,
      );
    }
    if (this.#era === 'mixed')
      return this.#failClosed(
        id,
        pending.method,
        GuardCode.eraMismatch,
        'the connection mixes the 2025-11-25 and 2026-07-28 eras; input requests are refused',
      );
    const decoded = decodeInputRequired(response.result);
    if (!decoded.ok) {
      this.#rounds.onAnswer(id, ERROR_ANSWER);
      return this.#failClosed(id, pending.method, GuardCode.invalidParams, decoded.reason);
    }
    const request = pending.request;
    const ruling = this.#rounds.onAnswer(
      id,
      { inputRequired: true, requestState: decoded.requestState, error: false },
      { method: request.method, digestOf: digestOfOriginal(request) },
    );
    if (ruling.kind === 'ended') {
      return this.#failClosed(
        id,
        pending.method,
        GuardCode.retryNotEligible,
        'the user cancelled this operation; the server asked for more input anyway',
      );
    }
    if (ruling.kind !== 'round')
      return this.#failClosed(id, pending.method, GuardCode.internal, 'an input-required result the guard could not attribute');
    const chain = ruling.chain;
    // The server's next round answers the previous one: a URL step the user went through is verified by it.
    // (The chain has a lineage once a URL step was presented; a chain of forms never needs one.)
    if (!ruling.fresh && chain.lineage !== null) this.#host.book.inputRoundAnswered(chain.lineage);
    const events: GuardEvent[] = [];
    const kept = new Map<string, Record<string, unknown>>();
    const refusedList: { key: string; code: string; reason: string }[] = [];
    const refusals = { chain, requestId: id, list: refusedList, events };
    for (const bad of decoded.malformed)
      this.#refuseInput(refusals, bad.key, null, { code: GuardCode.invalidParams, reason: bad.reason, answer: 'decline' });
    for (const part of decoded.requests) {
      if (part.method !== Method.elicitationCreate) {
        // sampling/createMessage and roots/list pass as they are.
        chain.presented.set(part.key, { kind: 'other', method: part.method });
        kept.set(part.key, part.entry);
        continue;
      }
      const judged = this.#judge(id, part, pending.modes, chain, events);
      if (judged.ok) {
        chain.presented.set(part.key, judged.presented);
        kept.set(part.key, withMember(part.entry, 'params', judged.params));
      } else
        this.#refuseInput(
          refusals,
          part.key,
          judged.mode,
          { code: judged.code, reason: judged.reason, answer: 'decline' },
          judged.findings,
        );
    }
    const meta = refusedList.length > 0 ? { [GuardMetaKey.refusedInputs]: refusedList } : null;
    return forward(withResult(response, encodeInputRequired(response.result, kept, meta)), events);
  }

  /** A key of an input-required round the host will not see: remembered for the retry, listed in the result, told as an event. */
  #refuseInput(
    refusals: {
      readonly chain: InputChain;
      readonly requestId: JsonRpcId;
      readonly list: { key: string; code: string; reason: string }[];
      readonly events: GuardEvent[];
    },
    key: string,
    mode: ElicitationMode | null,
    refused: RefusedInput,
    findings: readonly string[] = [],
  ): void {
    refusals.chain.refused.set(key, refused);
    refusals.list.push({ key, code: refused.code, reason: refused.reason });
    this.#host.metrics.elicitationsRefused += 1;
    refusals.events.push(
      this.#event({
        type: 'elicitation.refused',
        code: refused.code,
        mode,
        requestId: refusals.requestId,
        inputKey: key,
        reason: refused.reason,
        findings,
      }),
    );
  }

  /** One embedded `elicitation/create`, judged like a 2025-11-25 request, by the same checkers. */
  #judge(requestId: JsonRpcId, part: InputRequestPart, modes: Modes, chain: InputChain, events: GuardEvent[]): Judged {
    const { policy, metrics } = this.#host;
    const raw = part.params;
    const rawMode = raw.mode ?? 'form';
    if (rawMode !== 'form' && rawMode !== 'url')
      return refused(
        null,
        GuardCode.invalidParams,
        `unknown elicitation mode ${JSON.stringify(rawMode).slice(0, 40)}; the revision defines "form" and "url"`,
      );
    const mode: ElicitationMode = rawMode;
    if (!hasMode(modes, mode)) {
      const why = hasMode(this.#declared, mode) ? 'the client policy disables it' : 'the request did not declare it';
      return refused(mode, GuardCode.modeNotNegotiated, `${mode}-mode elicitation was not declared on this request (${why})`);
    }
    if (typeof raw.message !== 'string') return refused(mode, GuardCode.invalidParams, 'elicitation/create needs a string "message"');
    // Whatever the server put under the guard's own `_meta` keys is not the guard's judgement.
    const meta = isRecord(raw._meta) ? stripGuardMeta(raw._meta) : undefined;
    if (mode === 'form') {
      if (!isRecord(raw.requestedSchema))
        return refused(mode, GuardCode.invalidParams, 'form-mode elicitation needs a "requestedSchema" object');
      // Fields of the other mode do not reach the host.
      const formParams = 'url' in raw || 'elicitationId' in raw ? withoutUrlKeys(raw) : raw;
      const seen = this.#judgeForm(formParams);
      const judged = seen.judged;
      if (judged.sensitive.length > 0) {
        const fields = judged.sensitive.map((f) => ({ name: f.name, class: f.class, reasons: f.reasons }));
        events.push(this.#event({ type: 'form.sensitive', action: judged.blocked ? 'blocked' : 'audited', requestId, fields }));
        if (judged.blocked) metrics.sensitiveFieldsBlocked += judged.sensitive.length;
        else metrics.sensitiveFieldsLetThrough += judged.sensitive.length;
      }
      if (judged.refusal !== null) return refused(mode, judged.refusal.code, judged.refusal.reason, judged.refusal.findings);
      metrics.elicitationsForwarded += 1;
      events.push(
        this.#event({
          type: 'elicitation.forwarded',
          mode,
          requestId,
          inputKey: part.key,
          verdict: judged.audit.verdict,
          findings: judged.codes,
          host: null,
        }),
      );
      return {
        ok: true,
        // The guard's own copy of the schema (what was judged): what the host or server does to theirs later changes nothing.
        presented: { kind: 'form', requestedSchema: seen.form.requestedSchema },
        params: withMember(formParams, '_meta', withMember(meta ?? {}, GuardMetaKey.formAudit, judged.audit)),
      };
    }
    if (typeof raw.url !== 'string') return refused(mode, GuardCode.invalidParams, 'url-mode elicitation needs a string "url"');
    if (policy.issuing === 'stopped')
      return refused(mode, GuardCode.issuingStopped, 'URL elicitations are stopped by policy (issuing: "stopped")');
    if (policy.subject.required && this.#host.subject === null)
      return refused(
        mode,
        GuardCode.subjectRequired,
        'URL mode needs a verified user subject and the client has none (policy subject.required)',
      );
    const judged = judgeUrl(raw.url, policy);
    if (judged.refusal !== null) return refused(mode, judged.refusal.code, judged.refusal.reason, judged.refusal.findings);
    // No elicitationId in this revision: the guard names the flow, bound to the connection, the
    // original operation (the chain), the round and the key.
    const flowId = `${chain.id}.${chain.round}.${part.key.length > 40 ? shortDigest(part.key) : part.key}`;
    this.#host.book.presentedInput(
      {
        elicitationId: flowId,
        url: raw.url,
        message: raw.message,
        analysis: judged.analysis,
        server: this.#host.server(),
        subject: this.#host.subject,
      },
      this.#host.book.inputLineage(chain, chain.originalId),
      requestId,
    );
    this.#rounds.bindFlow(chain, flowId);
    metrics.elicitationsForwarded += 1;
    events.push(
      this.#event({
        type: 'elicitation.forwarded',
        mode,
        requestId,
        inputKey: part.key,
        verdict: judged.analysis.verdict,
        findings: judged.codes,
        host: judged.analysis.display.hostAscii,
      }),
    );
    const { requestedSchema: _s, elicitationId: _e, ...urlParams } = raw;
    return {
      ok: true,
      presented: { kind: 'url', flowId },
      params: { ...urlParams, _meta: { ...meta, [GuardMetaKey.urlAnalysis]: judged.analysis, [GuardMetaKey.flow]: flowId } },
    };
  }

  /**
   * Form judgements, by the form: a server asks the same form in every call of a tool, and the
   * audit (lexicon, reading rules) is the costly part of a round. Each judgement is kept with a
   * copy of the form it judged (everything but `_meta`) and reused only for a form equal to it
   * member by member, in the same order (`sameJson`): comparing costs a fraction of serialising the
   * form to look it up. Found by the form's message; bounded, oldest out.
   */
  readonly #forms = new Map<string, SeenForm[]>();

  /**
   * The answer checks of the forms this guard presented, by the guard's own copy of their schema
   * (which nothing changes): the schema is read once, not on every answer.
   */
  readonly #answerChecks = new WeakMap<object, CompiledContentCheck>();

  #answerCheck(requestedSchema: unknown): CompiledContentCheck {
    if (!isRecord(requestedSchema)) return (content) => checkContent(content, requestedSchema);
    let check = this.#answerChecks.get(requestedSchema);
    if (check === undefined) {
      check = compileContentCheck(requestedSchema);
      this.#answerChecks.set(requestedSchema, check);
    }
    return check;
  }

  #judgeForm(params: Record<string, unknown>): SeenForm {
    const message = params.message as string;
    const known = this.#forms.get(message);
    if (known !== undefined) for (const seen of known) if (sameForm(seen.form, params)) return seen;
    const seen: SeenForm = { form: formCopy(params), judged: judgeForm(params, this.#host.policy) };
    if (known === undefined) {
      this.#forms.set(message, [seen]);
      if (this.#forms.size > 256) this.#forms.delete(this.#forms.keys().next().value as string);
    } else if (known.unshift(seen) > 8) known.pop();
    return seen;
  }

  /** The chain's final answer: accepted once, with a business receipt (delivered once it is durable, with a ledger). */
  #accept(chain: InputChain, response: JsonRpcResult): Decision {
    const lineage = chain.lineage;
    if (lineage === null) return forward(response);
    const ruling: ServerResponseRuling = this.#host.book.inputComplete(lineage, response.id, response, chain.round);
    if (ruling.ruling === 'withhold') return this.#withhold(response, ruling.reason);
    if (ruling.ruling !== 'accept' || ruling.until === null) return forward(response);
    return defer(ruling.until.then((o) => (o.accepted ? forward(response) : this.#withhold(response, o.reason, o.code))));
  }

  /** The server's self-description as last seen (raw), so an unchanged one costs a comparison. */
  #lastServerInfo: { name: unknown; version: unknown } | null = null;

  #learnServer(result: Record<string, unknown>): void {
    const info = serverInfoOf(result);
    if (info === null) return;
    const last = this.#lastServerInfo;
    if (last !== null && last.name === info.name && last.version === info.version) return;
    this.#lastServerInfo = { name: info.name, version: info.version };
    // The server names itself: a secret-shaped name never reaches an event.
    const session = this.#host.session;
    session.serverName = typeof info.name === 'string' ? redact(info.name) : null;
    session.serverVersion = typeof info.version === 'string' ? redact(info.version) : null;
  }

  #track(id: JsonRpcId, pending: Pending): void {
    this.#pending.delete(id);
    this.#pending.put(id, pending);
  }

  #setEra(era: 'modern' | 'mixed', version: string | null): GuardEvent | null {
    if (this.#era === era) return null;
    this.#era = era;
    return this.#event({ type: 'session.era', era, protocolVersion: version });
  }

  #refuseRequest(request: JsonRpcRequest, code: string, reason: string, events: GuardEvent[]): Decision {
    events.push(this.#event({ type: 'retry.refused', code, requestId: request.id, reason }));
    return reply(toHost(request.id, code, `Request refused by the client-side guard: ${reason}.`), events);
  }

  #failClosed(id: JsonRpcId, method: string, code: string, reason: string): Decision {
    this.#host.metrics.elicitationsRefused += 1;
    const event = this.#violation(code, method, id, reason);
    return forward(toHost(id, code, `The client-side guard refused the server's input request: ${reason}.`), [event]);
  }

  /** An answer not delivered: `E_ALREADY_ACCEPTED` unless the ledger said otherwise (`E_LEDGER_UNAVAILABLE`, …). */
  #withhold(response: JsonRpcResult, reason: string, code: GuardCode = GuardCode.alreadyAccepted): Decision {
    const id = response.id;
    const event = this.#event({ type: 'response.withheld', code, requestId: id, reason });
    return forward(toHost(id, code, `The client-side guard withheld this answer: ${reason}.`), [event]);
  }

  #withheld(requestId: JsonRpcId, key: string, code: string, findings: readonly string[]): GuardEvent {
    this.#host.metrics.contentWithheld += 1;
    return this.#event({ type: 'content.withheld', code, requestId, inputKey: key, fields: [], findings });
  }

  /** A stray `elicitation/create` pushed by the server on a modern (or mixed) connection: dropped, never answered. */
  stray(request: JsonRpcRequest): Decision {
    this.#host.metrics.elicitationsRefused += 1;
    return drop([
      this.#violation(
        GuardCode.eraMismatch,
        request.method,
        request.id,
        `elicitation/create pushed by the server on a ${this.#era === 'mixed' ? 'mixed-era' : '2026-07-28'} connection was dropped ` +
          '(this revision has no server-to-client requests)',
      ),
    ]);
  }

  /** An input-required result answering a 2025-11-25 request, or nothing at all. */
  misplaced(response: JsonRpcResult, answersNothing: boolean): Decision {
    if (answersNothing)
      return drop([
        this.#violation(GuardCode.invalidParams, null, response.id, 'an input-required result answering no request in flight was dropped'),
      ]);
    return this.#failClosed(
      response.id,
      'a 2025-11-25 request',
      GuardCode.eraMismatch,
      'an input-required result answered a 2025-11-25 request',
    );
  }

  #event(fields: EventFields): GuardEvent {
    return this.#host.report.event(fields);
  }

  #violation(code: string, method: string | null, requestId: JsonRpcId | null, reason: string): GuardEvent {
    return this.#event({ type: 'protocol.violation', code, method, requestId, reason });
  }
}

/** An answer to the host in the guard's name: the code's wire answer (protocol/errors.ts), the code in `error.data.code`. */
function toHost(id: JsonRpcId, code: string, message: string): JsonRpcError {
  const answer = wireAnswer(code as GuardCode, 'host');
  return errorResponse(id, answer.rpc, message, answer.data);
}

type Judged =
  | { readonly ok: true; readonly presented: PresentedInput; readonly params: Record<string, unknown> }
  | {
      readonly ok: false;
      readonly mode: ElicitationMode | null;
      readonly code: string;
      readonly reason: string;
      readonly findings: readonly string[];
    };

function refused(mode: ElicitationMode | null, code: string, reason: string, findings: readonly string[] = []): Judged {
  return { ok: false, mode, code, reason, findings };
}

/** What the server gets for a key the guard refused. */
function refusalAnswer(refused: RefusedInput): Record<string, unknown> {
  return { action: refused.answer, _meta: { [GuardMetaKey.refusal]: { code: refused.code, reason: refused.reason } } };
}

/** A form the guard judged: its own copy of the form (without `_meta`), and the judgement. */
interface SeenForm {
  readonly form: Record<string, unknown>;
  readonly judged: ReturnType<typeof judgeForm>;
}

/**
 * The original's digest, taken when read. A function of its own, not an arrow in the object
 * literal: a transpiler that keeps function names (tsx, esbuild's keepNames) names such an arrow
 * after its member with a property definition on every call.
 */
function digestOfOriginal(request: JsonRpcRequest): () => string {
  return () => originalDigest(request);
}

/** Form-mode params without the URL mode's fields. */
function withoutUrlKeys(params: Record<string, unknown>): Record<string, unknown> {
  const { url: _u, elicitationId: _e, ...rest } = params;
  return rest;
}

/** A JSON copy of a form's params without `_meta` (what a judgement is reused for). */
function formCopy(params: Record<string, unknown>): Record<string, unknown> {
  const { _meta: _m, ...asked } = params;
  return JSON.parse(JSON.stringify(asked)) as Record<string, unknown>;
}

/** True when `params` (its `_meta` aside) is the form `copy` holds: same members, same order, same values. */
function sameForm(copy: Record<string, unknown>, params: Record<string, unknown>): boolean {
  const keys = Object.keys(params);
  let compared = 0;
  for (const key of keys) {
    if (key === '_meta') continue;
    if (!Object.hasOwn(copy, key) || !sameJson(copy[key], field(params, key))) return false;
    compared += 1;
  }
  return compared === Object.keys(copy).length && sameOrder(Object.keys(copy), keys);
}

function sameOrder(copyKeys: readonly string[], keys: readonly string[]): boolean {
  let i = 0;
  for (const key of keys) if (key !== '_meta' && key !== copyKeys[i++]) return false;
  return true;
}

function isPlainJsonObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Equality of JSON values, objects member by member in order: true only when both serialise
 * alike. Anything that is not a plain object, an array or a primitive is never equal (a judgement
 * is then made afresh).
 */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return typeof a !== 'number' || Number.isFinite(a);
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b) || !isPlainJsonObject(a) || !isPlainJsonObject(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  for (let i = 0; i < keysA.length; i++) {
    const key = keysA[i] as string;
    // The message's side read with `field`: a server's objects may each have a hidden class of their own.
    if (key !== keysB[i] || !sameJson((a as Record<string, unknown>)[key], field(b, key))) return false;
  }
  return true;
}

const GUARD_META_KEYS: ReadonlySet<string> = new Set(Object.values(GuardMetaKey));

function stripGuardMeta(meta: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> | null = null;
  for (const key of Object.keys(meta)) {
    if (!GUARD_META_KEYS.has(key)) continue;
    out ??= { ...meta };
    delete out[key];
  }
  return out ?? meta;
}
