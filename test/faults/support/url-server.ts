/**
 * A server whose `open` tool asks the user to open a URL of the test's choosing, either nested
 * (`elicitation/create` in URL mode, inside the tool call) or by answering `-32042`; the host side
 * has the guard's elicitation handler with a scripted UI that would accept anything it is shown.
 */
import { CallToolRequestSchema, McpError, UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { createElicitationHandler, presentUrlElicitationRequired } from '../../../src/adapters/sdk/handler.js';
import type { Guard } from '../../../src/core/guard.js';
import { scriptedUi, type ScriptedUi } from '../../adapters/sdk/harness.js';
import { connectHost, type Host } from './sdk.js';

export interface UrlFaultHost extends Host {
  readonly ui: ScriptedUi;
  /** URLs the opener was handed. */
  readonly opened: string[];
  /** What the server's `elicitation/create` came to: the answer, or the error it was refused with. */
  readonly serverOutcomes: unknown[];
  /** Asks for `url` nested in a tool call; resolves with the tool's text. */
  nested(url: string, elicitationId: string): Promise<string>;
  /** Calls the tool that answers -32042 for `url`; resolves with the error the host got. */
  required(url: string, elicitationId: string): Promise<unknown>;
  /** Presents a -32042 error's list through the guard's handler, as a host does. */
  present(error: unknown): Promise<string>;
}

export async function urlFaultHost(guard: Guard): Promise<UrlFaultHost> {
  const opened: string[] = [];
  const serverOutcomes: unknown[] = [];
  const ui = scriptedUi({ url: () => 'accept' });
  const opener = (url: string) => void opened.push(url);
  const host = await connectHost(guard, {
    onElicit: createElicitationHandler(guard, ui, { opener }),
    configure: (server) =>
      server.setRequestHandler(CallToolRequestSchema, async (request) => {
        const { url, elicitationId } = request.params.arguments as { url: string; elicitationId: string };
        if (request.params.name === 'required')
          throw new UrlElicitationRequiredError([{ mode: 'url', message: 'Open this page to continue', url, elicitationId }]);
        try {
          const answer = await server.elicitInput({ mode: 'url', message: 'Open this page to continue', url, elicitationId });
          serverOutcomes.push(answer);
          return { content: [{ type: 'text' as const, text: answer.action }] };
        } catch (error) {
          serverOutcomes.push(error);
          return {
            content: [
              {
                type: 'text' as const,
                text: error instanceof McpError ? `refused ${String((error.data as { code?: string })?.code)}` : 'failed',
              },
            ],
          };
        }
      }),
  });
  return {
    ...host,
    ui,
    opened,
    serverOutcomes,
    async nested(url, elicitationId) {
      const result = await host.client.callTool({ name: 'nested', arguments: { url, elicitationId } });
      return (result.content as { text: string }[])[0]!.text;
    },
    required(url, elicitationId) {
      return host.client.callTool({ name: 'required', arguments: { url, elicitationId } }).then(
        () => null,
        (e: unknown) => e,
      );
    },
    present(error) {
      return presentUrlElicitationRequired(guard, ui, error, { opener });
    },
  };
}
