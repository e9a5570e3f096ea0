/**
 * The codec of protocol revision 2026-07-28 (the "modern" era): plain JSON-RPC in, era-neutral
 * parts out, and back. Nothing here judges anything; the core hands the parts to the same checkers
 * and the same book as for 2025-11-25.
 *
 * What this revision changes for a client-side guard (spec 2026-07-28, basic/patterns/mrtr and
 * client/elicitation):
 * - no `initialize`: every request carries `_meta["io.modelcontextprotocol/protocolVersion"]` and
 *   the client's capabilities in `_meta["io.modelcontextprotocol/clientCapabilities"]`; a client may
 *   send `server/discover` first;
 * - no server-to-client requests: `tools/call`, `prompts/get` and `resources/read` may answer with
 *   an input-required result (`resultType: "input_required"`, `inputRequests` keyed by the server,
 *   `requestState`); the client retries the same request with a new id, `inputResponses` keyed the
 *   same way and the echoed `requestState`, which it must never inspect, parse or modify;
 * - URL mode has no `elicitationId` and no completion notice; `-32042` is never sent.
 *
 * `requestState` is carried as the string it arrived as and never parsed: every function that
 * rewrites a message copies it by reference, so what leaves is byte for byte what came.
 */
import { requestDigest } from '../protocol/digest.js';
import { field, isRecord, type JsonRpcRequest, type JsonRpcResponse, type JsonRpcResult, withMember } from '../protocol/jsonrpc.js';

export const REVISION = '2026-07-28';

/** The first revision of the modern era; revisions are ISO dates, so they compare as strings. */
export const FIRST_MODERN_REVISION = '2026-07-28';

/** The reserved `_meta` keys of the per-request envelope. */
export const ModernMetaKey = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
} as const;

export const ModernMethod = {
  discover: 'server/discover',
} as const;

/** The requests that may answer with an input-required result (mrtr.mdx: these, and only these). */
export const INPUT_CAPABLE_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read']);

/** The embedded requests an `inputRequests` map may hold. */
export const INPUT_REQUEST_METHODS: ReadonlySet<string> = new Set(['elicitation/create', 'sampling/createMessage', 'roots/list']);

export const RESULT_TYPE_INPUT_REQUIRED = 'input_required';

/** Which era a host request claims: `initialize` is 2025-11-25, `server/discover` and a modern `_meta` version are 2026-07-28. */
export type EraClaim = 'legacy' | 'modern' | 'probe' | null;

/**
 * The era a host request claims, from its method and its `_meta` alone (O(1)). `server/discover`
 * is a probe: a client in `auto` negotiation sends it and may fall back to `initialize`.
 */
export function claimOf(request: JsonRpcRequest): EraClaim {
  // Read with `field`: the host built this message (see `field`).
  return claimFrom(field(request, 'method'), versionIn(metaOf(request)));
}

/** `claimOf`, from the request's method and its `_meta` version as already read. */
export function claimFrom(method: unknown, version: string | null): EraClaim {
  if (method === 'initialize') return 'legacy';
  if (method === ModernMethod.discover) return version !== null && version >= FIRST_MODERN_REVISION ? 'probe' : null;
  if (version !== null && version >= FIRST_MODERN_REVISION) return 'modern';
  return null;
}

/**
 * `request.params?._meta`, read with `field`: SDK v2 gives the params of each request a hidden class
 * of its own, on which a plain read misses V8's caches (see `field`).
 */
export function metaOf(request: object): unknown {
  return metaIn(field(request, 'params'));
}

/** `metaOf`, from the request's `params` as already read. */
export function metaIn(params: unknown): unknown {
  return typeof params === 'object' && params !== null ? field(params, '_meta') : (params as { _meta?: unknown } | undefined)?._meta;
}

/** `_meta["io.modelcontextprotocol/protocolVersion"]` of a request's `_meta` (see `metaOf`), when it is a string. */
export function versionIn(meta: unknown): string | null {
  if (!isRecord(meta)) return null;
  const version = meta[ModernMetaKey.protocolVersion];
  return typeof version === 'string' ? version : null;
}

/** The capabilities a request's `_meta` (see `metaOf`) declares; absent → `undefined`. */
export function capabilitiesIn(meta: unknown): unknown {
  return isRecord(meta) ? meta[ModernMetaKey.clientCapabilities] : undefined;
}

/** `_meta["io.modelcontextprotocol/protocolVersion"]` of a request, when it is a string. */
export function protocolVersionOf(request: { params?: Record<string, unknown> }): string | null {
  return versionIn(metaOf(request));
}

/** The capabilities this one request declares (`_meta[...clientCapabilities]`); absent → `undefined`. */
export function capabilitiesOf(request: { params?: Record<string, unknown> }): unknown {
  return capabilitiesIn(metaOf(request));
}

/** A copy of the request whose `_meta[...clientCapabilities]` is `capabilities` (removed when `undefined`). */
export function withCapabilities(request: JsonRpcRequest, capabilities: Record<string, unknown> | undefined): JsonRpcRequest {
  const params = request.params ?? {};
  const meta = isRecord(params._meta) ? { ...params._meta } : {};
  if (capabilities === undefined) delete meta[ModernMetaKey.clientCapabilities];
  else meta[ModernMetaKey.clientCapabilities] = capabilities;
  return { ...request, params: { ...params, _meta: meta } };
}

/** `serverInfo` from a modern result's `_meta` (or a discover result's body). */
export function serverInfoOf(result: Record<string, unknown>): Record<string, unknown> | null {
  const meta = result._meta;
  if (isRecord(meta) && isRecord(meta[ModernMetaKey.serverInfo])) return meta[ModernMetaKey.serverInfo] as Record<string, unknown>;
  return isRecord(result.serverInfo) ? result.serverInfo : null;
}

/** O(1): does this result say `input_required`? */
export function isInputRequired(result: Record<string, unknown>): boolean {
  return result.resultType === RESULT_TYPE_INPUT_REQUIRED;
}

/** O(1): is this response a result that says `input_required`? */
export function isInputRequiredResponse(response: JsonRpcResponse): response is JsonRpcResult {
  return 'result' in response && isRecord(response.result) && response.result.resultType === RESULT_TYPE_INPUT_REQUIRED;
}

/** One embedded request of an input-required result, era-neutral. */
export interface InputRequestPart {
  readonly key: string;
  readonly method: string;
  readonly params: Record<string, unknown>;
  /** Everything else the entry carried besides `method` and `params` (kept as is). */
  readonly entry: Record<string, unknown>;
}

/** An embedded request that cannot be judged (and so never reaches the host). */
export interface MalformedInputRequest {
  readonly key: string;
  readonly reason: string;
}

export type DecodedInputRequired =
  | {
      readonly ok: true;
      readonly requests: readonly InputRequestPart[];
      readonly malformed: readonly MalformedInputRequest[];
      /** The opaque state, exactly as received; `undefined` when the server sent none. */
      readonly requestState: string | undefined;
    }
  | { readonly ok: false; readonly reason: string };

/**
 * Reads an input-required result. The map itself must be an object (any other JSON type fails the
 * whole result closed); each entry must be an object with a string `method` of the revision's three
 * and, if present, object `params`; a bad entry is reported and left out, the others are kept.
 */
export function decodeInputRequired(result: Record<string, unknown>): DecodedInputRequired {
  const rawState = result.requestState;
  if (rawState !== undefined && typeof rawState !== 'string')
    return { ok: false, reason: `requestState must be a string, got ${jsonType(rawState)}` };
  const raw = result.inputRequests;
  if (raw === undefined) {
    if (rawState === undefined) return { ok: false, reason: 'an input-required result needs inputRequests or requestState' };
    return { ok: true, requests: [], malformed: [], requestState: rawState };
  }
  if (!isRecord(raw)) return { ok: false, reason: `inputRequests must be an object keyed by the server, got ${jsonType(raw)}` };
  const requests: InputRequestPart[] = [];
  const malformed: MalformedInputRequest[] = [];
  for (const [key, entry] of Object.entries(raw)) {
    if (!isRecord(entry)) {
      malformed.push({ key, reason: `input request must be an object, got ${jsonType(entry)}` });
      continue;
    }
    const method = entry.method;
    if (typeof method !== 'string' || !INPUT_REQUEST_METHODS.has(method)) {
      malformed.push({ key, reason: `input request method must be one of ${[...INPUT_REQUEST_METHODS].join(', ')}` });
      continue;
    }
    const params = entry.params;
    if (params !== undefined && !isRecord(params)) {
      malformed.push({ key, reason: `input request params must be an object, got ${jsonType(params)}` });
      continue;
    }
    requests.push({ key, method, params: params ?? {}, entry });
  }
  if (requests.length === 0 && malformed.length === 0 && rawState === undefined)
    return { ok: false, reason: 'an input-required result needs inputRequests or requestState' };
  return { ok: true, requests, malformed, requestState: rawState };
}

/**
 * The input-required result the host sees: the same object with `inputRequests` replaced by the
 * kept (and possibly rewritten) entries, and the guard's `_meta` additions. `requestState` and every
 * other member are carried over untouched.
 */
export function encodeInputRequired(
  result: Record<string, unknown>,
  kept: ReadonlyMap<string, Record<string, unknown>>,
  meta: Record<string, unknown> | null,
): Record<string, unknown> {
  const out = withMember(result, 'inputRequests', Object.fromEntries(kept));
  if (meta !== null) out._meta = { ...(isRecord(result._meta) ? result._meta : {}), ...meta };
  return out;
}

/** The parts of a host request that may be a retry of an input-required round. */
export interface RetryParts {
  /** `inputResponses` as sent: `undefined` when absent; `null` when present but not an object. */
  readonly inputResponses: Record<string, unknown> | null | undefined;
  /** `requestState` as sent: `undefined` when absent; `null` when present but not a string. */
  readonly requestState: string | null | undefined;
}

/** O(1): the retry parts of a request (no copy). */
export function retryPartsOf(request: JsonRpcRequest): RetryParts {
  return retryPartsIn(field(request, 'params'));
}

/** `retryPartsOf`, from the request's `params` as already read. */
export function retryPartsIn(params: unknown): RetryParts {
  if (params === undefined) return NO_RETRY;
  // Read with `field`: SDK v2 gives the params of each request a hidden class of its own (see `field`).
  const responses = field(params as object, 'inputResponses');
  const state = field(params as object, 'requestState');
  if (responses === undefined && state === undefined) return NO_RETRY;
  return {
    inputResponses: responses === undefined ? undefined : isRecord(responses) ? responses : null,
    requestState: state === undefined ? undefined : typeof state === 'string' ? state : null,
  };
}

const NO_RETRY: RetryParts = Object.freeze({ inputResponses: undefined, requestState: undefined });

/**
 * The digest of the original operation a request (or its retry) stands for: the request digest of
 * its params without `inputResponses`, `requestState` and `_meta`, so every round of one operation
 * digests the same.
 */
export function originalDigest(request: JsonRpcRequest): string {
  const params = request.params;
  if (params === undefined) return requestDigest(request.method, undefined);
  const { inputResponses: _r, requestState: _s, _meta: _m, ...rest } = params;
  return requestDigest(request.method, rest);
}

/** A copy of a retry whose `inputResponses` is `responses` (removed when empty); `requestState` untouched. */
export function withInputResponses(request: JsonRpcRequest, responses: Readonly<Record<string, unknown>>): JsonRpcRequest {
  const source = request.params ?? {};
  let params: Record<string, unknown>;
  if (Object.keys(responses).length === 0) {
    params = { ...source };
    delete params.inputResponses;
  } else params = withMember(source, 'inputResponses', responses);
  return withMember(request, 'params', params);
}

/** A result response with `result` replaced. */
export function withResult(response: JsonRpcResult, result: Record<string, unknown>): JsonRpcResult {
  return withMember(response, 'result', result);
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}
