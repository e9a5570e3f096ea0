import type { JsonRpcMessage } from '../../protocol/jsonrpc.js';
import { FIRST_MODERN_REVISION, protocolVersionOf } from '../../wire/rev2026-07-28.js';
import type { Upstream, UpstreamHandlers } from './child.js';

/** What the proxy uses of an SDK's Streamable HTTP client transport (v1 and v2 have it alike). */
interface HttpTransport {
  onmessage?: ((message: unknown) => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onclose?: (() => void) | undefined;
  start(): Promise<void>;
  send(message: unknown): Promise<void>;
  close(): Promise<void>;
  setProtocolVersion(version: string): void;
  terminateSession(): Promise<void>;
}

type HttpTransportClass = new (url: URL) => HttpTransport;

/**
 * The SDK's Streamable HTTP client transport: SDK v2's (`@modelcontextprotocol/client`) when it is
 * installed, as it speaks both eras (2026-07-28 needs the per-request `Mcp-Method` / `Mcp-Name`
 * headers), else SDK v1's (2025-11-25 only). Loaded only when used, so the stdio proxy needs neither.
 */
async function loadTransport(): Promise<HttpTransportClass> {
  try {
    const v2 = (await import('@modelcontextprotocol/client')) as unknown as { StreamableHTTPClientTransport: HttpTransportClass };
    return v2.StreamableHTTPClientTransport;
  } catch {
    const v1 = (await import('@modelcontextprotocol/sdk/client/streamableHttp.js')) as unknown as {
      StreamableHTTPClientTransport: HttpTransportClass;
    };
    return v1.StreamableHTTPClientTransport;
  }
}

/** A Streamable HTTP server reached through the SDK's client transport. */
export class HttpUpstream implements Upstream {
  readonly #url: URL;
  #transport: HttpTransport | null = null;
  #closed = false;
  #modernVersion: string | null = null;

  constructor(url: URL) {
    this.#url = url;
  }

  async start(handlers: UpstreamHandlers): Promise<void> {
    const Transport = await loadTransport();
    const transport = new Transport(this.#url);
    this.#transport = transport;
    transport.onmessage = (message) => {
      // The SDK client would do this after initialize: later requests carry the negotiated version.
      const result = (message as { result?: { protocolVersion?: unknown; serverInfo?: unknown } }).result;
      if (result !== undefined && typeof result.protocolVersion === 'string' && result.serverInfo !== undefined)
        transport.setProtocolVersion(result.protocolVersion);
      handlers.onMessage(message);
    };
    transport.onerror = (error) => handlers.onError(error);
    // Also after our own close(): the proxy waits for onExit to flush the ledger and the audit log.
    transport.onclose = () => handlers.onExit(0);
    await transport.start();
  }

  send(message: JsonRpcMessage): Promise<void> {
    const transport = this.#transport;
    if (transport === null) return Promise.reject(new Error('the upstream is not connected'));
    // 2026-07-28 has no handshake: each request names its revision in `_meta`, and the
    // MCP-Protocol-Version header must say the same.
    const version = 'method' in message ? protocolVersionOf(message) : null;
    if (version !== null && version >= FIRST_MODERN_REVISION && version !== this.#modernVersion) {
      this.#modernVersion = version;
      transport.setProtocolVersion(version);
    }
    return transport.send(message);
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
