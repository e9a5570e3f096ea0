/**
 * A server with the two URL-mode lineages, for faults around completion and retries:
 * - `connect` sends a nested URL elicitation inside tools/call, waits for the out-of-band step (the
 *   test releases it), sends `notices` completion notices for it, then answers;
 * - `pay` answers -32042 until its requirement is met, then runs the payment.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  UrlElicitationRequiredError,
  type ElicitRequest,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { Guard } from '../../../src/core/guard.js';
import { connectHost, deferred, type Host } from './sdk.js';

export const CONNECT_URL = 'https://github.com/login/device?flow=connect';
export const PAY_URL = 'https://checkout.stripe.com/c/pay/session-7';

export interface LineageHost extends Host {
  /** Lets every `connect` call waiting for the out-of-band step go on. */
  finishOutOfBand(): void;
  meetPayment(): void;
  /** How many times each operation really ran on the server. */
  readonly operations: { connect: number; pay: number };
  connect(args?: Record<string, unknown>): Promise<string>;
  pay(args?: Record<string, unknown>): Promise<string>;
}

export interface LineageOptions {
  /** Prefix of the elicitation ids this server issues. */
  readonly idPrefix?: string;
  /** Completion notices `connect` sends after the out-of-band step (0, 1, or a duplicate). */
  readonly notices?: number;
  readonly onElicit?: (request: ElicitRequest) => Promise<ElicitResult>;
}

export async function lineageHost(guard: Guard, options: LineageOptions = {}): Promise<LineageHost> {
  const prefix = options.idPrefix ?? '';
  const notices = options.notices ?? 1;
  let gate = deferred();
  let connections = 0;
  let paymentMet = false;
  const operations = { connect: 0, pay: 0 };
  const configure = (server: Server) =>
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      if (request.params.name === 'connect') {
        const elicitationId = `${prefix}connect-${++connections}`;
        const answer = await server.elicitInput({ mode: 'url', message: 'Connect your GitHub account', url: CONNECT_URL, elicitationId });
        if (answer.action !== 'accept') return { content: [{ type: 'text' as const, text: answer.action }] };
        await gate.promise;
        for (let i = 0; i < notices; i++) await server.createElicitationCompletionNotifier(elicitationId)();
        operations.connect += 1;
        return { content: [{ type: 'text' as const, text: `connected #${operations.connect}` }] };
      }
      if (!paymentMet)
        throw new UrlElicitationRequiredError([
          { mode: 'url', message: 'Confirm the payment', url: PAY_URL, elicitationId: `${prefix}pay-1` },
        ]);
      operations.pay += 1;
      return { content: [{ type: 'text' as const, text: `paid #${operations.pay}` }] };
    });
  const host = await connectHost(guard, { configure, onElicit: options.onElicit ?? (async () => ({ action: 'accept' as const })) });
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await host.client.callTool({ name, arguments: args });
    return (result.content as { text: string }[])[0]!.text;
  };
  return {
    ...host,
    finishOutOfBand() {
      gate.resolve();
      gate = deferred();
    },
    meetPayment: () => void (paymentMet = true),
    operations,
    connect: (args = { account: 'octocat' }) => call('connect', args),
    pay: (args = { amount: 5, currency: 'EUR' }) => call('pay', args),
  };
}
