/**
 * Translating answers, in both directions: the server's responses to host requests (the handshake's
 * answer, final answers of original operations accepted once, URL-elicitation requirements) and
 * the host's answers to server requests (elicitation answers checked before they leave).
 */
import { redact } from '../audit/redact.js';
import type { ServerResponseRuling } from '../flow/book.js';
import { GuardCode } from '../protocol/errors.js';
import type { JsonRpcError, JsonRpcId, JsonRpcResponse, JsonRpcResult } from '../protocol/jsonrpc.js';
import { defer, drop, forward, type Decision } from './decision.js';
import { dropped, onUrlRequired, replaceRequirement, type Translation } from './elicitations.js';
import type { GuardEvent } from './events.js';
import { judgeAnswer, judgeUnmatchedAnswer, type Withheld } from './judgements.js';

export function onServerResponse(ctx: Translation, response: JsonRpcResponse): Decision {
  const id = response.id;
  if (id === null) return forward(response);
  const codec = ctx.codec;
  const outcome = codec.outcomeOf(response);
  if (id === ctx.session.handshakeId) return onHandshakeAnswer(ctx, response, outcome === 'url-required');
  const ruling = ctx.book.serverResponse(id, outcome, response, outcome === 'task' ? codec.taskIdOf(response) : undefined);
  switch (ruling.ruling) {
    case 'pass':
      return forward(response);
    case 'unmatched':
      // A -32042 that answers nothing the host asked carries an elicitation list nobody judged.
      if (outcome === 'url-required') return dropped(ctx, GuardCode.invalidParams, 'a -32042 answering no request in flight was dropped');
      if (!ruling.repeat) return forward(response);
      return drop([withheldEvent(ctx, id, 'a second answer to an operation whose final answer was already accepted')]);
    case 'url-required':
      return onUrlRequired(ctx, response as JsonRpcError, ruling.original);
    case 'accept':
    case 'withhold':
      return accepted(ctx, response, ruling);
  }
}

/** The final answer of an original operation: with a ledger, delivered only once its business receipt is durable. */
function accepted(ctx: Translation, response: JsonRpcResponse, ruling: ServerResponseRuling & { ruling: 'accept' | 'withhold' }): Decision {
  if (ruling.ruling === 'withhold') return withhold(ctx, response, ruling.reason);
  if (ruling.until === null) return forward(response);
  return defer(ruling.until.then((o) => (o.accepted ? forward(response) : withhold(ctx, response, o.reason, o.code))));
}

function withheldEvent(ctx: Translation, id: JsonRpcId, reason: string, code: GuardCode = GuardCode.alreadyAccepted): GuardEvent {
  return ctx.report.event({ type: 'response.withheld', code, requestId: id, reason });
}

/** An answer not delivered: `E_ALREADY_ACCEPTED` (a second final answer), or `E_LEDGER_UNAVAILABLE` (its receipt was not written). */
function withhold(ctx: Translation, response: JsonRpcResponse, reason: string, code: GuardCode = GuardCode.alreadyAccepted): Decision {
  const id = response.id as JsonRpcId;
  const message = `The client-side guard withheld this answer: ${reason}.`;
  return forward(ctx.codec.guardError(id, code, 'host', message), [withheldEvent(ctx, id, reason, code)]);
}

function onHandshakeAnswer(ctx: Translation, response: JsonRpcResponse, urlRequired: boolean): Decision {
  const session = ctx.session;
  session.handshakeId = null;
  if (urlRequired)
    return replaceRequirement(
      ctx,
      response,
      GuardCode.modeNotNegotiated,
      'The server answered the handshake with a URL elicitation requirement (-32042); URL mode is not negotiated before it completes.',
    );
  if ('error' in response) return forward(response);
  const answer = ctx.codec.readHandshakeAnswer(response);
  session.protocolVersion = answer.protocolVersion;
  // The server names itself: a secret-shaped name never reaches an event.
  session.serverName = answer.name === null ? null : redact(answer.name);
  session.serverVersion = answer.version === null ? null : redact(answer.version);
  return forward(response, [
    ctx.report.event({ type: 'session.initialized', protocolVersion: session.protocolVersion, modes: session.modes }),
  ]);
}

/** The host answers a server request: an elicitation answer is checked before it leaves. */
export function onAnswer(ctx: Translation, response: JsonRpcResponse): Decision {
  const id = response.id;
  if (id === null) return forward(response);
  const codec = ctx.codec;
  const outcome = codec.outcomeOf(response);
  const action = codec.actionOf(response);
  const ruling = ctx.book.answer(id, outcome, action, outcome === 'task' ? codec.taskIdOf(response) : undefined);
  switch (ruling.ruling) {
    case 'pass':
      return forward(response);
    case 'unmatched': {
      if (ruling.repeat) return dropped(ctx, GuardCode.invalidParams, 'a second answer to an elicitation already answered was dropped');
      const withheld = action === 'accept' ? judgeUnmatchedAnswer(codec.contentOf(response as JsonRpcResult)) : null;
      return withheld === null ? forward(response) : withholdContent(ctx, id, withheld);
    }
    case 'url':
      // URL mode never carries data back: "the content field is omitted".
      return forward(action === 'accept' ? codec.withoutContent(response as JsonRpcResult) : response);
    case 'override': {
      const event = ctx.report.event({
        type: 'response.withheld',
        code: GuardCode.illegalTransition,
        requestId: id,
        reason: ruling.reason,
      });
      return forward(codec.elicitationAnswer(id, ruling.action), [event]);
    }
    case 'form': {
      if (action !== 'accept') return forward(response);
      const withheld = judgeAnswer(codec.contentOf(response as JsonRpcResult), ruling.requestedSchema);
      return withheld === null ? forward(response) : withholdContent(ctx, id, withheld);
    }
  }
}

function withholdContent(ctx: Translation, id: JsonRpcId, withheld: Withheld): Decision {
  ctx.metrics.contentWithheld += 1;
  const event = ctx.report.event({
    type: 'content.withheld',
    code: withheld.code,
    requestId: id,
    fields: withheld.fields,
    findings: withheld.findings,
  });
  return forward(ctx.codec.elicitationAnswer(id, 'cancel'), [event]);
}
