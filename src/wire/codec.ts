/**
 * A wire codec turns the JSON-RPC of one protocol revision into the era-neutral vocabulary of the
 * guard and its flow book, and writes the guard's answers back in that revision's shapes. The guard
 * asks the codec what a message is (O(1), from its keys), reads the parts it needs only for messages
 * about elicitation, and never builds a wire shape itself.
 *
 * A new protocol revision is one new module implementing `WireCodec` (see rev2025-11-25.ts).
 */
import type { PendingElicitation, ResponseOutcome } from '../flow/book.js';
import type { GuardCode } from '../protocol/errors.js';
import type {
  JsonRpcError,
  JsonRpcId,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
  JsonRpcResult,
} from '../protocol/jsonrpc.js';

/** What a server → host message is. */
export type InboundKind =
  /** A request that asks the user something (2025-11-25: `elicitation/create`). */
  | 'elicitation'
  /** A request to the host that has an elicitation's shape but no id: it can never be answered. */
  | 'elicitation-without-id'
  /** An elicitation-related message that is not even well-formed JSON-RPC. */
  | 'elicitation-malformed'
  /** A completion signal for a URL elicitation. */
  | 'notice'
  /** The server withdraws one of its requests. */
  | 'cancelled'
  /** A task the server runs for the host changed status. */
  | 'task-status'
  /** Any other request to the host (ping, sampling, roots, tasks/result for a host task). */
  | 'request'
  /** A response to a host request. */
  | 'response'
  /** Any other notification. */
  | 'notification'
  | 'invalid';

/** What a host → server message is. */
export type OutboundKind = 'handshake' | 'handshake-done' | 'request' | 'answer' | 'notification' | 'invalid';

/** An elicitation request as read by the codec: the era-neutral facts the checkers and the book need. */
export type ElicitationRead =
  /** Refused before anything else is looked at (no params object, an unknown mode). */
  | { readonly ok: false; readonly reason: string }
  | {
      readonly ok: true;
      readonly mode: 'form' | 'url';
      /** The request's params, as sent: what the checkers read. */
      readonly params: Record<string, unknown>;
      /** A shape problem found after negotiation is checked (a missing message, url or id). */
      readonly invalid: string | null;
      readonly message: string;
      readonly url: string;
      readonly elicitationId: string;
      readonly requestedSchema: unknown;
      /** The task named by the related-task `_meta`, if any. */
      readonly relatedTaskId: string | undefined;
    };

/** One entry of a URL-elicitation requirement (2025-11-25: the list of a `-32042`). */
export type RequirementEntry =
  | {
      readonly ok: true;
      readonly entry: Record<string, unknown>;
      readonly elicitationId: string;
      readonly url: string;
      readonly message: string;
    }
  | { readonly ok: false };

export interface WireCodec {
  /** The protocol revision this codec speaks. */
  readonly revision: string;

  classifyInbound(message: unknown): InboundKind;
  classifyOutbound(message: unknown): OutboundKind;

  /** How a response ends, and the task id when it created a task. */
  outcomeOf(response: JsonRpcResponse): ResponseOutcome;
  taskIdOf(response: JsonRpcResponse): string | undefined;
  /** The elicitation answer's action (`accept`, `decline`, `cancel`, or whatever the host sent). */
  actionOf(response: JsonRpcResponse): unknown;

  readElicitation(request: JsonRpcRequest): ElicitationRead;
  /** The entries of a URL-elicitation requirement; `null` when it carries no list. */
  readRequirement(response: JsonRpcError): readonly RequirementEntry[] | null;
  /** The elicitation id of a completion notice; `null` when it has none. */
  readNotice(notification: JsonRpcNotification): string | null;
  readCancelled(notification: JsonRpcNotification): JsonRpcId | null;
  readTaskStatus(notification: JsonRpcNotification): { readonly taskId: string; readonly status: string } | null;
  /** The task a server → host request is about (its result is a task-augmented elicitation's answer). */
  taskOfRequest(request: JsonRpcRequest): string | undefined;
  /** The host's capabilities in its handshake, and a copy of the handshake with narrowed ones. */
  capabilitiesOf(handshake: JsonRpcRequest): Record<string, unknown>;
  withCapabilities(handshake: JsonRpcRequest, capabilities: Record<string, unknown>): JsonRpcRequest;
  /** The protocol version and server identity a handshake answer carries. */
  readHandshakeAnswer(response: JsonRpcResult): {
    readonly protocolVersion: string | null;
    readonly name: string | null;
    readonly version: string | null;
  };

  // ---- writing

  /** The elicitation as the host gets it: fields of the other mode removed, the guard's judgement in `_meta`. */
  toHost(request: JsonRpcRequest, read: ElicitationRead & { ok: true }, metaKey: string, judgement: unknown): JsonRpcRequest;
  /** A URL-elicitation requirement as the host gets it: only `kept` entries, each with the guard's analysis. */
  requirementToHost(response: JsonRpcError, kept: readonly Record<string, unknown>[]): JsonRpcError;
  /** An error answer in the guard's name; `toward` picks the JSON-RPC code from the answer table. */
  guardError(
    id: JsonRpcId | null,
    code: GuardCode,
    toward: 'server' | 'host',
    message: string,
    data?: Record<string, unknown>,
  ): JsonRpcError;
  /** An elicitation answer in the guard's name (an answer withheld, a decline while issuing is stopped). */
  elicitationAnswer(id: JsonRpcId, action: 'accept' | 'decline' | 'cancel', meta?: Record<string, unknown>): JsonRpcResult;
  /** A URL-mode answer without the content URL mode never carries. */
  withoutContent(response: JsonRpcResult): JsonRpcResult;
  /** What a form answer carries back (its content), for the content check. */
  contentOf(response: JsonRpcResult): unknown;
  /** The pending-answer record of an elicitation that reached the host. */
  pendingOf(read: ElicitationRead & { ok: true }): PendingElicitation;
}

/** Messages a codec writes are plain JSON-RPC. */
export type WireMessage = JsonRpcMessage;
