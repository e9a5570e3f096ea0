import type { GuardEvent } from './events.js';
import type { JsonRpcMessage } from '../protocol/jsonrpc.js';

/**
 * What an adapter does with one message. The core decides; the adapter only executes:
 * - `forward`: pass `message` on in the direction it was going (the same object when untouched);
 * - `reply`: do not pass it on; send `message` back to the side it came from;
 * - `drop`: do nothing with it;
 * - `defer`: wait for `until` (a durable write the guard must finish first, such as the business
 *   receipt of an accepted original operation), then execute the decision it resolves to.
 */
export type Decision =
  | { readonly action: 'forward'; readonly message: JsonRpcMessage; readonly events: readonly GuardEvent[] }
  | { readonly action: 'reply'; readonly message: JsonRpcMessage; readonly events: readonly GuardEvent[] }
  | { readonly action: 'drop'; readonly events: readonly GuardEvent[] }
  | { readonly action: 'defer'; readonly until: Promise<Decision>; readonly events: readonly GuardEvent[] };

const NO_EVENTS: readonly GuardEvent[] = Object.freeze([]);

export function forward(message: JsonRpcMessage, events: readonly GuardEvent[] = NO_EVENTS): Decision {
  return { action: 'forward', message, events };
}

export function reply(message: JsonRpcMessage, events: readonly GuardEvent[] = NO_EVENTS): Decision {
  return { action: 'reply', message, events };
}

export function drop(events: readonly GuardEvent[] = NO_EVENTS): Decision {
  return { action: 'drop', events };
}

export function defer(until: Promise<Decision>, events: readonly GuardEvent[] = NO_EVENTS): Decision {
  return { action: 'defer', until, events };
}

/**
 * Where an adapter sends what a Decision says, for one direction. `context` is whatever the adapter
 * needs per message (the SDK's send options, the transport's extra info), passed through as is.
 */
export interface DecisionSinks<C = undefined> {
  /** Pass the message on in the direction it was going. */
  forward(message: JsonRpcMessage, context: C): Promise<void> | void;
  /** Do not pass it on: send the guard's answer back to the side it came from. */
  reply(message: JsonRpcMessage, context: C): Promise<void> | void;
  /** A deferred decision could not be settled (its durable write failed, or a sink threw). */
  fail(error: unknown, context: C): void;
}

/**
 * `executeDecision` for what `judgeInbound` / `judgeOutbound` return: `null` (the message goes on
 * untouched, nothing to report) is a forward of `message` itself.
 */
export function executeJudgement<C>(
  decision: Decision | null,
  message: unknown,
  sinks: DecisionSinks<C>,
  context: C,
): Promise<void> | void {
  return decision === null ? sinks.forward(message as JsonRpcMessage, context) : executeDecision(decision, sinks, context);
}

/**
 * The one executor of Decisions, shared by every adapter: the adapter never decides, it only says
 * where messages go. Returns what the sink returned (a forward's send, so a caller can wait for it),
 * or, for a deferred decision, a promise that settles once the decision it resolves to has run.
 */
export function executeDecision<C>(decision: Decision, sinks: DecisionSinks<C>, context: C): Promise<void> | void {
  switch (decision.action) {
    case 'forward':
      return sinks.forward(decision.message, context);
    case 'reply':
      return sinks.reply(decision.message, context);
    case 'drop':
      return;
    case 'defer':
      return decision.until.then(
        (next) => executeDecision(next, sinks, context),
        (error: unknown) => sinks.fail(error, context),
      );
  }
}
