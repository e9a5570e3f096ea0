/**
 * Guards that share a session key and a ledger (replicas serving one host conversation): a host
 * request that may be the re-sent retry of an operation another guard of the session accepted
 * (that guard died before the host saw the answer) is judged against the shared ledger before it
 * is sent. Only under a shared session key; every other request costs one flag test.
 */
import type { JsonRpcRequest } from '../protocol/jsonrpc.js';
import { GuardCode } from '../protocol/errors.js';
import { defer, forward, reply, type Decision } from './decision.js';
import type { Translation } from './elicitations.js';

/**
 * 2025-11-25: an eliciting request the book passed and does not track as a retry. When another
 * guard of the session accepted an operation with the same digest after a `-32042` within the
 * time to live, the request is refused with E_ALREADY_ACCEPTED and never reaches the server (the
 * same rule as one guard's: an identical request within the lineage's time to live is a retry,
 * and at most once is the promise). `null`: nothing to ask, send it. A ledger that cannot be read
 * lets the request through (it is not an elicitation; the final answer's receipt still fails
 * closed).
 */
export function sharedLedgerCheck(ctx: Translation, request: JsonRpcRequest): Decision | null {
  const accepted = ctx.book.acceptedElsewhere(request);
  if (accepted === null) return null;
  return defer(
    accepted.then(
      (receipt) => {
        if (receipt === null) return forward(request);
        ctx.book.withdrawn(request.id);
        const reason = 'another guard of this session already accepted a final answer for this operation';
        const event = ctx.report.event({ type: 'retry.refused', code: GuardCode.alreadyAccepted, requestId: request.id, reason });
        return reply(
          ctx.codec.guardError(request.id, GuardCode.alreadyAccepted, 'host', `Request refused by the client-side guard: ${reason}.`),
          [event],
        );
      },
      () => forward(request),
    ),
  );
}
