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
