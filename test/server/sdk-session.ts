import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ElicitationCompleteNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

/** One MCP session: a real SDK server and client over an in-memory pair, the client declaring URL elicitation. */
export interface SdkSession {
  readonly server: Server;
  readonly client: Client;
  /** `elicitationId`s of the completion notifications this session's client received, in order. */
  readonly completions: string[];
  close(): Promise<void>;
}

export async function openSession(configure: (server: Server) => void = () => undefined): Promise<SdkSession> {
  const server = new Server({ name: 'server-under-test', version: '1.0.0' }, { capabilities: { tools: {} } });
  configure(server);
  const client = new Client({ name: 'host', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
  const completions: string[] = [];
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => {
    completions.push(n.params.elicitationId);
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  return {
    server,
    client,
    completions,
    async close() {
      await client.close();
      await server.close();
    },
  };
}

/** Lets queued in-memory deliveries run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
