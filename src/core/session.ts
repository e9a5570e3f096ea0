import { NO_MODES, type Modes } from '../negotiation/capabilities.js';
import type { JsonRpcId } from '../protocol/jsonrpc.js';

/**
 * What the guard knows about the negotiation of one MCP session: the modes the host declared and
 * the ones the server was told about, the handshake in flight, and who the server says it is.
 * Everything about elicitations, flows and lineages lives in the flow book.
 */
export class Session {
  /** The modes the host declared in its handshake. */
  declared: Modes = NO_MODES;
  /** The modes the server was told about (declared, narrowed by the policy). */
  modes: Modes = NO_MODES;
  /** The id of the handshake request until the server answers it. */
  handshakeId: JsonRpcId | null = null;
  initialized = false;
  protocolVersion: string | null = null;
  serverName: string | null = null;
  serverVersion: string | null = null;

  /** A new handshake: the old negotiation no longer holds. */
  restart(handshakeId: JsonRpcId): void {
    this.initialized = false;
    this.protocolVersion = null;
    this.handshakeId = handshakeId;
  }
}
