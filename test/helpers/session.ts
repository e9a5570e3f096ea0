import type { Guard } from '../../src/core/guard.js';

/** Runs the initialize handshake through a guard, as an SDK client and server would. */
export function handshake(guard: Guard, elicitation: Record<string, unknown> | undefined, protocolVersion = '2025-11-25'): void {
  const capabilities = elicitation === undefined ? {} : { elicitation };
  guard.outbound({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion, capabilities, clientInfo: { name: 'test-host', version: '1.0.0' } },
  });
  guard.inbound({
    jsonrpc: '2.0',
    id: 0,
    result: { protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'test-server', version: '2.3.4' } },
  });
  guard.outbound({ jsonrpc: '2.0', method: 'notifications/initialized' });
}

/** The host's `initialize` request (id 0), declaring form and URL elicitation unless told otherwise. */
export function initializeRequest(
  elicitation: Record<string, unknown> = { form: {}, url: {} },
  protocolVersion = '2025-11-25',
): Record<string, unknown> {
  return {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion, capabilities: { elicitation }, clientInfo: { name: 'test-host', version: '1.0.0' } },
  };
}

export function formRequest(
  id: number | string,
  requestedSchema: Record<string, unknown>,
  message = 'Please fill in the form',
): Record<string, unknown> {
  return { jsonrpc: '2.0', id, method: 'elicitation/create', params: { mode: 'form', message, requestedSchema } };
}

export function urlRequest(id: number | string, url: string, elicitationId: string, message = 'Please sign in'): Record<string, unknown> {
  return { jsonrpc: '2.0', id, method: 'elicitation/create', params: { mode: 'url', message, url, elicitationId } };
}

export function completion(elicitationId: string): Record<string, unknown> {
  return { jsonrpc: '2.0', method: 'notifications/elicitation/complete', params: { elicitationId } };
}

export const benignSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Project name', minLength: 1, maxLength: 40 },
    size: { type: 'integer', minimum: 1, maximum: 10 },
    public: { type: 'boolean', default: false },
  },
  required: ['name'],
};

export const passwordSchema = {
  type: 'object',
  properties: {
    username: { type: 'string', title: 'Username' },
    password: { type: 'string', title: 'Password' },
  },
  required: ['username', 'password'],
};
