// The client under test for the official MCP conformance runner (@modelcontextprotocol/conformance,
// `client` scenarios): an SDK Client whose transport passes the guard and whose elicitation handler
// is the guard's own `createElicitationHandler`, with a scripted, non-interactive ConsentUi.
//
// The runner spawns this file with the scenario server's URL as the last argument and the scenario
// name in MCP_CONFORMANCE_SCENARIO. It imports the BUILT package (dist/), so `npm run build` first.
// Plain .mjs: the runner starts it with its own Node 22, which has no tsx loader.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createElicitationHandler, createGuard, guardTransport } from '../dist/index.js';

const SCENARIOS = ['initialize', 'tools_call', 'elicitation-sep1034-client-defaults', 'sse-retry'];

/**
 * Accepts every form with the defaults the guard's handler pre-filled (so the answer comes from the
 * handler's real path, not from the SDK's `applyDefaults` alone) and declines every URL: nothing is
 * opened by an unattended client.
 */
function scriptedUi(log) {
  return {
    async reviewUrl() {
      log.urls += 1;
      return 'decline';
    },
    async reviewForm(review) {
      log.forms += 1;
      return { action: 'accept', content: { ...review.defaults } };
    },
  };
}

async function run(url, scenario) {
  const events = [];
  const guard = createGuard({ server: 'conformance', onEvent: (event) => events.push(event.type) });
  const log = { forms: 0, urls: 0, handlerErrors: [] };
  const client = new Client(
    { name: 'mcp-elicitation-guard-conformance', version: '0.1.0' },
    { capabilities: { elicitation: { form: { applyDefaults: true }, url: {} } } },
  );
  client.setRequestHandler(
    ElicitRequestSchema,
    createElicitationHandler(guard, scriptedUi(log), {
      // Unreachable (the UI declines every URL); a second lock so this client can never open anything.
      opener: async () => {
        throw new Error('the conformance client does not open URLs');
      },
      onError: (error) => log.handlerErrors.push(error instanceof Error ? error.message : String(error)),
    }),
  );

  await client.connect(guardTransport(new StreamableHTTPClientTransport(new URL(url)), guard));
  try {
    switch (scenario) {
      case 'initialize':
        break;
      case 'tools_call': {
        await client.listTools();
        const result = await client.callTool({ name: 'add_numbers', arguments: { a: 5, b: 3 } });
        if (result.isError === true) throw new Error(`add_numbers returned an error: ${JSON.stringify(result.content)}`);
        break;
      }
      case 'elicitation-sep1034-client-defaults': {
        await client.listTools();
        const result = await client.callTool({ name: 'test_client_elicitation_defaults', arguments: {} });
        if (result.isError === true)
          throw new Error(`test_client_elicitation_defaults returned an error: ${JSON.stringify(result.content)}`);
        // The pass must come through the guard and the handler, not around them.
        if (log.forms !== 1) throw new Error(`expected the form to reach the ConsentUi once, it reached it ${log.forms} times`);
        if (!events.includes('elicitation.forwarded')) throw new Error('the guard did not forward the form elicitation');
        break;
      }
      case 'sse-retry': {
        const { tools } = await client.listTools();
        if (tools.length === 0) throw new Error('the server lists no tools');
        await client.callTool({ name: tools[0].name, arguments: {} });
        break;
      }
      default:
        throw new Error(`unknown scenario ${JSON.stringify(scenario)}; this client handles ${SCENARIOS.join(', ')}`);
    }
  } finally {
    await client.close();
  }
  if (log.handlerErrors.length > 0) throw new Error(`elicitation handler errors: ${log.handlerErrors.join('; ')}`);
  const metrics = guard.metrics();
  if (metrics.internalErrors > 0) throw new Error(`the guard reported ${metrics.internalErrors} internal error(s)`);
  // Diagnostics for stderr.txt in the results folder: event types and counters only, no content.
  process.stderr.write(`guard events: ${events.join(', ') || '(none)'}\nguard metrics: ${JSON.stringify(metrics)}\n`);
}

const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
if (url === undefined || !/^https?:\/\//.test(url) || scenario === undefined) {
  process.stderr.write('usage: MCP_CONFORMANCE_SCENARIO=<scenario> node scripts/conformance-client.mjs <server-url>\n');
  process.exit(1);
}
try {
  await run(url, scenario);
  process.exit(0);
} catch (error) {
  process.stderr.write(`conformance client (${scenario}) failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
