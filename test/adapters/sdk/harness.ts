import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ConsentUi, FormAnswer, FormReview, UrlDecision, UrlReview } from '../../../src/adapters/sdk/consent-ui.js';
import { createElicitationHandler, type ElicitationHandlerOptions } from '../../../src/adapters/sdk/handler.js';
import { guardTransport } from '../../../src/adapters/sdk/transport.js';
import type { FlowView } from '../../../src/core/flows.js';
import type { Guard } from '../../../src/core/guard.js';
import type { AfterOpenAnswer } from '../../../src/adapters/sdk/consent-ui.js';

export const SERVER_INFO = { name: 'billing-server', version: '2.1.0' };

/** A real SDK client and server over an in-memory pair, the guard in the client's transport. */
export async function connectWithHandler(
  guard: Guard,
  ui: ConsentUi,
  options: ElicitationHandlerOptions,
  configureServer?: (server: Server) => void,
) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} } });
  configureServer?.(server);
  const client = new Client({ name: 'host', version: '1.0.0' }, { capabilities: { elicitation: { form: {}, url: {} } } });
  client.setRequestHandler(ElicitRequestSchema, createElicitationHandler(guard, ui, options));
  await server.connect(serverSide);
  await client.connect(guardTransport(clientSide, guard));
  return { client, server, close: () => client.close() };
}

export interface ScriptedUi extends ConsentUi {
  readonly urlReviews: UrlReview[];
  readonly formReviews: FormReview[];
  readonly followUps: FlowView[];
}

/** A fake UI that records what it was shown and answers from a script. */
export function scriptedUi(script: {
  url?: (review: UrlReview) => UrlDecision | Promise<UrlDecision>;
  form?: (review: FormReview) => FormAnswer | Promise<FormAnswer>;
  afterOpen?: (flow: FlowView, signal: AbortSignal) => AfterOpenAnswer | Promise<AfterOpenAnswer>;
}): ScriptedUi {
  const urlReviews: UrlReview[] = [];
  const formReviews: FormReview[] = [];
  const followUps: FlowView[] = [];
  const ui: ScriptedUi = {
    urlReviews,
    formReviews,
    followUps,
    async reviewUrl(review) {
      urlReviews.push(review);
      if (script.url === undefined) throw new Error('no URL review expected');
      return script.url(review);
    },
    async reviewForm(review) {
      formReviews.push(review);
      if (script.form === undefined) throw new Error('no form review expected');
      return script.form(review);
    },
  };
  const afterOpen = script.afterOpen;
  if (afterOpen !== undefined) {
    return Object.assign(ui, {
      async afterOpen(flow: FlowView, signal: AbortSignal) {
        followUps.push(flow);
        return afterOpen(flow, signal);
      },
    });
  }
  return ui;
}
