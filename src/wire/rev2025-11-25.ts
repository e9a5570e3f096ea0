/**
 * The wire codec of MCP 2025-11-25 (and the earlier revisions it is compatible with):
 * `initialize` carries the host's capabilities, elicitations arrive as `elicitation/create`
 * requests, a URL-elicitation requirement as error `-32042` with `data.elicitations`, and the
 * completion signal as `notifications/elicitation/complete`.
 */
import type { PendingElicitation, ResponseOutcome } from '../flow/book.js';
import { type GuardCode, wireAnswer } from '../protocol/errors.js';
import {
  errorResponse,
  field,
  isJsonRpcId,
  isRecord,
  kindOf,
  type JsonRpcError,
  type JsonRpcId,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type JsonRpcResult,
} from '../protocol/jsonrpc.js';
import { Method, PROTOCOL_VERSION_2025_11_25, RELATED_TASK_META_KEY, RpcCode } from '../protocol/wire.js';
import type { ElicitationRead, InboundKind, OutboundKind, RequirementEntry, WireCodec } from './codec.js';

/** Params of the other mode: they never reach the host (a raw host might render them). */
const NOT_IN_URL_MODE = ['requestedSchema', 'content'] as const;
const NOT_IN_FORM_MODE = ['url', 'elicitationId', 'content'] as const;

/** A copy without `keys`; the params object itself when it has none of them (the usual case). */
function withoutKeys(params: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  if (!keys.some((key) => Object.hasOwn(params, key))) return params;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(params)) if (!keys.includes(key)) copy[key] = value;
  return copy;
}

function classifyInbound(message: unknown): InboundKind {
  switch (kindOf(message)) {
    case 'request':
      return (message as JsonRpcRequest).method === Method.elicitationCreate ? 'elicitation' : 'request';
    case 'notification':
      switch ((message as JsonRpcNotification).method) {
        case Method.elicitationComplete:
          return 'notice';
        case Method.elicitationCreate:
          return 'elicitation-without-id';
        case Method.cancelled:
          return 'cancelled';
        case Method.taskStatus:
          return 'task-status';
        default:
          return 'notification';
      }
    case 'result':
    case 'error':
      return 'response';
    case 'invalid':
      if (isRecord(message) && (message.method === Method.elicitationCreate || message.method === Method.elicitationComplete))
        return 'elicitation-malformed';
      return 'invalid';
  }
}

// What kindOf says, read with `field`: a host's messages may each have a hidden class of their own (see `field`).
function classifyOutbound(message: unknown): OutboundKind {
  if (!isRecord(message)) return 'invalid';
  const method = field(message, 'method');
  if (typeof method === 'string') {
    const id = field(message, 'id');
    if (id === undefined) return method === Method.initialized ? 'handshake-done' : 'notification';
    if (!isJsonRpcId(id)) return 'invalid';
    return method === Method.initialize ? 'handshake' : 'request';
  }
  return kindOf(message) === 'invalid' ? 'invalid' : 'answer';
}

function resultOf(response: JsonRpcResponse): Record<string, unknown> | null {
  return 'result' in response && isRecord(response.result) ? response.result : null;
}

function readElicitation(request: JsonRpcRequest): ElicitationRead {
  const params = request.params;
  if (!isRecord(params))
    return { ok: false, reason: 'elicitation/create needs a params object with "message" and, for form mode, "requestedSchema".' };
  const mode = params.mode ?? 'form';
  if (mode !== 'form' && mode !== 'url')
    return { ok: false, reason: `unknown elicitation mode ${JSON.stringify(mode)}; spec 2025-11-25 defines "form" and "url".` };
  let invalid: string | null = null;
  if (typeof params.message !== 'string') invalid = 'elicitation/create needs a string "message".';
  else if (mode === 'form' && !isRecord(params.requestedSchema)) invalid = 'form-mode elicitation needs a "requestedSchema" object.';
  else if (mode === 'url' && typeof params.url !== 'string') invalid = 'url-mode elicitation needs a string "url".';
  else if (mode === 'url' && (typeof params.elicitationId !== 'string' || params.elicitationId === ''))
    invalid = 'url-mode elicitation needs a non-empty string "elicitationId".';
  const related = isRecord(params._meta) ? params._meta[RELATED_TASK_META_KEY] : undefined;
  return {
    ok: true,
    mode,
    params,
    invalid,
    message: params.message as string,
    url: params.url as string,
    elicitationId: params.elicitationId as string,
    requestedSchema: params.requestedSchema,
    relatedTaskId: isRecord(related) && typeof related.taskId === 'string' ? related.taskId : undefined,
  };
}

function readRequirement(response: JsonRpcError): readonly RequirementEntry[] | null {
  const data = response.error.data;
  const entries = isRecord(data) && Array.isArray(data.elicitations) ? (data.elicitations as unknown[]) : null;
  if (entries === null) return null;
  return entries.map((entry): RequirementEntry => {
    if (
      !isRecord(entry) ||
      entry.mode !== 'url' ||
      typeof entry.url !== 'string' ||
      typeof entry.message !== 'string' ||
      typeof entry.elicitationId !== 'string' ||
      entry.elicitationId === ''
    ) {
      return { ok: false };
    }
    return { ok: true, entry, elicitationId: entry.elicitationId, url: entry.url, message: entry.message };
  });
}

export const rev2025_11_25: WireCodec = Object.freeze({
  revision: PROTOCOL_VERSION_2025_11_25,
  classifyInbound,
  classifyOutbound,

  outcomeOf(response: JsonRpcResponse): ResponseOutcome {
    if ('error' in response) return response.error.code === RpcCode.urlElicitationRequired ? 'url-required' : 'error';
    const result = resultOf(response);
    return result !== null && isRecord(result.task) && typeof result.task.taskId === 'string' ? 'task' : 'result';
  },

  taskIdOf(response: JsonRpcResponse): string | undefined {
    const task = resultOf(response)?.task;
    return isRecord(task) && typeof task.taskId === 'string' ? task.taskId : undefined;
  },

  actionOf(response: JsonRpcResponse): unknown {
    return resultOf(response)?.action;
  },

  readElicitation,
  readRequirement,

  readNotice(notification: JsonRpcNotification): string | null {
    const id = notification.params?.elicitationId;
    return typeof id === 'string' ? id : null;
  },

  readCancelled(notification: JsonRpcNotification): JsonRpcId | null {
    const id = notification.params?.requestId;
    return typeof id === 'string' || typeof id === 'number' ? id : null;
  },

  readTaskStatus(notification: JsonRpcNotification): { readonly taskId: string; readonly status: string } | null {
    const params = notification.params;
    return params !== undefined && typeof params.taskId === 'string' && typeof params.status === 'string'
      ? { taskId: params.taskId, status: params.status }
      : null;
  },

  taskOfRequest(request: JsonRpcRequest): string | undefined {
    if (request.method !== Method.taskResult) return undefined;
    const taskId = isRecord(request.params) ? request.params.taskId : undefined;
    return typeof taskId === 'string' ? taskId : undefined;
  },

  capabilitiesOf(handshake: JsonRpcRequest): Record<string, unknown> {
    const params = isRecord(handshake.params) ? handshake.params : {};
    return isRecord(params.capabilities) ? params.capabilities : {};
  },

  withCapabilities(handshake: JsonRpcRequest, capabilities: Record<string, unknown>): JsonRpcRequest {
    const params = isRecord(handshake.params) ? handshake.params : {};
    return { ...handshake, params: { ...params, capabilities } };
  },

  readHandshakeAnswer(response: JsonRpcResult) {
    const result = isRecord(response.result) ? response.result : {};
    const info = isRecord(result.serverInfo) ? result.serverInfo : {};
    return {
      protocolVersion: typeof result.protocolVersion === 'string' ? result.protocolVersion : null,
      name: typeof info.name === 'string' ? info.name : null,
      version: typeof info.version === 'string' ? info.version : null,
    };
  },

  toHost(request: JsonRpcRequest, read: ElicitationRead & { ok: true }, metaKey: string, judgement: unknown): JsonRpcRequest {
    const meta = { ...(isRecord(read.params._meta) ? read.params._meta : {}), [metaKey]: judgement };
    return { ...request, params: { ...withoutKeys(read.params, read.mode === 'url' ? NOT_IN_URL_MODE : NOT_IN_FORM_MODE), _meta: meta } };
  },

  requirementToHost(response: JsonRpcError, kept: readonly Record<string, unknown>[]): JsonRpcError {
    return {
      jsonrpc: '2.0',
      id: response.id,
      error: { ...response.error, data: { ...(response.error.data as Record<string, unknown>), elicitations: kept } },
    };
  },

  guardError(
    id: JsonRpcId | null,
    code: GuardCode,
    toward: 'server' | 'host',
    message: string,
    data?: Record<string, unknown>,
  ): JsonRpcError {
    const answer = wireAnswer(code, toward, data);
    return errorResponse(id, answer.rpc, message, answer.data);
  },

  elicitationAnswer(id: JsonRpcId, action: 'accept' | 'decline' | 'cancel', meta?: Record<string, unknown>): JsonRpcResult {
    return { jsonrpc: '2.0', id, result: meta === undefined ? { action } : { action, _meta: meta } };
  },

  withoutContent(response: JsonRpcResult): JsonRpcResult {
    if (!isRecord(response.result) || !('content' in response.result)) return response;
    const { content: _dropped, ...rest } = response.result;
    return { ...response, result: rest };
  },

  contentOf(response: JsonRpcResult): unknown {
    return resultOf(response)?.content;
  },

  pendingOf(read: ElicitationRead & { ok: true }): PendingElicitation {
    return read.mode === 'form'
      ? { mode: 'form', requestedSchema: read.requestedSchema, elicitationId: null }
      : { mode: 'url', requestedSchema: null, elicitationId: read.elicitationId };
  },
});
