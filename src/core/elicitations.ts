/**
 * Translating what the server asks of the user: `elicitation/create` requests (judged by the form
 * and URL checkers, recorded in the flow book) and URL-elicitation requirements in answer to host
 * requests (each entry judged like one URL elicitation).
 */
import type { FlowBook, RequestEvent } from '../flow/book.js';
import { hasMode } from '../negotiation/capabilities.js';
import type { Policy } from '../policy/policy.js';
import { GuardCode } from '../protocol/errors.js';
import type { JsonRpcError, JsonRpcId, JsonRpcRequest, JsonRpcResponse } from '../protocol/jsonrpc.js';
import { GuardMetaKey, type ElicitationMode } from '../protocol/wire.js';
import type { UrlAnalysis } from '../url/types.js';
import type { ElicitationRead, WireCodec } from '../wire/codec.js';
import { drop, forward, reply, type Decision } from './decision.js';
import type { GuardEvent, ServerIdentity } from './events.js';
import { judgeForm, judgeRequirement, judgeUrl, type Refusal } from './judgements.js';
import type { GuardMetrics } from './metrics.js';
import type { Reporter } from './reporter.js';
import type { Session } from './session.js';

/** What a translation step works with: the guard's parts, none of its own state. */
export interface Translation {
  readonly policy: Policy;
  readonly codec: WireCodec;
  readonly session: Session;
  readonly book: FlowBook<UrlAnalysis>;
  readonly metrics: GuardMetrics;
  readonly report: Reporter;
  readonly subject: string | null;
  server(): ServerIdentity;
}

export function dropped(ctx: Translation, code: GuardCode, message: string): Decision {
  return drop([ctx.report.event({ type: 'guard.error', code, message })]);
}

export function onElicitation(ctx: Translation, request: JsonRpcRequest): Decision {
  if (ctx.book.serverRequestPending(request.id)) {
    ctx.metrics.elicitationsRefused += 1;
    return idInUse(ctx);
  }
  const session = ctx.session;
  const read = ctx.codec.readElicitation(request);
  if (!read.ok) return refuse(ctx, request, null, { code: GuardCode.invalidParams, reason: read.reason, findings: [] });
  const mode = read.mode;
  if (!session.initialized)
    return refuse(ctx, request, mode, {
      code: GuardCode.modeNotNegotiated,
      reason: `${mode}-mode elicitation before initialization completed.`,
      findings: [],
    });
  if (!hasMode(session.modes, mode)) {
    const why = hasMode(session.declared, mode) ? 'the client policy disables it' : 'the client did not declare it';
    return refuse(ctx, request, mode, {
      code: GuardCode.modeNotNegotiated,
      reason: `${mode}-mode elicitation was not negotiated (${why}).`,
      findings: [],
    });
  }
  if (read.invalid !== null) return refuse(ctx, request, mode, { code: GuardCode.invalidParams, reason: read.invalid, findings: [] });
  return mode === 'form' ? onFormElicitation(ctx, request, read) : onUrlElicitation(ctx, request, read);
}

function onFormElicitation(ctx: Translation, request: JsonRpcRequest, read: ElicitationRead & { ok: true }): Decision {
  const judged = judgeForm(read.params, ctx.policy);
  // The server's form.allow rules the audit applied (issue 13): each use is an event.
  const events: GuardEvent[] = (judged.audit.exceptions ?? []).map((use) => ctx.report.event({ ...use, requestId: request.id }));
  const sensitive = judged.sensitive;
  if (sensitive.length > 0) {
    const fields = sensitive.map((f) => ({ name: f.name, class: f.class, reasons: f.reasons }));
    const digest = judged.audit.schemaDigest === undefined ? {} : { schemaDigest: judged.audit.schemaDigest };
    events.push(
      ctx.report.event({
        type: 'form.sensitive',
        action: judged.blocked ? 'blocked' : 'audited',
        requestId: request.id,
        fields,
        ...digest,
      }),
    );
    if (judged.blocked) ctx.metrics.sensitiveFieldsBlocked += sensitive.length;
    else ctx.metrics.sensitiveFieldsLetThrough += sensitive.length;
  }
  if (judged.refusal !== null) return refuse(ctx, request, 'form', judged.refusal, events);
  ctx.book.serverRequest(request, ctx.codec.pendingOf(read));
  ctx.metrics.elicitationsForwarded += 1;
  events.push(
    ctx.report.event({
      type: 'elicitation.forwarded',
      mode: 'form',
      requestId: request.id,
      verdict: judged.audit.verdict,
      findings: judged.codes,
      host: null,
    }),
  );
  return forward(ctx.codec.toHost(request, read, GuardMetaKey.formAudit, judged.audit), events);
}

function onUrlElicitation(ctx: Translation, request: JsonRpcRequest, read: ElicitationRead & { ok: true }): Decision {
  if (ctx.policy.issuing === 'stopped') {
    ctx.metrics.elicitationsRefused += 1;
    const reason = 'URL elicitations are stopped by policy (issuing: "stopped").';
    const event = ctx.report.event({
      type: 'elicitation.refused',
      code: GuardCode.issuingStopped,
      mode: 'url',
      requestId: request.id,
      reason,
      findings: [],
    });
    const meta = {
      [GuardMetaKey.urlAnalysis]: { code: GuardCode.issuingStopped, reason: 'URL elicitations are stopped by the client policy.' },
    };
    return reply(ctx.codec.elicitationAnswer(request.id, 'decline', meta), [event]);
  }
  if (ctx.policy.subject.required && ctx.subject === null) {
    const reason = 'URL mode needs a verified user subject and the client has none (policy subject.required).';
    return refuse(ctx, request, 'url', { code: GuardCode.subjectRequired, reason, findings: [] });
  }
  const { analysis, codes, refusal } = judgeUrl(read.url, ctx.policy);
  const exceptions = exceptionEvents(ctx, analysis, request.id);
  if (refusal !== null) return refuse(ctx, request, 'url', refusal, exceptions);
  const presented = {
    elicitationId: read.elicitationId,
    url: read.url,
    message: read.message,
    analysis,
    server: ctx.server(),
    subject: ctx.subject,
  };
  ctx.book.presented(request.id, { ...presented, relatedTaskId: read.relatedTaskId });
  ctx.metrics.elicitationsForwarded += 1;
  const event = ctx.report.event({
    type: 'elicitation.forwarded',
    mode: 'url',
    requestId: request.id,
    verdict: analysis.verdict,
    findings: codes,
    host: analysis.display.hostAscii,
  });
  return forward(ctx.codec.toHost(request, read, GuardMetaKey.urlAnalysis, analysis), [...exceptions, event]);
}

/** The `url.allow` rules and `url.onBlock: "audit"` an analysis used, as events (issue 13). */
function exceptionEvents(ctx: Translation, analysis: UrlAnalysis, requestId: string | number): GuardEvent[] {
  const events = (analysis.exceptions ?? []).map((use) => ctx.report.event({ ...use, requestId }));
  if (analysis.audited !== undefined)
    events.push(ctx.report.event({ type: 'url.audited', requestId, host: analysis.display.hostAscii, findings: analysis.audited }));
  return events;
}

function refuse(
  ctx: Translation,
  request: JsonRpcRequest,
  mode: ElicitationMode | null,
  refusal: Refusal,
  events: GuardEvent[] = [],
): Decision {
  ctx.metrics.elicitationsRefused += 1;
  const { code, reason, findings } = refusal;
  events.push(ctx.report.event({ type: 'elicitation.refused', code, mode, requestId: request.id, reason, findings }));
  return reply(ctx.codec.guardError(request.id, code, 'server', `Elicitation refused by the client: ${reason}`, refusal.data), events);
}

/** A server request that reuses the id of one still waiting for the host: never replaces it. */
export function idInUse(ctx: Translation): Decision {
  return dropped(ctx, GuardCode.invalidParams, 'a server request reused the id of a request still waiting for the host; dropped');
}

/** A URL-elicitation requirement the host must not see: a plain error in its place. */
export function replaceRequirement(
  ctx: Translation,
  response: JsonRpcResponse,
  code: GuardCode,
  message: string,
  removed = 0,
  findings: readonly string[] = [],
  events: GuardEvent[] = [],
): Decision {
  ctx.metrics.urlRequiredFiltered += 1;
  const event = ctx.report.event({ type: 'url-required.filtered', requestId: response.id as JsonRpcId, code, kept: 0, removed, findings });
  return forward(ctx.codec.guardError(response.id, code, 'host', message), [...events, event]);
}

/**
 * A URL-elicitation requirement in answer to any host request is equivalent to URL elicitations:
 * it needs URL mode, and each listed elicitation is judged like one. A host that did not negotiate
 * URL mode gets a plain error instead of the list; blocked or malformed entries are removed.
 */
export function onUrlRequired(ctx: Translation, response: JsonRpcError, original: RequestEvent): Decision {
  if (!ctx.session.modes.url) {
    return replaceRequirement(
      ctx,
      response,
      GuardCode.modeNotNegotiated,
      'The server answered with a URL elicitation requirement (-32042), but URL mode was not negotiated; the request failed.',
    );
  }
  if (ctx.policy.issuing === 'stopped') {
    return replaceRequirement(
      ctx,
      response,
      GuardCode.issuingStopped,
      'The server requires a URL elicitation, but URL elicitations are stopped by the client policy.',
    );
  }
  const entries = ctx.codec.readRequirement(response);
  if (entries === null || entries.length === 0) {
    return replaceRequirement(
      ctx,
      response,
      GuardCode.invalidParams,
      'The server sent a URL elicitation requirement (-32042) without a list of elicitations.',
    );
  }
  const { kept, findings, analyses } = judgeRequirement(entries, ctx.policy);
  const removed = entries.length - kept.length;
  // The url.allow rules (and onBlock "audit") each listed URL used, kept or removed, as for a URL elicitation.
  const events = analyses.flatMap((analysis) => exceptionEvents(ctx, analysis, response.id as JsonRpcId));
  if (kept.length === 0) {
    const code = findings.some((c) => c !== GuardCode.invalidParams) ? GuardCode.urlBlocked : GuardCode.invalidParams;
    return replaceRequirement(
      ctx,
      response,
      code,
      'The server requires URL elicitations that the client refused to show (blocked or malformed URLs).',
      removed,
      findings,
      events,
    );
  }
  const server = ctx.server();
  const chain = ctx.book.urlRequired(
    original,
    response.id as JsonRpcId,
    kept.map((k) => ({ ...k, server, subject: ctx.subject })),
  );
  if (chain.repeatedUrls > 0) {
    const hosts = [...new Set(kept.map((k) => k.analysis.display.hostAscii ?? '(no host)'))];
    events.push(
      ctx.report.event({
        type: 'url-required.loop',
        requestId: response.id as JsonRpcId,
        round: chain.round,
        repeated: chain.repeatedUrls,
        hosts,
      }),
    );
  }
  if (removed > 0) {
    ctx.metrics.urlRequiredFiltered += 1;
    events.push(
      ctx.report.event({
        type: 'url-required.filtered',
        requestId: response.id as JsonRpcId,
        code: null,
        kept: kept.length,
        removed,
        findings,
      }),
    );
  }
  return forward(
    ctx.codec.requirementToHost(
      response,
      kept.map((k) => k.entry),
    ),
    events,
  );
}
