import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { JsonRpcMessage } from '../../protocol/jsonrpc.js';
import type { Upstream, UpstreamHandlers } from './child.js';

/**
 * A Streamable HTTP server reached through the SDK's client transport. Loaded only when used, so
 * the stdio proxy does not need the SDK's HTTP client.
 */
export class HttpUpstream implements Upstream {
  readonly #url: URL;
  #transport: StreamableHTTPClientTransport | null = null;
  #closed = false;

  constructor(url: URL) {
    this.#url = url;
  }

  async start(handlers: UpstreamHandlers): Promise<void> {
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    const transport = new StreamableHTTPClientTransport(this.#url);
    this.#transport = transport;
    transport.onmessage = (message) => {
      // The SDK client would do this after initialize: later requests carry the negotiated version.
      const result = (message as { result?: { protocolVersion?: unknown; serverInfo?: unknown } }).result;
      if (result !== undefined && typeof result.protocolVersion === 'string' && result.serverInfo !== undefined) transport.setProtocolVersion(result.protocolVersion);
      handlers.onMessage(message);
    };
    transport.onerror = (error) => handlers.onError(error);
    // Also after our own close(): the proxy waits for onExit to flush the ledger and the audit log.
    transport.onclose = () => handlers.onExit(0);
    await transport.start();
  }

  send(message: JsonRpcMessage): Promise<void> {
    if (this.#transport === null) return Promise.reject(new Error('the upstream is not connected'));
    return this.#transport.send(message as Parameters<StreamableHTTPClientTransport['send']>[0]);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#transport?.terminateSession().catch(() => undefined);
    await this.#transport?.close();
  }

  signal(): void {
    // The server is remote and keeps running: a signal to the proxy ends this session instead.
    void this.close();
  }
}
