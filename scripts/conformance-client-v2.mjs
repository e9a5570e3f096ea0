// The client under test for the official MCP conformance runner, SDK v2 edition: an
// `@modelcontextprotocol/client` Client whose transport passes the guard and whose
// `elicitation/create` handler is the guard's own `createElicitationHandler`, with a scripted,
// non-interactive ConsentUi. The era follows the runner: MCP_CONFORMANCE_PROTOCOL_VERSION 2026-07-28
// (or later) pins the modern era, anything else runs the 2025-11-25 handshake.
//
// The runner spawns this file with the scenario server's URL as the last argument and the scenario
// name in MCP_CONFORMANCE_SCENARIO. It imports the BUILT package (dist/), so `npm run build` first.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createElicitationHandler, createGuard, guardTransport } from '../dist/index.js';

const MODERN = '2026-07-28';
const SCENARIOS = [
  'initialize',
  'tools_call',
  'elicitation-sep1034-client-defaults',
  'sse-retry',
  'sep-2322-client-request-state',
  'request-metadata',
];

/** Accepts every form with the defaults the guard's handler pre-filled; declines every URL (nothing is opened). */
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

async function run(url, scenario, version) {
  const modern = version >= MODERN;
  const events = [];
  const guard = createGuard({ server: 'conformance', onEvent: (event) => events.push(event.type) });
  const log = { forms: 0, urls: 0, handlerErrors: [] };
  const client = new Client(
    { name: 'mcp-elicitation-guard-conformance-v2', version: '0.1.0' },
    {
      capabilities: { elicitation: { form: { applyDefaults: true }, url: {} } },
      versionNegotiation: { mode: modern ? { pin: version } : 'legacy' },
    },
  );
  client.setRequestHandler(
    'elicitation/create',
    createElicitationHandler(guard, scriptedUi(log), {
      opener: async () => {
        throw new Error('the conformance client does not open URLs');
      },
      onError: (error) => log.handlerErrors.push(error instanceof Error ? error.message : String(error)),
    }),
  );
  await client.connect(guardTransport(new StreamableHTTPClientTransport(new URL(url)), guard));
  try {
    if (modern !== (client.getProtocolEra() === 'modern'))
      throw new Error(`expected the ${modern ? 'modern' : 'legacy'} era, got ${client.getProtocolEra()}`);
    switch (scenario) {
      case 'initialize':
        break;
      case 'tools_call': {
        await client.listTools();
        const result = await client.callTool({ name: 'add_numbers', arguments: { a: 5, b: 3 } });
        if (result.isError === true) throw new Error('add_numbers returned an error');
        break;
      }
      case 'elicitation-sep1034-client-defaults': {
        await client.listTools();
        const result = await client.callTool({ name: 'test_client_elicitation_defaults', arguments: {} });
        if (result.isError === true) throw new Error('test_client_elicitation_defaults returned an error');
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
      case 'sep-2322-client-request-state': {
        await client.listTools();
        // Two multi-round-trip calls with a form round each; an unrelated call between them; a result without resultType.
        for (const name of ['test_mrtr_echo_state', 'test_mrtr_unrelated', 'test_mrtr_no_state']) {
          const result = await client.callTool({ name, arguments: {} });
          if (result.isError === true) throw new Error(`${name} returned an error`);
        }
        // The scenario's check is that the client does not retry a result without resultType. SDK v2
        // 2.4 goes further and rejects such a result from a 2026-07-28 server; either way, no retry.
        await client.callTool({ name: 'test_mrtr_no_result_type', arguments: {} }).catch((error) => {
          if (!/resultType/.test(String(error?.message))) throw error;
        });
        // The forms came through the guard's judgement of the input-required rounds, not around it.
        if (log.forms !== 2) throw new Error(`expected the two MRTR forms to reach the ConsentUi, it saw ${log.forms}`);
        if (events.filter((e) => e === 'elicitation.forwarded').length !== 2)
          throw new Error('the guard did not judge both input-required rounds');
        break;
      }
      case 'request-metadata': {
        await client.listTools();
        await client.callTool({ name: 'any_tool', arguments: {} }).catch(() => undefined);
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
  process.stderr.write(`guard events: ${events.join(', ') || '(none)'}\nguard metrics: ${JSON.stringify(metrics)}\n`);
}

const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
const version = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION ?? '2025-11-25';
if (url === undefined || !/^https?:\/\//.test(url) || scenario === undefined) {
  process.stderr.write('usage: MCP_CONFORMANCE_SCENARIO=<scenario> node scripts/conformance-client-v2.mjs <server-url>\n');
  process.exit(1);
}
try {
  await run(url, scenario, version);
  process.exit(0);
} catch (error) {
  process.stderr.write(
    `conformance client v2 (${scenario}, ${version}) failed: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
}
