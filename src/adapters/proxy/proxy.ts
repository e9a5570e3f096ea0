import type { Readable, Writable } from 'node:stream';
import type { GuardEvent } from '../../core/events.js';
import { executeJudgement, type DecisionSinks } from '../../core/decision.js';
import { judgeInbound, judgeOutbound, type Guard } from '../../core/guard.js';
import { Bounded } from '../../flow/book.js';
import { errorResponse, isJsonRpcId, isRecord, kindOf, type JsonRpcMessage, type JsonRpcRequest } from '../../protocol/jsonrpc.js';
import { GuardCode } from '../../protocol/errors.js';
import { GuardMetaKey, Method, RpcCode } from '../../protocol/wire.js';
import type { UrlAnalysis } from '../../url/types.js';
import type { Upstream } from './child.js';
import { isBlank, isFaithfulLine, keysMatch, LineWriter, readLines } from './lines.js';

export interface ProxyOptions {
  readonly guard: Guard;
  readonly upstream: Upstream;
  /** The host side: MCP over these streams (the proxy's own stdin and stdout). */
  readonly hostInput: Readable;
  readonly hostOutput: Writable;
  /** Diagnostics (stderr): never protocol. */
  readonly log: (line: string) => void;
  /** The server's life (start, exit code or signal), at a level; `log` gets none of it when absent. */
  readonly lifecycle?: (level: 'error' | 'warn' | 'info', line: string) => void;
}

/** Host requests the server has not answered yet, at most this many (the oldest are forgotten first). */
const MAX_PENDING = 65_536;

/** Where a message came from: the object parsed from the line (the line, its keys and bytes too, where a transport reads lines). */
interface Source {
  readonly parsed: unknown;
  readonly line: string | undefined;
  readonly keys: number | undefined;
  readonly bytes: Buffer | undefined;
}

/** Events the host hears about as `notifications/message`, so a host that draws its own UI can tell the user. */
const TOLD_TO_HOST: ReadonlySet<GuardEvent['type']> = new Set([
  'elicitation.refused',
  'content.withheld',
  'url-required.filtered',
  'retry.refused',
  'response.withheld',
  'protocol.violation',
  'url-required.loop',
]);

/**
 * The guard as a process in front of any MCP server: the host speaks MCP to the proxy's stdin and
 * stdout, the server runs upstream, and every message passes the same `Guard` both ways. Never
 * breaks the pipe: a malformed line is logged and answered as JSON-RPC says; the proxy stays up
 * until the server exits, and then exits with its code.
 */
export class ElicitationProxy {
  readonly #options: ProxyOptions;
  #hostClosed = false;
  /**
   * Host requests forwarded to the server and not answered yet: answered by the proxy if the server
   * goes away. A `Bounded` table, not a Map: with one request in flight at a time it is two field
   * writes, and a table that empties after every answer is not reallocated each time.
   */
  readonly #pending = new Bounded<string | number, true>(MAX_PENDING);
  readonly #hostWriter: LineWriter;
  #exitCode: Promise<number>;
  #resolveExit!: (code: number) => void;

  /** Host → server: on to the server; the guard's answers go back to the host. */
  readonly #toServer: DecisionSinks<Source> = {
    forward: (message, source) => {
      if ('method' in message && 'id' in message && isJsonRpcId(message.id) && message.id !== null) this.#track(message.id);
      let sent: Promise<void> | void;
      try {
        sent = this.#faithful(message, source)
          ? this.#options.upstream.send(message, source.line, source.bytes)
          : this.#options.upstream.send(message);
      } catch (error) {
        this.#notSent(message, error as Error);
        return;
      }
      if (sent !== undefined) sent.catch((error: Error) => this.#notSent(message, error));
    },
    reply: (message) => this.#toHost(message),
    fail: (error) => this.#options.log(`mcp-elicitation-guard: ${(error as Error)?.message ?? String(error)}`),
  };
  /** Server → host: on to the host (warnings in front of the message); the guard's answers go back to the server. */
  readonly #fromServerSinks: DecisionSinks<Source> = {
    forward: (message, source) => {
      const shown = forHost(message);
      if (!this.#faithful(shown, source)) this.#toHost(shown);
      else if (!this.#hostClosed) this.#hostWriter.line(source.line!, source.bytes);
    },
    reply: (message) => {
      const notSent = (error: Error) => this.#options.log(`mcp-elicitation-guard: could not answer the server: ${error.message}`);
      try {
        this.#options.upstream.send(message)?.catch(notSent);
      } catch (error) {
        notSent(error as Error);
      }
    },
    fail: (error) => this.#options.log(`mcp-elicitation-guard: ${(error as Error)?.message ?? String(error)}`),
  };

  constructor(options: ProxyOptions) {
    this.#options = options;
    this.#hostWriter = new LineWriter(options.hostOutput);
    this.#exitCode = new Promise((resolve) => (this.#resolveExit = resolve));
  }

  /** Starts both sides; resolves with the exit code the proxy should exit with (the server's). */
  async run(): Promise<number> {
    const { upstream, hostInput, log } = this.#options;
    await upstream.start({
      onMessage: (message, line, keys, bytes) => this.#fromServer(message, line, keys, bytes),
      onMalformed: (detail) => log(`mcp-elicitation-guard: ${detail}; dropped`),
      onStart: ({ pid, command }) =>
        this.#options.lifecycle?.('info', `server started: ${command}${pid === undefined ? '' : ` (pid ${pid})`}`),
      onExit: (code, signal) => {
        const how = signal === undefined || signal === null ? `exited with code ${code}` : `was stopped by signal ${signal}`;
        this.#options.lifecycle?.(code === 0 ? 'info' : signal === undefined || signal === null ? 'error' : 'warn', `server ${how}`);
        this.#answerPending(how);
        // The server is gone: stop reading the host, so the proxy can exit with the server's code.
        this.#hostClosed = true;
        hostInput.destroy();
        this.#resolveExit(code);
      },
      onError: (error) => log(`mcp-elicitation-guard: upstream error: ${error.message}`),
    });
    readLines(
      hostInput,
      (line, keys, bytes) => this.#fromHostLine(line, keys, bytes),
      (bytes) => {
        log(`mcp-elicitation-guard: host wrote a line of ${bytes} bytes, over the limit; answered with a parse error`);
        this.#toHost(errorResponse(null, RpcCode.parseError, 'Parse error: line too long'));
      },
    );
    hostInput.once('end', () => {
      this.#hostClosed = true;
      void upstream.close();
    });
    return this.#exitCode;
  }

  /** Never silence: every host request the server did not answer gets a JSON-RPC error now. */
  #answerPending(how: string): void {
    if (this.#pending.size === 0 || this.#hostClosed) return;
    const ids = [...this.#pending].map(([id]) => id);
    this.#pending.clear();
    this.#options.lifecycle?.(
      'error',
      `answered ${ids.length} pending host request${ids.length === 1 ? '' : 's'} with -32603 (${GuardCode.serverExited}): the ` +
        `server ${how}`,
    );
    for (const id of ids)
      this.#toHost(
        errorResponse(id, RpcCode.internalError, `The MCP server ${how} before answering this request.`, { code: GuardCode.serverExited }),
      );
  }

  /** A host message the server did not get: a request among them is answered now, so the host does not wait for its timeout. */
  #notSent(message: JsonRpcMessage, error: Error): void {
    this.#options.log(`mcp-elicitation-guard: could not send to the server: ${error.message}`);
    if ('method' in message && 'id' in message && isJsonRpcId(message.id)) {
      if (message.id !== null) this.#pending.delete(message.id);
      this.#toHost(errorResponse(message.id, RpcCode.internalError, 'The MCP server could not be reached through the proxy.'));
    }
  }

  #track(id: string | number): void {
    // A re-sent id counts from now: the newest, forgotten last.
    this.#pending.delete(id);
    this.#pending.put(id, true);
  }

  /** Passes a signal on to the server (SIGINT, SIGTERM). */
  signal(signal: NodeJS.Signals): void {
    this.#options.upstream.signal(signal);
  }

  /** Called by the host of the guard with each event, so refusals reach the host's log too. */
  tellHost(event: GuardEvent): void {
    if (!TOLD_TO_HOST.has(event.type) || this.#hostClosed) return;
    const data: Record<string, unknown> = { event: event.type, server: event.server.name ?? event.server.key };
    if ('code' in event) data.code = event.code;
    if ('reason' in event) data.reason = event.reason;
    if (event.type === 'elicitation.refused') data.mode = event.mode;
    this.#toHost({ jsonrpc: '2.0', method: Method.logMessage, params: { level: 'warning', logger: 'mcp-elicitation-guard', data } });
  }

  #fromHostLine(line: string, keys: number, bytes: Buffer | undefined): void {
    if (isBlank(line)) return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      this.#options.log('mcp-elicitation-guard: host wrote a line that is not JSON; answered with a parse error');
      this.#toHost(errorResponse(null, RpcCode.parseError, 'Parse error'));
      return;
    }
    if (kindOf(message) === 'invalid') {
      const id = isRecord(message) && isJsonRpcId(message.id) ? message.id : null;
      this.#options.log('mcp-elicitation-guard: host wrote a message that is not JSON-RPC; answered with invalid request');
      this.#toHost(errorResponse(id, RpcCode.invalidRequest, 'Invalid Request'));
      return;
    }
    void executeJudgement(judgeOutbound(this.#options.guard, message), message, this.#toServer, { parsed: message, line, keys, bytes });
  }

  #fromServer(message: unknown, line?: string, keys?: number, bytes?: Buffer): void {
    // An answer (whatever the guard then does with it) means the request is no longer the proxy's to answer.
    if (this.#pending.size > 0 && isRecord(message) && !('method' in message) && isJsonRpcId(message.id) && message.id !== null)
      this.#pending.delete(message.id);
    if (kindOf(message) === 'invalid' && !(isRecord(message) && typeof message.method === 'string')) {
      this.#options.log('mcp-elicitation-guard: server wrote a message that is not JSON-RPC; dropped');
      return;
    }
    void executeJudgement(judgeInbound(this.#options.guard, message), message, this.#fromServerSinks, {
      parsed: message,
      line,
      keys,
      bytes,
    });
  }

  /**
   * Whether the original line of a message may go on instead of the message serialised again: the
   * guard forwards it as it is (the very object parsed from it), and the line means the same to
   * every parser (its keys as `readLines` counted them match the parsed value's, see
   * `isFaithfulLine`, which checks a line an upstream gave without its keys). Otherwise the message
   * is serialised again, as the guard saw it.
   */
  #faithful(forwarded: JsonRpcMessage, source: Source): boolean {
    const { line, keys } = source;
    if (line === undefined || forwarded !== source.parsed) return false;
    return keys === undefined ? isFaithfulLine(line, forwarded) : keysMatch(keys, forwarded);
  }

  #toHost(message: JsonRpcMessage): void {
    if (this.#hostClosed) return;
    this.#hostWriter.message(message);
  }
}

/**
 * The host draws its own UI, so a URL the guard only warns about carries the warning in front of
 * the server's message, where every host shows it (the analysis stays in `_meta` too).
 */
function forHost(message: JsonRpcMessage): JsonRpcMessage {
  // 2026-07-28: the URL elicitations of an input-required result, each like an elicitation/create.
  if (
    'result' in message &&
    isRecord(message.result) &&
    message.result.resultType === 'input_required' &&
    isRecord(message.result.inputRequests)
  ) {
    const inputRequests: Record<string, unknown> = {};
    for (const [key, entry] of Object.entries(message.result.inputRequests)) {
      inputRequests[key] =
        isRecord(entry) && entry.method === Method.elicitationCreate && isRecord(entry.params)
          ? { ...entry, params: withWarning(entry.params) }
          : entry;
    }
    return { ...message, result: { ...message.result, inputRequests } };
  }
  if (!('method' in message) || message.method !== Method.elicitationCreate) {
    if (
      'error' in message &&
      message.error.code === RpcCode.urlElicitationRequired &&
      isRecord(message.error.data) &&
      Array.isArray(message.error.data.elicitations)
    ) {
      const elicitations = message.error.data.elicitations.map((entry: unknown) => (isRecord(entry) ? withWarning(entry) : entry));
      return { ...message, error: { ...message.error, data: { ...message.error.data, elicitations } } };
    }
    return message;
  }
  const request = message as JsonRpcRequest;
  return isRecord(request.params) ? { ...request, params: withWarning(request.params) } : request;
}

function withWarning(params: Record<string, unknown>): Record<string, unknown> {
  const meta = isRecord(params._meta) ? params._meta : undefined;
  const analysis = meta?.[GuardMetaKey.urlAnalysis] as UrlAnalysis | undefined;
  if (analysis === undefined || analysis.verdict !== 'warn' || typeof params.message !== 'string') return params;
  const warnings = analysis.findings.filter((f) => f.severity === 'warning').map((f) => `- ${f.message}`);
  const host = analysis.display.host ?? '(no host)';
  const banner = `⚠ Check this link before you open it (${host}):\n${warnings.join('\n')}\n\n`;
  return { ...params, message: banner + params.message };
}
