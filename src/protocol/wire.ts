/** Wire facts of MCP elicitation (spec 2025-11-25): method names, error codes, meta keys. */

export const Method = {
  initialize: 'initialize',
  initialized: 'notifications/initialized',
  elicitationCreate: 'elicitation/create',
  elicitationComplete: 'notifications/elicitation/complete',
  cancelled: 'notifications/cancelled',
  logMessage: 'notifications/message',
  taskResult: 'tasks/result',
  taskStatus: 'notifications/tasks/status',
} as const;

/**
 * Host requests during which a server may elicit (and so may own a nested elicitation): tool calls,
 * prompts and resource reads. Listing, `ping`, task polling and the like never do.
 */
export const ELICITING_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read']);

/** Task statuses after which a task no longer runs. */
export const TERMINAL_TASK_STATUSES: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

/** JSON-RPC error codes used on the wire. */
export const RpcCode = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** URLElicitationRequiredError (2025-11-25 only). */
  urlElicitationRequired: -32042,
} as const;

export const PROTOCOL_VERSION_2025_11_25 = '2025-11-25';

/** The task-relation key of the spec's `_meta` (used to tie a nested elicitation to its request). */
export const RELATED_TASK_META_KEY = 'io.modelcontextprotocol/related-task';

/** Namespaced `_meta` keys under which the guard hands its judgement to the host. */
export const GuardMetaKey = {
  formAudit: 'mcp-elicitation-guard/form-audit',
  urlAnalysis: 'mcp-elicitation-guard/url-analysis',
  /** 2026-07-28: the guard's own flow id of a URL elicitation (the revision has no `elicitationId`). */
  flow: 'mcp-elicitation-guard/flow',
  /** 2026-07-28, on an input-required result the host sees: the keys the guard refused, with codes. */
  refusedInputs: 'mcp-elicitation-guard/refused-inputs',
  /** 2026-07-28, on an input response the guard supplied to the server for a refused key: code and reason. */
  refusal: 'mcp-elicitation-guard/refusal',
} as const;

export type ElicitationMode = 'form' | 'url';
